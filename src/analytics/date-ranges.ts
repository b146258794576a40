import { CUBE_GRANULARITIES, parseCubeDateRange } from '../../cube/semantic-layer';

export { CUBE_GRANULARITIES };

/** A date range Cube can read, as the local date-times it resolves it to, or why it cannot. */
export type RangeReading = { ok: true; from: string; to: string } | { ok: false; reason: string };

/**
 * A `dateRange` string or a widget's `timeRange.value`, read by Cube's own
 * parser (the api-gateway's `dateParser`, what Cube runs on the query) in
 * the query's time zone, so what passes here is what Cube accepts. `now` is
 * the clock of phrases such as `from 7 days ago to now`.
 */
export function readRelativeRange(phrase: string, timezone: string, now: Date): RangeReading {
  let range: unknown;
  try {
    range = parseCubeDateRange(phrase, timezone, now);
  } catch (err) {
    // Cube's UserError says "Can't parse date: '…'"; some phrases (`from 2024-01-01 to soon`) make it fail with a TypeError instead.
    const reason = err instanceof Error && err.message.startsWith("Can't parse date") ? `Cube says: ${err.message}` : 'Cube cannot read it as a date range';
    return { ok: false, reason: reason.slice(0, 200) };
  }
  if (!Array.isArray(range) || range.length !== 2 || range.some((d) => typeof d !== 'string' || !LOCAL_DATE_TIME.test(d))) {
    return { ok: false, reason: 'Cube reads it as an invalid date' };
  }
  return { ok: true, from: range[0], to: range[1] };
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Whether Cube reads a string as a date (a `dateRange` pair, a date filter's
 * value). Cube goes through moment, which reads ISO 8601 strictly (no
 * 2024-02-30) and anything else the way `new Date()` does; this does the same.
 */
export function isCubeDate(value: string): boolean {
  const iso = ISO_DATE.exec(value);
  if (!iso) return /^\d{4}-\d{2}-\d{2}/.test(value) ? false : !Number.isNaN(Date.parse(value));
  const [year, month, day, hour = 0, minute = 0, second = 0] = iso.slice(1, 7).map((p) => (p === undefined ? undefined : Number(p))) as number[];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/** A date's instant for ordering a pair: dates without an offset are compared as UTC, like Cube's moment.utc. */
export function instant(value: string, end: boolean): number {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  if (dateOnly) return Date.parse(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`);
  const iso = ISO_DATE.exec(value);
  return Date.parse(iso && !iso[7] ? `${value.replace(' ', 'T')}Z` : value);
}
