// Names, ids and payloads of the data feed sync workflows, shared by the API
// (which starts them and schedules them) and the workflow code.

import type { FeedSyncCounts, SyncTrigger } from '../src/data-feeds/feed-syncs.types';

export const DATA_FEED_SYNC_WORKFLOW = 'dataFeedSync';
export const DATA_FEED_SCHEDULED_SYNC_WORKFLOW = 'dataFeedScheduledSync';

/**
 * Every sync run of a source has this workflow id, whoever starts it: Temporal
 * refuses a second run with the id while one is open, so a source never syncs
 * twice at once. The source's schedule has the same id (schedules are a namespace of their own).
 */
export const feedSyncWorkflowId = (dataSourceId: string) => `feed-sync:${dataSourceId}`;
export const feedScheduleId = (dataSourceId: string) => `feed-sync:${dataSourceId}`;
/** The schedule's own runs (Temporal appends the scheduled time); each starts the sync run above. */
export const feedScheduledRunId = (dataSourceId: string) => `feed-sync-scheduled:${dataSourceId}`;

/** ISO 8601, start inclusive, end exclusive. */
export interface SyncWindow {
  startDate: string;
  endDate: string;
}

/** What started a sync, and what a sync run counts (the sync history's types). */
export type { FeedSyncCounts as SyncCounts, SyncTrigger } from '../src/data-feeds/feed-syncs.types';

/**
 * One part of a sync run: pages of a window (a `listingId` when the listing
 * also mirrors deletions in that window), or the reconciliation of stored
 * keys, in key order after `after`.
 */
export type SyncPhase = { kind: 'window'; window: SyncWindow; listingId: string | null; cursor: string | null } | { kind: 'keys'; after: string | null };

export interface SyncProgress {
  /** The sync's row in the source's history (GET .../syncs). */
  syncId: string;
  /** The window the sync was asked for (history and syncedThrough go by it). */
  window: SyncWindow;
  startedAt: string;
  counts: FeedSyncCounts;
  /** The phase in progress first; a run ends when none is left. */
  phases: SyncPhase[];
  /** Whether the phases include a reconciliation of deletions. */
  reconciles: boolean;
}

export interface FeedSyncInput {
  organizationId: string;
  dataSourceId: string;
  /** A manual sync's window; a scheduled one (absent) syncs from the last successful end (less the look-back) to now. */
  window?: SyncWindow;
  /** Absent: `schedule` without a window, `manual` with one. */
  trigger?: SyncTrigger;
  /** Where a run continued-as-new left off; never records, only cursors and counts. */
  resume?: SyncProgress;
}

/** `gone`: skipped because the source no longer exists (the scheduled launcher then deletes its schedule). */
export type FeedSyncResult =
  { status: 'success'; window: SyncWindow; counts: FeedSyncCounts; reconciled: boolean } | { status: 'skipped'; reason: string; gone?: boolean };

export interface ScheduledFeedSyncInput {
  organizationId: string;
  dataSourceId: string;
}
