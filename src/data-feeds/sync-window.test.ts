import { FIRST_SYNC_LOOKBACK_DAYS, syncWindow } from './sync-window';

const now = new Date('2026-11-20T12:00:00.000Z');
const config = (syncedThrough?: string) => ({ syncIntervalMinutes: 60, lastSyncAt: null, lastSyncStatus: null, syncedThrough });

describe('syncWindow', () => {
  it('starts a first sync FIRST_SYNC_LOOKBACK_DAYS back and ends now', () => {
    expect(syncWindow(config(), {}, now)).toEqual({
      startDate: new Date(now.getTime() - FIRST_SYNC_LOOKBACK_DAYS * 86_400_000).toISOString(),
      endDate: now.toISOString(),
    });
    expect(syncWindow(null, {}, now).endDate).toBe(now.toISOString());
  });

  it('continues from the end of the last successful sync', () => {
    expect(syncWindow(config('2026-11-20T11:00:00.000Z'), {}, now)).toEqual({ startDate: '2026-11-20T11:00:00.000Z', endDate: now.toISOString() });
  });

  it('starts the look-back before the end of the last successful sync, and only there', () => {
    expect(syncWindow(config('2026-11-20T11:00:00.000Z'), {}, now, 90)).toEqual({ startDate: '2026-11-20T09:30:00.000Z', endDate: now.toISOString() });
    // A first sync reaches back its own way; dates given are taken as they are.
    expect(syncWindow(config(), {}, now, 90).startDate).toBe(new Date(now.getTime() - FIRST_SYNC_LOOKBACK_DAYS * 86_400_000).toISOString());
    expect(syncWindow(config('2026-11-20T11:00:00.000Z'), { startDate: '2026-11-20T10:00:00Z' }, now, 90).startDate).toBe('2026-11-20T10:00:00.000Z');
    // With a look-back, a sync that already reaches now still re-reads the look-back.
    expect(syncWindow(config(now.toISOString()), {}, now, 5)).toEqual({ startDate: '2026-11-20T11:55:00.000Z', endDate: now.toISOString() });
  });

  it('takes the dates given, in UTC', () => {
    expect(syncWindow(config('2026-11-20T11:00:00.000Z'), { startDate: '2026-11-01T02:00:00+02:00', endDate: '2026-11-02T00:00:00Z' }, now)).toEqual({
      startDate: '2026-11-01T00:00:00.000Z',
      endDate: '2026-11-02T00:00:00.000Z',
    });
  });

  it('refuses a window that ends before it starts, or is empty', () => {
    expect(() => syncWindow(null, { startDate: '2026-11-02T00:00:00Z', endDate: '2026-11-01T00:00:00Z' }, now)).toThrow(
      expect.objectContaining({ code: 'invalid_sync_window', status: 400 }),
    );
    expect(() => syncWindow(null, { startDate: '2026-11-21T00:00:00Z' }, now)).toThrow(expect.objectContaining({ code: 'invalid_sync_window' }));
    expect(() => syncWindow(config(now.toISOString()), {}, now)).toThrow(expect.objectContaining({ code: 'invalid_sync_window' }));
  });

  it('caps an endDate after now at now, so a future end never skips scheduled syncs', () => {
    expect(syncWindow(config(), { startDate: '2026-11-20T00:00:00Z', endDate: '2027-01-01T00:00:00Z' }, now)).toEqual({
      startDate: '2026-11-20T00:00:00.000Z',
      endDate: now.toISOString(),
    });
    expect(() => syncWindow(null, { startDate: '2026-12-01T00:00:00Z', endDate: '2027-01-01T00:00:00Z' }, now)).toThrow(
      expect.objectContaining({ code: 'invalid_sync_window' }),
    );
  });
});
