import type { FieldIssue } from '../errors/errors';
import { type AnalyticsQuery, COMPARISON_OPERATORS, DATE_OPERATORS, type Filter, TEXT_OPERATORS, VALUELESS_OPERATORS } from './analytics.schemas';
import { CUBE_GRANULARITIES, isCubeDate, readRelativeRange } from './date-ranges';
import { memberPlaces, sourceAlias } from './query-members';

/** What the organization's model says of a member. */
export interface KnownMember {
  kind: 'measure' | 'dimension';
  /** `number`, `string` or `time` (measures are numbers). */
  type: string;
  /** A number member PostgreSQL computes as a bigint (`count`, a window dimension's row number): compared with whole numbers only. */
  integer?: boolean;
}

export interface CheckContext {
  /** The member of the organization's model of that name; undefined for a name it does not have (that matches nothing, interface.md 7.2). */
  member: (name: string) => KnownMember | undefined;
  /** The time dimension of a source, by its alias, for hints. */
  timeDimensionOf: (alias: string) => string | undefined;
  /** The clock of relative date ranges. */
  now?: Date;
}

/** A name or value in a message: quoted, and cut short when long. */
export const quote = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);

const kindOf = (m: KnownMember) => (m.kind === 'measure' ? 'a measure' : `a ${m.type} dimension`);

/**
 * What PostgreSQL reads as a number: the values of a comparison with a number
 * member are bound as numbers. The exponent is bounded: beyond it PostgreSQL's
 * numeric overflows.
 */
const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d{1,4})?\s*$/i;
/** What PostgreSQL reads as a bigint, with a digit to spare below its bound. */
const INTEGER = /^\s*[+-]?\d{1,18}\s*$/;

const RANGE_EXAMPLES = 'a phrase such as "last 7 days", "this month" or "from 2024-01-01 to 2024-03-31", or a pair of dates';

/**
 * A `dateRange` (a phrase Cube's own parser must read in `timezone`, or a
 * pair of dates) as issues at `path`.
 */
export function dateRangeIssues(range: string | [string, string] | undefined, path: string, timezone: string, now = new Date()): FieldIssue[] {
  if (range === undefined) return [];
  if (typeof range === 'string') {
    const reading = readRelativeRange(range, timezone, now);
    return reading.ok ? [] : [{ path, message: `${quote(range)} is not a date range (${reading.reason}); use ${RANGE_EXAMPLES}` }];
  }
  return range.flatMap((d, i) =>
    isCubeDate(d) ? [] : [{ path: `${path}.${i}`, message: `${quote(d)} is not a date: a date range is two dates, YYYY-MM-DD or ISO 8601 date-times` }],
  );
}

/**
 * The mistakes in a query that the organization's model shows before Cube
 * sees it: a member in a place its kind does not fit (a dimension under
 * measures, a measure or a non-date dimension as a time dimension, a
 * segment), an operator that does not fit its member (measureFilter on a
 * dimension, a text operator on a number or date, a date operator on
 * anything but a time dimension), values of the wrong type, an and/or group
 * mixing measures and dimensions, members of two sources, an unknown
 * granularity, a date range Cube cannot read, a query that asks for nothing.
 * Each is an issue at its path within the query (`filters.0.member`).
 * Members the model does not have are left alone: they match nothing.
 */
export function queryIssues(q: AnalyticsQuery, ctx: CheckContext): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  const timezone = q.timezone ?? 'UTC';
  const now = ctx.now ?? new Date();

  if (q.measures.length === 0 && q.dimensions.length === 0 && !q.timeDimensions.some((t) => t.granularity !== undefined)) {
    add('', 'The query asks for nothing: name a measure, a dimension, or a time dimension with a granularity');
  }
  q.measures.forEach((name, i) => {
    const m = ctx.member(name);
    if (m?.kind === 'dimension') {
      add(
        `measures.${i}`,
        `${quote(name)} is ${kindOf(m)}, not a measure: list it under dimensions, or count rows with ${quote(`${sourceAlias(name)}.count`)}`,
      );
    }
  });
  q.dimensions.forEach((name, i) => {
    const m = ctx.member(name);
    if (m?.kind === 'measure') add(`dimensions.${i}`, `${quote(name)} is a measure, not a dimension: list it under measures`);
  });
  q.timeDimensions.forEach((t, i) => {
    const at = `timeDimensions.${i}`;
    const m = ctx.member(t.dimension);
    if (m && (m.kind === 'measure' || m.type !== 'time')) {
      const own = ctx.timeDimensionOf(sourceAlias(t.dimension));
      const use = t.granularity !== undefined ? `grouped by ${quote(t.granularity)}` : 'bounded by a date range';
      add(
        `${at}.dimension`,
        `${quote(t.dimension)} is ${kindOf(m)}, not a time dimension: only a date field can be ${use}${own ? ` (this source's is ${quote(own)})` : ''}`,
      );
    }
    if (t.granularity !== undefined && !(CUBE_GRANULARITIES as readonly string[]).includes(t.granularity)) {
      add(`${at}.granularity`, `Unknown granularity ${quote(t.granularity)} for ${quote(t.dimension)}: use one of ${CUBE_GRANULARITIES.join(', ')}`);
    }
    issues.push(...dateRangeIssues(t.dateRange, `${at}.dateRange`, timezone, now));
  });
  if (q.timeRange) issues.push(...dateRangeIssues(q.timeRange.value, 'timeRange.value', timezone, now));
  filterIssues(q.filters, 'filters', ctx, add, false);
  (q.segments ?? []).forEach((name, i) => {
    const m = ctx.member(name);
    if (m) add(`segments.${i}`, `${quote(name)} is ${kindOf(m)}, not a segment: data sources define no segments; filter on it instead`);
  });
  issues.push(...otherSources(q, ctx));
  return issues;
}

