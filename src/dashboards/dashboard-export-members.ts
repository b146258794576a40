import type { AnalyticsQuery, Filter } from '../analytics/analytics.schemas';

/**
 * Field references of a dashboard name their source by alias:
 * `ds_<uuid with underscores>.amount` inside one organization, and
 * `$<exportId>.amount` in a portable export (dashboard-export.ts), where
 * `exportId` names an entry of the export's `dataSources`. Exports and
 * imports swap the alias, the part before the first `.`, and keep the rest
 * verbatim (`.amount`, or `.placedAt.day` where Cube allows a granularity).
 */

/** The new alias for `alias`, or undefined to keep the member as it is. */
export type AliasRename = (alias: string) => string | undefined;

/** The alias of a qualified member (`ds_….amount` → `ds_…`); undefined when it is not qualified. */
export function aliasOf(member: string): string | undefined {
  const dot = member.indexOf('.');
  return dot > 0 ? member.slice(0, dot) : undefined;
}

export function renameMember(member: string, rename: AliasRename): string {
  const alias = aliasOf(member);
  const next = alias === undefined ? undefined : rename(alias);
  return next === undefined ? member : next + member.slice(alias!.length);
}

function renameFilters(filters: Filter[], m: (member: string) => string): Filter[] {
  return filters.map((f) => {
    if ('and' in f) return { and: renameFilters(f.and, m) };
    if ('or' in f) return { or: renameFilters(f.or, m) };
    return { ...f, ...(f.member !== undefined ? { member: m(f.member) } : {}), ...(f.dimension !== undefined ? { dimension: m(f.dimension) } : {}) };
  });
}

/**
 * The query with every member renamed: measures, dimensions, time
 * dimensions, filters (nested `and`/`or` included; their depth is bounded by
 * AnalyticsQuery), segments and order keys. Everything else is kept.
 */
export function renameQueryMembers(q: AnalyticsQuery, rename: AliasRename): AnalyticsQuery {
  const m = (member: string) => renameMember(member, rename);
  const renamed: AnalyticsQuery = {
    ...q,
    measures: q.measures.map(m),
    dimensions: q.dimensions.map(m),
    timeDimensions: q.timeDimensions.map((t) => ({ ...t, dimension: m(t.dimension) })),
    filters: renameFilters(q.filters, m),
  };
  if (q.segments) renamed.segments = q.segments.map(m);
  if (q.order) {
    renamed.order = Array.isArray(q.order)
      ? q.order.map(([member, direction]) => [m(member), direction] as [string, 'asc' | 'desc'])
      : Object.fromEntries(Object.entries(q.order).map(([member, direction]) => [m(member), direction]));
  }
  return renamed;
}

/** A source's id from its `ds_<uuid with underscores>` alias; undefined for anything else. */
export function sourceIdOfAlias(alias: string): string | undefined {
  const match = /^ds_([0-9a-f]{8})_([0-9a-f]{4})_([0-9a-f]{4})_([0-9a-f]{4})_([0-9a-f]{12})$/.exec(alias);
  return match ? match.slice(1).join('-') : undefined;
}
