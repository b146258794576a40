// Shared by the API (which starts bulk replays), the bulk replay workflow and its activities. No I/O here.

/** The Temporal workflow type of a bulk replay. */
export const BULK_REPLAY_WORKFLOW = 'replayBulk';

/** Runs a bulk replay starts per second at most: a batch this large, then a one-second timer. */
export const BULK_REPLAY_RATE_PER_SECOND = 5;

/** A bulk's workflow id: one workflow per bulk, so a bulk asked for twice runs once. */
export const bulkReplayWorkflowId = (bulkId: string) => `replay-bulk-${bulkId}`;

export interface BulkReplayInput {
  organizationId: string;
  bulkId: string;
}

/** One batch: start at most `batch` of the bulk's pending runs. */
export interface BulkReplayBatch extends BulkReplayInput {
  batch: number;
}
