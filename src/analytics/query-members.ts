import type { AnalyticsQuery, Filter } from './analytics.schemas';

/** Every member a query names: measures, dimensions, time dimensions, filters, segments and order. */
export function queryMembers(q: AnalyticsQuery): string[] {
  const fromFilters = (filters: Filter[]): string[] =>
    filters.flatMap((f) => ('and' in f ? fromFilters(f.and) : 'or' in f ? fromFilters(f.or) : [(f.member ?? f.dimension)!]));
  const ordered = q.order ? (Array.isArray(q.order) ? q.order.map(([m]) => m) : Object.keys(q.order)) : [];
  return [...q.measures, ...q.dimensions, ...q.timeDimensions.map((t) => t.dimension), ...fromFilters(q.filters), ...(q.segments ?? []), ...ordered];
}

/** The source alias of a qualified member (`ds_….amount` → `ds_…`). */
export const sourceAlias = (member: string) => member.split('.')[0];

/**
 * The query in Cube's own terms: filters name `member`, values are strings,
 * and a widget's `timeRange` becomes the date range of its time dimensions
 * (or of the source's time dimension when the query has none).
 */
export function toCubeQuery(q: AnalyticsQuery, timeDimensionOf: (alias: string) => string | undefined): Record<string, unknown> {
  const filters = (list: Filter[]): unknown[] =>
    list.map((f) =>
      'and' in f
        ? { and: filters(f.and) }
        : 'or' in f
          ? { or: filters(f.or) }
          : { member: f.member ?? f.dimension, operator: f.operator, ...(f.values ? { values: f.values } : {}) },
    );
  let timeDimensions: Array<Record<string, unknown>> = q.timeDimensions.map((t) => ({ ...t }));
  if (q.timeRange) {
    if (timeDimensions.length > 0) timeDimensions = timeDimensions.map((t) => ({ ...t, dateRange: t.dateRange ?? q.timeRange!.value }));
    else {
      const alias = queryMembers(q).map(sourceAlias)[0];
      const time = alias ? timeDimensionOf(alias) : undefined;
      if (time) timeDimensions = [{ dimension: time, dateRange: q.timeRange.value }];
    }
  }
  const { timeRange: _timeRange, ...rest } = q;
  return { ...rest, timeDimensions, filters: filters(q.filters) };
}
