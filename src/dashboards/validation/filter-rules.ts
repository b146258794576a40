import { type AnalyticsQuery, DATE_OPERATORS, VALUELESS_OPERATORS as VALUELESS } from '../../analytics/analytics.schemas';
import { isCubeDate } from '../../analytics/date-ranges';
import { filterLeaves } from './member-refs';
import { quote } from './report';
import type { TimeContext } from './time-rules';

/** Date operators that take a range: exactly two dates (Cube builds `>= $1 AND <= $2`). */
const RANGE_OPERATORS = new Set(['inDateRange', 'notInDateRange', 'onTheDate']);

/** `filter-values`: what Cube refuses or cannot read in a filter's values. */
export function checkFilterValues(q: AnalyticsQuery, ctx: TimeContext): void {
  for (const { filter, path } of filterLeaves(q.filters)) {
    const at = ctx.at([...path, 'values']);
    const values = filter.values ?? [];
    const op = filter.operator;
    if (values.length === 0 && !VALUELESS.has(op)) {
      ctx.findings.add('filter-values', `The operator ${quote(op)} needs values; only set, notSet and measureFilter take none`, at);
      continue;
    }
    if (!DATE_OPERATORS.has(op)) continue;
    if (RANGE_OPERATORS.has(op) && values.length !== 2) {
      ctx.findings.add('filter-values', `The operator ${quote(op)} takes two dates, a start and an end; it has ${values.length}`, at);
    } else if (values.length > 2) {
      ctx.findings.add('filter-values', `The operator ${quote(op)} takes one date; it has ${values.length}`, at);
    }
    values.slice(0, 2).forEach((v, i) => {
      if (v === null || !isCubeDate(v)) {
        ctx.findings.add('filter-values', `${v === null ? 'null' : quote(v)} is not a date: use YYYY-MM-DD or an ISO 8601 date-time`, [...at, i]);
      }
    });
  }
}
