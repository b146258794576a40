// The sync history's types, without runtime imports: the worker's activities
// and the API both use them.

/** What started a sync run: the source's schedule, a manual sync, or a manual sync of older dates. */
export type SyncTrigger = 'schedule' | 'manual' | 'backfill';

export type FeedSyncStatus = 'running' | 'success' | 'failed';

/** What one run did, counted as it went. */
export interface FeedSyncCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  vendorRequests: number;
  pages: number;
}

/** A run as it begins (FeedSyncsRepository.begin). `id` is the run's own, so a retried begin writes it once. */
export interface FeedSyncStart {
  id: string;
  organizationId: string;
  dataSourceId: string;
  workflowId: string;
  trigger: SyncTrigger;
  /** ISO 8601, start inclusive, end exclusive. */
  window: { startDate: string; endDate: string };
  startedAt: string;
}

/** How a run ended (FeedSyncsRepository.finish). */
export interface FeedSyncOutcome {
  status: Exclude<FeedSyncStatus, 'running'>;
  counts: FeedSyncCounts;
  /** Whether the run also deleted the records the vendor no longer has. */
  reconciled: boolean;
  /** Why it failed, already masked of the connection's secrets; null on success. */
  error: string | null;
  finishedAt: string;
}

/** One run of the history, as stored. */
export interface FeedSync {
  id: string;
  organizationId: string;
  dataSourceId: string;
  workflowId: string;
  trigger: SyncTrigger;
  window: { startDate: Date; endDate: Date };
  status: FeedSyncStatus;
  counts: FeedSyncCounts;
  reconciled: boolean;
  startedAt: Date;
  /** null while it runs. */
  finishedAt: Date | null;
  error: string | null;
}
