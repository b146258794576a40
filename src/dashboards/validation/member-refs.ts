import type { AnalyticsQuery, Filter } from '../../analytics/analytics.schemas';
import { queryMembers } from '../../analytics/query-members';
import type { PathSegment } from './report';

export type MemberRole = 'measure' | 'dimension' | 'timeDimension' | 'filter' | 'segment' | 'order';

/** A member a query names, where (relative to `queryConfig`) and as what. */
export interface MemberRef {
  name: string;
  role: MemberRole;
  path: PathSegment[];
  /** The filter's operator, for filter members. */
  operator?: string;
}

/** A leaf filter and where it sits, at any depth of `and`/`or`. */
export interface FilterLeaf {
  filter: Extract<Filter, { operator: string }>;
  path: PathSegment[];
}

export function filterLeaves(filters: readonly Filter[], path: PathSegment[] = ['filters']): FilterLeaf[] {
  return filters.flatMap((f, i): FilterLeaf[] =>
    'and' in f ? filterLeaves(f.and, [...path, i, 'and']) : 'or' in f ? filterLeaves(f.or, [...path, i, 'or']) : [{ filter: f, path: [...path, i] }],
  );
}

/**
 * Every member of a parsed query with its place. The names are those of
 * `queryMembers` (what the analytics service checks before Cube runs a
 * query); should it ever name a member this walk misses, that member is
 * still returned, as a filter-like reference at the query's top.
 */
export function memberRefs(q: AnalyticsQuery): MemberRef[] {
  const refs: MemberRef[] = [
    ...q.measures.map((name, i): MemberRef => ({ name, role: 'measure', path: ['measures', i] })),
    ...q.dimensions.map((name, i): MemberRef => ({ name, role: 'dimension', path: ['dimensions', i] })),
    ...q.timeDimensions.map((t, i): MemberRef => ({ name: t.dimension, role: 'timeDimension', path: ['timeDimensions', i, 'dimension'] })),
    ...filterLeaves(q.filters).map(({ filter, path }): MemberRef => {
      const key = filter.member !== undefined ? 'member' : 'dimension';
      return { name: (filter.member ?? filter.dimension)!, role: 'filter', path: [...path, key], operator: filter.operator };
    }),
    ...(q.segments ?? []).map((name, i): MemberRef => ({ name, role: 'segment', path: ['segments', i] })),
  ];
  if (Array.isArray(q.order)) refs.push(...q.order.map(([name], i): MemberRef => ({ name, role: 'order', path: ['order', i, 0] })));
  else if (q.order) refs.push(...Object.keys(q.order).map((name): MemberRef => ({ name, role: 'order', path: ['order', name] })));
  const seen = new Set(refs.map((r) => r.name));
  for (const name of queryMembers(q)) if (!seen.has(name)) refs.push({ name, role: 'filter', path: [] });
  return refs;
}
