/**
 * Time values as Cube answers them: the wall-clock time in the query's zone,
 * without an offset (`2026-03-10T00:00:00.000` is midnight in that zone).
 * They are turned back into the instant they stand for in that zone, then
 * written with Intl in the same zone, so a label is the zone's own date and
 * time, daylight saving time included.
 */

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormats.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const p = Object.fromEntries(
    partsFormat(timeZone)
      .formatToParts(new Date(instant))
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant (ms since epoch) a time value stands for: a value with an offset
 * or `Z` as it says, a wall-clock value as that time in `timeZone`. Null when it
 * is not a time.
 */
export function timeValueInstant(value: unknown, timeZone: string): number | null {
  if (typeof value !== 'string') return null;
  const m = WALL_CLOCK.exec(value);
  if (!m) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : t;
  }
  const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0'] = m;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(ms.padEnd(3, '0')));
  // The offset at the wall-clock time read as UTC is right except within a few hours of a change: check it at the result.
  let instant = wall - offsetAt(wall, timeZone);
  const again = wall - offsetAt(instant, timeZone);
  if (again !== instant) instant = again;
  return instant;
}

const LABEL_FORMATS: Record<string, Intl.DateTimeFormatOptions> = {
  year: { year: 'numeric' },
  month: { year: 'numeric', month: 'short' },
  week: { year: 'numeric', month: 'short', day: 'numeric' },
  day: { year: 'numeric', month: 'short', day: 'numeric' },
  hour: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  minute: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  second: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' },
};

const labelFormats = new Map<string, Intl.DateTimeFormat>();

function labelFormat(locale: string, timeZone: string, granularity: string): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone}|${granularity}`;
  let f = labelFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { timeZone, ...(LABEL_FORMATS[granularity] ?? LABEL_FORMATS.minute) });
    labelFormats.set(key, f);
  }
  return f;
}

/**
 * A time value as a label for its granularity (`Mar 10, 2026` for a day,
 * `Mar 2026` for a month, `Q1 2026` for a quarter), written in `timeZone`.
 * A value that is not a time is returned as text.
 */
export function timeLabel(value: unknown, granularity: string | undefined, timeZone: string, locale: string): string {
  if (value === null || value === undefined) return '—';
  const instant = timeValueInstant(value, timeZone);
  if (instant === null) return String(value);
  if (granularity === 'quarter') {
    const parts = labelFormat(locale, timeZone, 'month').formatToParts(new Date(instant));
    const year = parts.find((p) => p.type === 'year')?.value ?? '';
    const month = Number(
      partsFormat(timeZone)
        .formatToParts(new Date(instant))
        .find((p) => p.type === 'month')?.value ?? '1',
    );
    return `Q${Math.floor((month - 1) / 3) + 1} ${year}`;
  }
  return labelFormat(locale, timeZone, granularity ?? 'minute').format(new Date(instant));
}
