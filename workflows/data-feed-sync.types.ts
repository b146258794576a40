// Names, ids and payloads of the data feed sync workflows, shared by the API
// (which starts them and schedules them) and the workflow code.

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

export interface SyncCounts {
  pages: number;
  created: number;
  updated: number;
}

export interface FeedSyncInput {
  organizationId: string;
  dataSourceId: string;
  /** A manual sync's window; a scheduled one (absent) syncs from the last successful end to now. */
  window?: SyncWindow;
  /** Where a run continued-as-new left off; never records, only the cursor and counts. */
  resume?: {
    window: SyncWindow;
    cursor: string | null;
    counts: SyncCounts;
    /** When the run began (absent in runs resumed from before it was kept). */ startedAt?: string;
  };
}

/** `gone`: skipped because the source no longer exists (the scheduled launcher then deletes its schedule). */
export type FeedSyncResult = { status: 'success'; window: SyncWindow; counts: SyncCounts } | { status: 'skipped'; reason: string; gone?: boolean };

export interface ScheduledFeedSyncInput {
  organizationId: string;
  dataSourceId: string;
}
