import type { SyncConfig } from '../data-sources/analytics-source.entity';
import type { SyncPhase, SyncTrigger, SyncWindow } from '../../workflows/data-feed-sync.types';
import type { FeedDefinition } from './feed-definition';

/** How often a source reconciles deletions over its feed's reconciliation scope (the look-back only covers recent records). */
export const RECONCILE_EVERY_HOURS = 24;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The phases of one sync run. The window is always listed; a `listing` feed
 * also mirrors deletions in it. Once RECONCILE_EVERY_HOURS, a sync that is
 * not a backfill also reconciles: a `listing` feed lists the rest of its
 * reconciliation window (before the sync's own window), a `keys` feed asks
 * the vendor about every stored key.
 */
export function planSync(input: {
  feed: Pick<FeedDefinition, 'deletions'>;
  config: SyncConfig | null;
  window: SyncWindow;
  trigger: SyncTrigger;
  now: Date;
  newId: () => string;
}): { phases: SyncPhase[]; reconciles: boolean } {
  const { feed, window, now } = input;
  const listing = feed.deletions.kind === 'listing';
  const phases: SyncPhase[] = [{ kind: 'window', window, listingId: listing ? input.newId() : null, cursor: null }];
  const last = input.config?.lastReconciledAt;
  const due = input.trigger !== 'backfill' && (!last || now.getTime() - Date.parse(last) >= RECONCILE_EVERY_HOURS * HOUR_MS);
  if (!due) return { phases, reconciles: false };
  if (feed.deletions.kind === 'keys') return { phases: [...phases, { kind: 'keys', after: null }], reconciles: true };
  const from = now.getTime() - feed.deletions.reconcileWindowDays * DAY_MS;
  if (from < Date.parse(window.startDate)) {
    const before = { startDate: new Date(from).toISOString(), endDate: window.startDate };
    phases.push({ kind: 'window', window: before, listingId: input.newId(), cursor: null });
  }
  return { phases, reconciles: true };
}
