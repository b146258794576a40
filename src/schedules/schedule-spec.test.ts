import { parseCron } from './cron-expression';
import { checkSchedule, type ScheduleSpec } from './schedule-spec';
import { canonicalTimeZone, closestZone } from './time-zones';

const paths = (spec: ScheduleSpec, min = 60) => checkSchedule(spec, min).issues.map((i) => i.path);
const messageFor = (cron: string) => checkSchedule({ cron, timezone: 'UTC' }, 60).issues.find((i) => i.path === 'schedule.cron')?.message;

describe('checkSchedule: cron expressions as Temporal reads them', () => {
  test('five-field expressions in an IANA zone pass, trimmed', () => {
    for (const cron of ['*/5 * * * *', '0 9 * * MON-FRI', '30 2 1 * *', '0 0 * * 0', '15 14 1,15 JAN-JUN *']) {
      expect(paths({ cron, timezone: 'Europe/Paris' })).toEqual([]);
    }
    expect(checkSchedule({ cron: '  0 9 * * MON-FRI ', timezone: 'UTC' }, 60).spec).toEqual({ cron: '0 9 * * MON-FRI', timezone: 'UTC' });
  });

  test("what Temporal's parser accepts beyond cron-parser passes: longer names, 7 for Sunday, a step from a value", () => {
    for (const cron of ['0 9 * * monday-fri', '0 9 * * tues', '0 9 * * su', '0 0 1 janu *', '0 9 * * 7', '0 9 * * 0-7', '5/15 * * * *', '0 0 1 * MON']) {
      expect({ cron, paths: paths({ cron, timezone: 'UTC' }) }).toEqual({ cron, paths: [] });
    }
  });

  test('seconds, macros, a CRON_TZ prefix, garbage and impossible dates are refused at schedule.cron', () => {
    for (const cron of ['0 0 9 * * *', '@daily', 'CRON_TZ=UTC 0 9 * * *', 'every day', '61 * * * *', '0 0 30 2 *', '* * *', '0 0 9 * * * 2030']) {
      expect({ cron, paths: paths({ cron, timezone: 'UTC' }) }).toEqual({ cron, paths: ['schedule.cron'] });
    }
  });

  test('the extensions cron-parser accepts and Temporal refuses (L, W, ?, H) are refused, each in words', () => {
    for (const cron of ['0 0 L * *', '0 0 * * 5L', '0 0 ? * *', 'H * * * *', 'H/15 * * * *', '0 0 15W * *', '0 0 L-2 * *']) {
      expect({ cron, paths: paths({ cron, timezone: 'UTC' }) }).toEqual({ cron, paths: ['schedule.cron'] });
    }
    expect(messageFor('0 0 L * *')).toMatch(/day-of-month .*"L" \(the last day.*\) is not supported/);
    expect(messageFor('0 0 * * 5L')).toMatch(/day-of-week .*"L" .*is not supported/);
    expect(messageFor('0 0 ? * *')).toMatch(/"\?" is not supported: write "\*"/);
    expect(messageFor('H * * * *')).toMatch(/minute .*"H" \(a hashed value.*\) is not supported/);
    expect(messageFor('0 0 15W * *')).toMatch(/"W" \(the nearest weekday\) is not supported/);
  });

  test('"#" is refused: Temporal would take 5#3 (the third Friday) for a comment and fire every Friday', () => {
    expect(paths({ cron: '0 0 * * 5#3', timezone: 'UTC' })).toEqual(['schedule.cron']);
    expect(messageFor('0 0 * * 5#3')).toContain('"0 9 1-7 * MON"');
  });

  test('backward ranges and signed numbers, which Temporal refuses or only Go reads, are refused', () => {
    expect(messageFor('0 9 * * SAT-SUN')).toMatch(/runs backwards.*"FRI-SAT,SUN-MON"/);
    expect(paths({ cron: '0 9 * * FRI-MON', timezone: 'UTC' })).toEqual(['schedule.cron']);
    expect(paths({ cron: '+5 * * * *', timezone: 'UTC' })).toEqual(['schedule.cron']);
    expect(paths({ cron: '0 0 * * */0', timezone: 'UTC' })).toEqual(['schedule.cron']);
    expect(paths({ cron: '0 0 * * MON,', timezone: 'UTC' })).toEqual(['schedule.cron']);
  });

  test('a day fires when its day of month and day of week both match, as in Temporal: 31 February on Mondays never comes', () => {
    expect(messageFor('0 0 31 2 MON')).toMatch(/never fires/);
    expect(messageFor('0 0 29 2 MON')).toBeUndefined(); // a leap day on a Monday comes (2044)
    const [, , dom, , dow] = parseCron('0 9 1-7 * MON');
    expect([[...dom], [...dow]]).toEqual([[1, 2, 3, 4, 5, 6, 7], [1]]);
  });

  test('steps, names and Sunday as 7 give the values Temporal matches', () => {
    const [minute, , , month, dow] = parseCron('3/20 0 * jan-MAR,dec SAT-7');
    expect([...minute]).toEqual([3, 23, 43]);
    expect([...month]).toEqual([1, 2, 3, 12]);
    expect([...dow].sort()).toEqual([0, 6]);
  });

  test('no message is a library text alone: each names the field and what to write instead', () => {
    for (const cron of ['0 0 L * *', '0 0 ? * *', 'H * * * *', 'x * * * *', '0 0 * * mo-']) {
      expect(messageFor(cron)).toMatch(/^the (minute|hour|day-of-month|month|day-of-week) field "/);
    }
    expect(messageFor('x * * * *')).toBe('the minute field "x": "x" is not a number from 0 to 59; the extensions L, W, ?, H and # are not supported');
    expect(messageFor('0 0 * * xyz')).toMatch(/"xyz" is neither a number from 0 to 7 nor a name \(2 letters at least, such as MON\)/);
  });
});

describe('checkSchedule: time zones', () => {
  test('a zone in any case becomes its IANA name; links keep theirs', () => {
    const zone = (timezone: string) => checkSchedule({ cron: '0 9 * * *', timezone }, 60).spec;
    expect(zone('utc')).toEqual({ cron: '0 9 * * *', timezone: 'UTC' });
    expect(zone('europe/paris')).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Paris' });
    expect(zone(' EUROPE/PARIS ')).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Paris' });
    expect(['us/eastern', 'asia/kolkata', 'Asia/Calcutta', 'europe/kyiv', 'america/argentina/buenos_aires', 'etc/gmt+2'].map(canonicalTimeZone)).toEqual([
      'US/Eastern',
      'Asia/Kolkata',
      'Asia/Calcutta',
      'Europe/Kyiv',
      'America/Argentina/Buenos_Aires',
      'Etc/GMT+2',
    ]);
  });

  test('an unknown zone is refused at schedule.timezone with the closest real name; the cron is still checked', () => {
    expect(checkSchedule({ cron: '0 9 * * *', timezone: 'Europe/Pariss' }, 60).issues).toEqual([
      { path: 'schedule.timezone', message: '"Europe/Pariss" is not an IANA time zone; did you mean "Europe/Paris"?' },
    ]);
    expect(paths({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toEqual(['schedule.timezone']);
    expect(paths({ cron: 'nope', timezone: 'Nowhere/City' })).toEqual(['schedule.timezone', 'schedule.cron']);
    expect(closestZone('paris')).toBe('Europe/Paris');
    expect(closestZone('New York')).toBe('America/New_York');
  });

  test('an offset is refused as an offset; host-dependent names Temporal would take (Local, posix/…) are refused', () => {
    expect(checkSchedule({ cron: '0 9 * * *', timezone: '+02:00' }, 60).issues).toEqual([
      { path: 'schedule.timezone', message: expect.stringContaining('is an offset, not a time zone') },
    ]);
    for (const timezone of ['GMT+2', 'Local', 'posix/Europe/Paris', 'Factory', '', '../etc/passwd']) {
      expect({ timezone, paths: paths({ cron: '0 9 * * *', timezone }) }).toEqual({ timezone, paths: ['schedule.timezone'] });
    }
  });
});

describe('checkSchedule: intervals', () => {
  test('an interval under the minimum is refused at schedule.intervalSeconds, naming the minimum', () => {
    expect(checkSchedule({ intervalSeconds: 59 }, 60).issues).toEqual([
      { path: 'schedule.intervalSeconds', message: expect.stringContaining('at least 60 seconds') },
    ]);
    expect(checkSchedule({ intervalSeconds: 60 }, 60)).toEqual({ spec: { intervalSeconds: 60 }, issues: [] });
  });
});
