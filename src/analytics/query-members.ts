import type { AnalyticsQuery, Filter } from './analytics.schemas';

/** A member where a query names it; `path` is within the query, such as `filters.0.and.1.member`. */
export interface MemberPlace {
  member: string;
  path: string;
}

/** Every place a query names a member, in query order: measures, dimensions, time dimensions, filters, segments and order. */
export function memberPlaces(q: AnalyticsQuery): MemberPlace[] {
  const fromFilters = (filters: Filter[], at: string): MemberPlace[] =>
    filters.flatMap((f, i) =>
      'and' in f
        ? fromFilters(f.and, `${at}.${i}.and`)
        : 'or' in f
          ? fromFilters(f.or, `${at}.${i}.or`)
          : [{ member: (f.member ?? f.dimension)!, path: `${at}.${i}.${f.member !== undefined ? 'member' : 'dimension'}` }],
    );
  const listed = (names: string[], at: string) => names.map((member, i) => ({ member, path: `${at}.${i}` }));
  const ordered = q.order
    ? Array.isArray(q.order)
      ? q.order.map(([member], i) => ({ member, path: `order.${i}.0` }))
      : Object.keys(q.order).map((member) => ({ member, path: `order.${member}` }))
    : [];
  return [
    ...listed(q.measures, 'measures'),
    ...listed(q.dimensions, 'dimensions'),
    ...q.timeDimensions.map((t, i) => ({ member: t.dimension, path: `timeDimensions.${i}.dimension` })),
    ...fromFilters(q.filters, 'filters'),
    ...listed(q.segments ?? [], 'segments'),
    ...ordered,
  ];
}

/** Every member a query names: measures, dimensions, time dimensions, filters, segments and order. */
export function queryMembers(q: AnalyticsQuery): string[] {
  return memberPlaces(q).map((p) => p.member);
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
