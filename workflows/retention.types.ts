/** The workflow type the retention schedule starts. */
export const PRUNE_EXECUTIONS_WORKFLOW = 'pruneExpiredExecutions';
/** The one retention schedule of the namespace and task queue, and its runs' id (one at a time). */
export const retentionScheduleId = (taskQueue: string) => `execution-retention:${taskQueue}`;

export interface PruneExecutionsInput {
  /** Executions one statement deletes at most. */
  batchSize: number;
  /** Batches one run deletes at most; what is left waits for the next beat. */
  maxBatches: number;
}

export interface PruneExecutionsResult {
  deleted: number;
  batches: number;
  /** The last batch was full: more were due than this run deleted. */
  more: boolean;
}
