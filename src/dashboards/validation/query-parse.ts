import type { z } from 'zod';
import { AnalyticsQuery, Filter, FILTER_OPERATORS, MAX_QUERY_ROWS } from '../../analytics/analytics.schemas';
import { isObject } from './input-shape';
import { describe, formatPath, type PathSegment, quote, type WidgetFindings } from './report';
import type { RuleId } from './rules';

type Issue = z.ZodError['issues'][number];

const FIELDS = AnalyticsQuery.shape as Record<string, z.ZodType>;
const WIDGET_FIELDS = new Set(['title', 'chartType', 'dataSourceId', 'displayConfig']);
const MAX_ISSUES = 50;
/** Items of one `and`/`or` group the schema takes. */
const MAX_GROUP = 50;

/** A queryConfig as far as it parsed, the fields that did not, and where each place of the query is in the body. */
export interface ParsedQuery {
  query: AnalyticsQuery | undefined;
  /** Fields with a problem: left out, or (arrays) kept with their good items only. */
  dropped: ReadonlySet<string>;
  /** The body path of a place in `query`, such as `['filters', 1, 'member']` (indexes of salvaged arrays are the body's). */
  at: (path: readonly PathSegment[]) => PathSegment[];
}

/**
 * Parses a widget's `queryConfig` with the analytics query schema
 * (`AnalyticsQuery`, what the query route accepts), one field at a time so a
 * bad field does not hide the others: each schema issue becomes a finding
 * at its path. Of an array with a bad item, the good items are kept (a
 * filter with a mistyped operator does not keep the next filter's unknown
 * field from being reported). The rules that read members, charts and
 * dates then run on what parsed.
 */
export function parseQueryConfig(raw: Record<string, unknown>, base: PathSegment[], findings: WidgetFindings): ParsedQuery {
  const kept: Record<string, unknown> = {};
  const dropped = new Set<string>();
  const salvaged = new Map<string, number[]>();
  let reported = 0;
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(FIELDS, key)) {
      if (reported++ < MAX_ISSUES) {
        const where = WIDGET_FIELDS.has(key) ? ': it belongs on the widget, beside queryConfig' : '';
        findings.add('malformed', `Unknown key ${quote(key)} in queryConfig${where}`, [...base, key]);
      }
      continue;
    }
    const value = raw[key];
    const parsed = FIELDS[key].safeParse(value);
    if (parsed.success) {
      kept[key] = value;
      continue;
    }
    dropped.add(key);
    for (const { issue, path } of parsed.error.issues.flatMap((i) => flatten(i, [key]))) {
      if (reported++ >= MAX_ISSUES) break;
      for (const message of messages(issue, path, raw)) findings.add(ruleFor(path), message, [...base, ...path]);
    }
    if (key === 'filters' && Array.isArray(value)) {
      // Filters are repaired in place rather than left out, so their indexes (at any depth) stay those of the body.
      kept[key] = value.map(repairFilter);
      salvaged.set(
        key,
        value.map((_, i) => i),
      );
    } else if (Array.isArray(value)) {
      const good = value.flatMap((item, i) => (FIELDS[key].safeParse([item]).success ? [i] : []));
      if (good.length > 0) {
        kept[key] = good.map((i) => value[i]);
        salvaged.set(key, good);
      }
    }
  }
  if (reported > MAX_ISSUES) findings.add('malformed', `${reported - MAX_ISSUES} more problems in queryConfig`, base);
  let whole = AnalyticsQuery.safeParse(kept);
  if (!whole.success) {
    // Good items of an array that is too long: leave those arrays out. The schema has no rule across fields, so this parses.
    for (const key of salvaged.keys()) delete kept[key];
    salvaged.clear();
    whole = AnalyticsQuery.safeParse(kept);
  }
  const at = (path: readonly PathSegment[]): PathSegment[] => {
    const [head, index, ...rest] = path;
    const good = typeof head === 'string' ? salvaged.get(head) : undefined;
    return good && typeof index === 'number' ? [...base, head, good[index], ...rest] : [...base, ...path];
  };
  return { query: whole.success ? whole.data : undefined, dropped, at };
}

/**
 * A filter with the same shape and the same member, made valid: a bad leaf
 * becomes `{member, operator: "set"}` (its member is still checked; its
 * problem is reported already) or, without a readable member, an empty
 * `{and: []}`, which names nothing.
 */
