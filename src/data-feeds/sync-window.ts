import { ValidationError } from '../errors/errors';
import type { SyncConfig } from '../data-sources/analytics-source.entity';
import type { SyncWindow } from '../../workflows/data-feed-sync.types';

/** How far back a source's first sync (no earlier success, no dates given) reaches. */
export const FIRST_SYNC_LOOKBACK_DAYS = 30;
const DAY_MS = 86_400_000;

/** The look-back a sync of this source without dates re-reads: the source's own, else its feed's. */
export function lookbackMinutesOf(config: SyncConfig | null, feedDefault: number): number {
  return config?.lookbackMinutes ?? feedDefault;
}

/**
 * The window a sync covers: the dates given, else from the end of the last
 * successful sync less `lookbackMinutes` (what the vendor filled in late is
 * read again) or FIRST_SYNC_LOOKBACK_DAYS back for a first sync, to
 * `now`. An endDate after `now` is capped at `now` (nothing later exists to
 * sync yet). A window that ends before it starts (also one starting in the
 * future) is 400 invalid_sync_window.
 */
export function syncWindow(config: SyncConfig | null, dates: { startDate?: string; endDate?: string }, now: Date, lookbackMinutes = 0): SyncWindow {
  const end = dates.endDate && new Date(dates.endDate).getTime() < now.getTime() ? new Date(dates.endDate) : now;
  const start = dates.startDate
    ? new Date(dates.startDate)
    : config?.syncedThrough
      ? new Date(new Date(config.syncedThrough).getTime() - lookbackMinutes * 60_000)
      : new Date(end.getTime() - FIRST_SYNC_LOOKBACK_DAYS * DAY_MS);
  if (end.getTime() <= start.getTime()) {
    throw new ValidationError(
      `The sync window ends (${end.toISOString()}${end === now ? ', now' : ''}) before it starts (${start.toISOString()}); send a startDate in the past and an endDate after it`,
      [{ path: dates.endDate ? 'endDate' : 'startDate', message: 'the window must end after it starts' }],
      'invalid_sync_window',
    );
  }
  return { startDate: start.toISOString(), endDate: end.toISOString() };
}
