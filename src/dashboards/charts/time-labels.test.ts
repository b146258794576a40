import { timeLabel, timeValueInstant } from './time-labels';

describe('time values', () => {
  it('a wall-clock value is that time in the zone, on either side of a daylight saving change', () => {
    expect(timeValueInstant('2026-01-10T00:00:00.000', 'Europe/Paris')).toBe(Date.parse('2026-01-09T23:00:00Z'));
    expect(timeValueInstant('2026-07-10T00:00:00.000', 'Europe/Paris')).toBe(Date.parse('2026-07-09T22:00:00Z'));
    expect(timeValueInstant('2026-03-08T03:00:00.000', 'America/New_York')).toBe(Date.parse('2026-03-08T07:00:00Z'));
    expect(timeValueInstant('2026-03-08T01:00:00.000', 'America/New_York')).toBe(Date.parse('2026-03-08T06:00:00Z'));
    expect(timeValueInstant('2026-03-10', 'UTC')).toBe(Date.parse('2026-03-10T00:00:00Z'));
    expect(timeValueInstant('soon', 'UTC')).toBeNull();
  });

  it('a value with an offset is written as the zone reads it', () => {
    expect(timeLabel('2026-03-10T23:30:00Z', 'day', 'Asia/Tokyo', 'en-US')).toBe('Mar 11, 2026');
    expect(timeLabel('2026-03-10T23:30:00Z', 'day', 'America/New_York', 'en-US')).toBe('Mar 10, 2026');
    expect(timeLabel('2026-03-10T23:30:00Z', 'minute', 'Asia/Kolkata', 'en-GB')).toBe('11 Mar 2026, 05:00');
  });

  it('labels by granularity; not a time: as text; null: a dash', () => {
    expect(timeLabel('2026-12-31T00:00:00.000', 'year', 'UTC', 'en-US')).toBe('2026');
    expect(timeLabel('2026-12-28T00:00:00.000', 'week', 'UTC', 'en-US')).toBe('Dec 28, 2026');
    expect(timeLabel('2026-10-01T00:00:00.000', 'quarter', 'UTC', 'en-US')).toBe('Q4 2026');
    expect(timeLabel('n/a', 'day', 'UTC', 'en-US')).toBe('n/a');
    expect(timeLabel(null, 'day', 'UTC', 'en-US')).toBe('—');
  });
});
