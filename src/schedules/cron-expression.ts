/**
 * Five-field cron expressions as Temporal's scheduler reads them (the Go
 * server's parseCronString and makeRange, service/worker/scheduler/calendar.go),
 * so that what passes here Temporal accepts too and means the same thing:
 *
 * - each field is `*`, a value, a range `a-b` (upward only), any of those with
 *   a step `/n`, or a comma-separated list of them; `a/n` runs from a to the
 *   field's end;
 * - months may be named by 3 letters or more of their English name (JAN,
 *   january), days of the week by 2 letters or more (MO, MON, monday); 0 and
 *   7 are both Sunday;
 * - a day matches when its day of month AND its day of week both match
 *   (Vixie cron fires when either does): `0 9 1-7 * MON` is the first Monday.
 *
 * Narrower than Temporal on purpose: no seconds or year fields (6 and 7
 * fields), no `@daily`-style macros or `@every`, no `CRON_TZ=` prefix, no
 * signs before numbers, and no `#`, which Temporal reads as the start of a
 * comment (so `5#3`, the third Friday elsewhere, would silently mean every
 * Friday). L, W, ? and H (Quartz and Jenkins extensions, which cron-parser
 * accepts) Temporal refuses; so does this, with a word on each.
 */

interface Field {
  name: string;
  min: number;
  max: number;
  /** Names a value may be given by, the first for `min`, and how many of their letters must be given at least. */
  names?: { list: readonly string[]; shortest: number };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: { list: MONTHS, shortest: 3 } },
  { name: 'day-of-week', min: 0, max: 7, names: { list: DAYS, shortest: 2 } },
];

/** Temporal's scheduler computes no time past this year. */
const LAST_YEAR = 2100;

class CronProblem extends Error {}

/** The values each of the five fields matches, in field order (day of week 0–6, Sunday 0). */
export type CronFields = [minute: Set<number>, hour: Set<number>, dayOfMonth: Set<number>, month: Set<number>, dayOfWeek: Set<number>];

/** What is wrong with `cron`, as a sentence to follow "schedule.cron", or undefined when Temporal would accept it and it fires. */
export function cronProblem(cron: string, now = new Date()): string | undefined {
  let fields: CronFields;
  try {
    fields = parseCron(cron);
  } catch (err) {
    if (err instanceof CronProblem) return err.message;
    throw err;
  }
  return firesBy(fields, now) ? undefined : 'never fires: no date matches its day of month, month and day of week together (both day fields must match)';
}

/** The expression's five fields as value sets; throws a CronProblem saying what is wrong. */
export function parseCron(cron: string): CronFields {
  const text = cron.trim();
  if (text.startsWith('@')) throw new CronProblem(`macros such as ${text.split(/\s/)[0]} are not supported: write the 5 fields (@daily is "0 0 * * *")`);
  if (/^(CRON_)?TZ=/i.test(text)) throw new CronProblem('a CRON_TZ= or TZ= prefix is not supported: give the zone in schedule.timezone');
  if (text.includes('#')) {
    throw new CronProblem(
      '"#" (the nth weekday of the month, as in 5#3) is not supported, and Temporal would read what follows it as a comment: ' +
        'for the first Monday of a month write "0 9 1-7 * MON" (the day of month and the day of week must both match)',
    );
  }
  const parts = text.split(/\s+/);
  if (parts.length !== 5) {
    throw new CronProblem(
      'must have exactly 5 fields: minute hour day-of-month month day-of-week (such as "0 9 * * MON-FRI"); there is no seconds or year field',
    );
  }
  const fields = parts.map((part, i) => parseField(part, FIELDS[i])) as CronFields;
  // 7 is Sunday as 0 is.
  if (fields[4].delete(7)) fields[4].add(0);
  return fields;
}

function parseField(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    const problem = (what: string) => new CronProblem(`the ${field.name} field "${text}": ${what}`);
    if (item === '') throw problem('a list has an empty item');
    const [range, step, extra] = item.split('/');
    if (extra !== undefined) throw problem(`"${item}" has more than one "/"`);
    let by = 1;
    if (step !== undefined) {
      if (!/^\d+$/.test(step) || Number(step) < 1) throw problem(`the step after "/" in "${item}" must be a whole number, at least 1`);
      by = Number(step);
    }
    let start = field.min;
    let end = field.max;
    if (range !== '*') {
      const ends = range.split('-');
      if (ends.length > 2) throw problem(`"${item}" has more than one "-"`);
      start = value(ends[0], field, problem);
      if (ends.length === 2) {
        end = value(ends[1], field, problem);
        if (end < start) {
          throw problem(`the range "${range}" runs backwards; ranges go upward (a range across the end is two ranges, such as "FRI-SAT,SUN-MON")`);
        }
      } else if (step === undefined) {
        end = start;
      }
    }
    for (let v = start; v <= end; v += by) values.add(v);
  }
  return values;
}

function value(text: string, field: Field, problem: (what: string) => CronProblem): number {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < field.min || n > field.max) throw problem(`${text} is out of range (${field.min}–${field.max})`);
    return n;
  }
  const lower = text.toLowerCase();
  if (field.names && lower.length >= field.names.shortest && /^[a-z]+$/.test(lower)) {
    const index = field.names.list.findIndex((name) => name.startsWith(lower));
    if (index >= 0) return index + field.min;
  }
  throw problem(unknownValue(text, field));
}

/** Words for a value that is neither a number nor a name: Quartz and Jenkins extensions get their own. */
function unknownValue(text: string, field: Field): string {
  const day = field.name === 'day-of-month' || field.name === 'day-of-week';
  if (text === '?') return '"?" is not supported: write "*"';
  if (/^H(\(|$)/.test(text)) return '"H" (a hashed value, as in Jenkins) is not supported: choose the value yourself';
  if (day && /^\d*L/i.test(text)) return '"L" (the last day, or last weekday, of the month) is not supported';
  if (field.name === 'day-of-month' && /^\d*W$/i.test(text)) return '"W" (the nearest weekday) is not supported';
  if (text === '') return 'a value is missing';
  const expected = field.names
    ? `neither a number from ${field.min} to ${field.max} nor a name (${field.names.shortest} letters at least, such as ${field.names.list[1].slice(0, 3).toUpperCase()})`
    : `not a number from ${field.min} to ${field.max}`;
  return `"${text}" is ${expected}; the extensions L, W, ?, H and # are not supported`;
}

/** True when some day from `now` to the end of LAST_YEAR matches the day of month, month and day of week together. */
function firesBy([, , daysOfMonth, months, daysOfWeek]: CronFields, now: Date): boolean {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  for (; day.getUTCFullYear() <= LAST_YEAR; day.setUTCDate(day.getUTCDate() + 1)) {
    if (months.has(day.getUTCMonth() + 1) && daysOfMonth.has(day.getUTCDate()) && daysOfWeek.has(day.getUTCDay())) return true;
  }
  return false;
}