/** Members of a second source (and a third…), each source once: sources are not joined, so Cube finds no join path. */
function otherSources(q: AnalyticsQuery, ctx: CheckContext): FieldIssue[] {
  const known = memberPlaces(q).filter((p) => ctx.member(p.member) !== undefined);
  const first = known[0];
  const seen = new Set(first ? [sourceAlias(first.member)] : []);
  return known.flatMap((p) => {
    const alias = sourceAlias(p.member);
    if (seen.has(alias)) return [];
    seen.add(alias);
    return [
      {
        path: p.path,
        message: `${quote(p.member)} is of another data source than ${quote(first.member)}: a query reads one data source (sources are not joined)`,
      },
    ];
  });
}

/** The members a filter names at any depth. */
const leafMembers = (filters: Filter[]): string[] =>
  filters.flatMap((f) => ('and' in f ? leafMembers(f.and) : 'or' in f ? leafMembers(f.or) : [(f.member ?? f.dimension)!]));

function filterIssues(filters: Filter[], at: string, ctx: CheckContext, add: (path: string, message: string) => void, mixReported: boolean): void {
  filters.forEach((f, i) => {
    const path = `${at}.${i}`;
    if ('and' in f || 'or' in f) {
      const [op, items] = 'and' in f ? (['and', f.and] as const) : (['or', f.or] as const);
      const names = leafMembers(items);
      const measure = names.find((n) => ctx.member(n)?.kind === 'measure');
      const dimension = names.find((n) => ctx.member(n)?.kind === 'dimension');
      const mixed = !mixReported && measure !== undefined && dimension !== undefined;
      if (mixed) {
        add(
          path,
          `This "${op}" group mixes the measure ${quote(measure)} and the dimension ${quote(dimension)}: measures are filtered after grouping and dimensions before, so one group takes one kind; put them in separate filters`,
        );
      }
      filterIssues(items, `${path}.${op}`, ctx, add, mixReported || mixed);
      return;
    }
    const name = (f.member ?? f.dimension)!;
    const memberPath = `${path}.${f.member !== undefined ? 'member' : 'dimension'}`;
    const op = f.operator;
    const values = f.values ?? [];
    if (values.length === 0 && !VALUELESS_OPERATORS.has(op)) {
      add(`${path}.values`, `The operator ${quote(op)} on ${quote(name)} needs at least one value; only set, notSet and measureFilter take none`);
    }
    const m = ctx.member(name);
    if (!m) return;
    const isTime = m.kind === 'dimension' && m.type === 'time';
    if (op === 'measureFilter' && m.kind !== 'measure') {
      add(
        memberPath,
        `${quote(name)} is ${kindOf(m)}: measureFilter applies to measures only; filter a dimension with an operator such as equals, contains or set`,
      );
    } else if (TEXT_OPERATORS.has(op) && !(m.kind === 'dimension' && m.type === 'string')) {
      const instead = isTime ? 'compare dates with a date operator such as inDateRange' : 'compare numbers with equals, gt or lt';
      add(memberPath, `${quote(name)} is ${kindOf(m)}: the operator ${quote(op)} matches text and applies to string dimensions only; ${instead}`);
    } else if (DATE_OPERATORS.has(op) && !isTime) {
      add(memberPath, `${quote(name)} is ${kindOf(m)}, not a time dimension: the date operator ${quote(op)} compares dates only`);
    } else if (DATE_OPERATORS.has(op) || (COMPARISON_OPERATORS.has(op) && isTime)) {
      values.forEach((v, j) => {
        // Comparing with null matches nothing; a date operator cannot read it at all.
        if ((v === null && DATE_OPERATORS.has(op)) || (v !== null && !isCubeDate(v))) {
          add(
            `${path}.values.${j}`,
            `${v === null ? 'null' : quote(v)} is not a date, and ${quote(name)} is compared as one: use YYYY-MM-DD or an ISO 8601 date-time`,
          );
        }
      });
    } else if (COMPARISON_OPERATORS.has(op) && m.type === 'number') {
      values.forEach((v, j) => {
        if (v === null || (m.integer ? INTEGER : NUMBER).test(v)) return;
        const wanted = m.integer ? 'a whole number (of at most 18 digits)' : 'a number';
        add(
          `${path}.values.${j}`,
          `${quote(v)} is not ${wanted}, and ${quote(name)} (${kindOf(m)}) compares with ${m.integer ? 'whole numbers' : 'numbers'} only`,
        );
      });
    }
  });
}
