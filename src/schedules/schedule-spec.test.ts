import { isIanaZone, scheduleProblems } from './schedule-spec';

const paths = (spec: Parameters<typeof scheduleProblems>[0], min = 60) => scheduleProblems(spec, min).map((i) => i.path);

describe('scheduleProblems', () => {
  test('five-field expressions in an IANA zone pass', () => {
    for (const cron of ['*/5 * * * *', '0 9 * * MON-FRI', '30 2 1 * *', '0 0 * * 0', '15 14 1,15 JAN-JUN *']) {
      expect(paths({ cron, timezone: 'Europe/Paris' })).toEqual([]);
    }
  });

  test('seconds, macros, a CRON_TZ prefix, garbage and impossible dates are refused at schedule.cron', () => {
    for (const cron of ['0 0 9 * * *', '@daily', 'CRON_TZ=UTC 0 9 * * *', 'every day', '61 * * * *', '0 0 30 2 *', '* * *']) {
      expect({ cron, paths: paths({ cron, timezone: 'UTC' }) }).toEqual({ cron, paths: ['schedule.cron'] });
    }
  });

  test('an unknown zone or an offset is refused at schedule.timezone; the cron is still checked', () => {
    expect(paths({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toEqual(['schedule.timezone']);
    expect(paths({ cron: '0 9 * * *', timezone: '+02:00' })).toEqual(['schedule.timezone']);
    expect(paths({ cron: 'nope', timezone: 'Nowhere/City' })).toEqual(['schedule.timezone', 'schedule.cron']);
  });

  test('an interval under the minimum is refused at schedule.intervalSeconds, naming the minimum', () => {
    expect(scheduleProblems({ intervalSeconds: 59 }, 60)).toEqual([
      { path: 'schedule.intervalSeconds', message: expect.stringContaining('at least 60 seconds') },
    ]);
    expect(paths({ intervalSeconds: 60 })).toEqual([]);
  });
});

describe('isIanaZone', () => {
  test('canonical names, links and UTC are zones; offsets, abbreviations with paths and junk are not', () => {
    expect(['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'US/Eastern', 'Asia/Kolkata'].filter(isIanaZone)).toHaveLength(5);
    expect(['', '+02:00', 'GMT+2', 'Europe/Nowhere', '../etc/passwd', 'Europe/Paris; DROP'].filter(isIanaZone)).toEqual([]);
  });
});
