import type { AnalyticsQuery } from '../../analytics/analytics.schemas';
import { type KnownMember, queryIssues } from '../../analytics/query-checks';
import type { MemberCatalog } from './member-catalog';
import { formatPath, type PathSegment, type WidgetFindings } from './report';

export interface QueryRuleContext {
  catalog: MemberCatalog;
  /** Number members PostgreSQL computes as bigints (each source's count, its window dimensions): compared with whole numbers only. */
  integers: ReadonlySet<string>;
  findings: WidgetFindings;
  /** The body path of a place in the parsed query (ParsedQuery.at). */
  at: (path: readonly PathSegment[]) => PathSegment[];
  /** Query fields left out for a problem already reported (ParsedQuery.dropped): what they held is unknown. */
  dropped: ReadonlySet<string>;
  now: Date;
}

/**
 * `query-refused`: what the query route itself refuses with 400
 * `invalid_query` (src/analytics/query-checks.ts, the same checks, so
 * validate never calls a widget valid that its data call refuses) and no
 * other rule has reported at that place: measureFilter on a dimension, a
 * text operator on a number, a value that does not fit its member, an
 * and/or group mixing measures and dimensions.
 */
export function checkQueryRefusals(q: AnalyticsQuery, ctx: QueryRuleContext): void {
  const member = (name: string): KnownMember | undefined => {
    const found = ctx.catalog.get(name);
    return found && { kind: found.kind, type: found.type, integer: ctx.integers.has(name) };
  };
  const reported = ctx.findings.list.filter((f) => f.severity === 'error' && f.path !== undefined).map((f) => f.path!);
  const covered = (path: string) => reported.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
  for (const issue of queryIssues(q, { member, timeDimensionOf: (alias) => ctx.catalog.timeDimensionOf(alias), now: ctx.now })) {
    // The query as a whole (it asks for nothing) is the empty-query rule's; a dropped field's problem is reported already.
    if (issue.path === '' || ctx.dropped.has(issue.path.split('.')[0])) continue;
    const segments = issue.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const path = ctx.at(segments);
    if (covered(formatPath(path))) continue;
    ctx.findings.add('query-refused', issue.message, path);
  }
}
