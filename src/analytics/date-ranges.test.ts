import { instant, isCubeDate, readRelativeRange } from './date-ranges';

const now = new Date('2024-05-15T12:00:00Z');

describe('date ranges as Cube reads them', () => {
  it('reads relative phrases with Cube’s own parser, in the given zone', () => {
    expect(readRelativeRange('from 2024-01-01 to 2024-01-31', 'UTC', now)).toEqual({
      ok: true,
      from: '2024-01-01T00:00:00.000',
      to: '2024-01-31T23:59:59.999',
    });
    for (const phrase of ['last 7 days', 'this week', 'today', 'yesterday', 'last quarter', 'next 3 months', 'LAST YEAR', 'from 7 days ago to now']) {
      expect(readRelativeRange(phrase, 'America/New_York', now)).toEqual({ ok: true, from: expect.any(String), to: expect.any(String) });
    }
  });

  it('reports what Cube refuses, also where Cube fails with a TypeError', () => {
    expect(readRelativeRange('whenever', 'UTC', now)).toEqual({ ok: false, reason: "Cube says: Can't parse date: 'whenever'" });
    expect(readRelativeRange('from 2024-01-01 to whenever', 'UTC', now)).toEqual({ ok: false, reason: 'Cube cannot read it as a date range' });
    expect(readRelativeRange('last 99999999999999 days', 'UTC', now)).toEqual({ ok: false, reason: 'Cube reads it as an invalid date' });
  });

  it('tells a reversed range by its ends', () => {
    const reading = readRelativeRange('last 0 days', 'UTC', now);
    expect(reading.ok && reading.from > reading.to).toBe(true);
  });

  it.each([
    ['2024-01-31', true],
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-02-30', false],
    ['2024-13-01', false],
    ['2024-01-01T10:20', true],
    ['2024-01-01T10:20:30.123', true],
    ['2024-01-01T10:20:30Z', true],
    ['2024-01-01T10:20:30+02:00', true],
    ['2024-01-01 10:20:30', true],
    ['2024-01-01T25:00', false],
    ['2024-01-01 and then', false],
    ['January 5, 2024', true],
    ['soon', false],
    ['', false],
  ])('isCubeDate(%j) is %s', (value, expected) => {
    expect(isCubeDate(value)).toBe(expected);
  });

  it('orders a pair as Cube does: dates without an offset are UTC, a date ends at its last millisecond', () => {
    expect(instant('2024-01-01', false)).toBe(Date.parse('2024-01-01T00:00:00Z'));
    expect(instant('2024-01-01', true)).toBe(Date.parse('2024-01-01T23:59:59.999Z'));
    expect(instant('2024-01-01T10:00:00', false)).toBe(Date.parse('2024-01-01T10:00:00Z'));
    expect(instant('2024-01-01T10:00:00+02:00', false)).toBe(Date.parse('2024-01-01T08:00:00Z'));
  });
});