function repairFilter(node: unknown): unknown {
  if (Filter.safeParse(node).success) return node;
  if (isObject(node) && Object.keys(node).length === 1) {
    if (Array.isArray(node.and)) return { and: node.and.slice(0, MAX_GROUP).map(repairFilter) };
    if (Array.isArray(node.or)) return { or: node.or.slice(0, MAX_GROUP).map(repairFilter) };
  }
  const member = isObject(node) ? [node.member, node.dimension].find((m) => typeof m === 'string') : undefined;
  return typeof member === 'string' && member.length >= 1 && member.length <= 300 ? { member, operator: 'set' } : { and: [] };
}

/**
 * A union's issue holds every alternative's issues: keep the alternative
 * the input came closest to (fewest issues, an issue about the value as a
 * whole counting double; ties go to the later one), so a filter with a
 * typo in its operator is told about the operator, not that it lacks `and`.
 */
function flatten(issue: Issue, prefix: PathSegment[]): Array<{ issue: Issue; path: PathSegment[] }> {
  const path = [...prefix, ...(issue.path as PathSegment[])];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const score = (branch: Issue[]) => branch.reduce((sum, i) => sum + (i.path.length === 0 ? 2 : 1), 0);
    const best = issue.errors.reduce((a, b) => (score(b) <= score(a) ? b : a));
    return best.flatMap((i) => flatten(i, path));
  }
  return [{ issue, path }];
}

function ruleFor(path: PathSegment[]): RuleId {
  const [head] = path;
  const last = path[path.length - 1];
  if (head === 'timezone') return 'timezone';
  if (head === 'limit') return 'limit';
  if (head === 'timeRange') return 'time-range';
  if (head === 'filters' && last === 'operator') return 'filter-operator';
  if (head === 'timeDimensions' && last === 'granularity') return 'granularity';
  if (head === 'timeDimensions' && path.includes('dateRange')) return 'time-range';
  return 'malformed';
}

/** Messages built from the issue's code, never from its text alone: zod's own messages may repeat keys of any length. */
function messages(issue: Issue, path: PathSegment[], raw: unknown): string[] {
  const field = formatPath(['queryConfig', ...path]);
  const value = valueAt(raw, path);
  switch (issue.code) {
    case 'invalid_type':
      return [value === undefined ? `${field} is missing` : `${field} must be ${article(issue.expected)}, received ${describe(value)}`];
    case 'unrecognized_keys': {
      const named = issue.keys.slice(0, 5).map((k) => `Unknown key ${quote(k)} in ${field}`);
      return issue.keys.length > 5 ? [...named, `${issue.keys.length - 5} more unknown keys in ${field}`] : named;
    }
    case 'too_big':
    case 'too_small':
      if (path.length === 1 && path[0] === 'limit')
        return [`${field} must be an integer from 1 to ${MAX_QUERY_ROWS}, the most rows a query answers; received ${describe(value)}`];
      return [`${field}: ${issue.message.slice(0, 200)}`];
    case 'invalid_value':
      if (path[path.length - 1] === 'operator') {
        const got = value === undefined ? 'is missing' : `${quote(value)} is not a filter operator`;
        return [`${field} ${got}; use one of ${FILTER_OPERATORS.join(', ')}`];
      }
      if (path[0] === 'timeRange') {
        return [`${field} must be "relative" (timeRange.value is a phrase such as "last 7 days"), received ${value === undefined ? 'nothing' : quote(value)}`];
      }
      return [`${field} ${value === undefined ? 'is missing' : `is ${quote(value)}`}: ${issue.message}`];
    case 'custom':
      // The schema's own refinements: "must be an IANA time zone…", "name the filtered field as member or dimension".
      return [`${field}${issue.message.startsWith('must') ? ' ' : ': '}${issue.message}${typeof value === 'string' ? `, received ${quote(value)}` : ''}`];
    default:
      return [`${field}: ${issue.message.slice(0, 200)}`];
  }
}

const article = (expected: string) => (/^[aeio]/.test(expected) ? `an ${expected}` : `a ${expected}`);

/** The input at a path, through own properties only. */
function valueAt(root: unknown, path: PathSegment[]): unknown {
  let value = root;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<PathSegment, unknown>)[segment];
  }
  return value;
}
