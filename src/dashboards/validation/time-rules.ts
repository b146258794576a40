import { closest, distance } from 'fastest-levenshtein';
import type { AnalyticsQuery } from '../../analytics/analytics.schemas';
import { CUBE_GRANULARITIES, instant, isCubeDate, readRelativeRange } from '../../analytics/date-ranges';
import { type PathSegment, quote, type WidgetFindings } from './report';

export interface TimeContext {
  findings: WidgetFindings;
  /** The body path of a place in the parsed query (ParsedQuery.at). */
  at: (path: readonly PathSegment[]) => PathSegment[];
  now: Date;
}

const EXAMPLES = 'such as "last 7 days", "this month", "yesterday" or "from 2024-01-01 to 2024-03-31"';

/**
 * `granularity`, `time-range`, `time-range-empty`, `time-range-unused`:
 * granularities Cube knows, and date ranges Cube's own parser reads in the
 * query's time zone (UTC when it has none, as Cube does).
 */
export function checkDates(q: AnalyticsQuery, ctx: TimeContext): void {
  const timezone = q.timezone ?? 'UTC';
  q.timeDimensions.forEach((t, i) => {
    const at = ctx.at(['timeDimensions', i]);
    if (t.granularity !== undefined && !(CUBE_GRANULARITIES as readonly string[]).includes(t.granularity)) {
      const near = closest(t.granularity.toLowerCase(), [...CUBE_GRANULARITIES]);
      const hint = distance(t.granularity.toLowerCase(), near) <= 2 ? `; did you mean ${quote(near)}?` : '';
      ctx.findings.add('granularity', `Unknown granularity ${quote(t.granularity)}: Cube knows ${CUBE_GRANULARITIES.join(', ')}${hint}`, [
        ...at,
        'granularity',
      ]);
    }
    if (typeof t.dateRange === 'string') phrase(t.dateRange, timezone, [...at, 'dateRange'], 'dateRange', ctx);
    else if (Array.isArray(t.dateRange)) pair(t.dateRange, [...at, 'dateRange'], ctx);
  });
  if (q.timeRange) {
    phrase(q.timeRange.value, timezone, ctx.at(['timeRange', 'value']), 'timeRange.value', ctx);
    if (q.timeDimensions.length > 0 && q.timeDimensions.every((t) => t.dateRange !== undefined)) {
      ctx.findings.add('time-range-unused', 'timeRange has no effect: every time dimension has its own dateRange, which wins', ctx.at(['timeRange']));
    }
  }
}

function phrase(value: string, timezone: string, path: PathSegment[], label: string, ctx: TimeContext): void {
  const reading = readRelativeRange(value, timezone, ctx.now);
  if (!reading.ok) {
    ctx.findings.add('time-range', `${label} ${quote(value)} is not a date range Cube reads (${reading.reason}); use a phrase ${EXAMPLES}`, path);
  } else if (reading.from > reading.to) {
    ctx.findings.add('time-range-empty', `${label} ${quote(value)} ends before it starts (${reading.from} to ${reading.to}): it matches no rows`, path);
  }
}

function pair([from, to]: [string, string], path: PathSegment[], ctx: TimeContext): void {
  const bad = [from, to].map((d, i) => (isCubeDate(d) ? undefined : i)).filter((i) => i !== undefined);
  for (const i of bad) {
    ctx.findings.add('time-range', `dateRange[${i}] ${quote([from, to][i])} is not a date: use YYYY-MM-DD or an ISO 8601 date-time`, [...path, i]);
  }
  if (bad.length === 0 && instant(from, false) > instant(to, true)) {
    ctx.findings.add('time-range-empty', `dateRange ends before it starts (${quote(from)} to ${quote(to)}): it matches no rows`, path);
  }
}
