import type { ActivityDeps } from './deps';

/** The retention workflow's one activity: a bounded batch of expired executions deleted (and of bulk replays over them). */
export function createRetentionActivities({ executions, retention, replays }: Pick<ActivityDeps, 'executions' | 'retention' | 'replays'>) {
  return {
    /**
     * Deletes at most `batchSize` executions past their organization's
     * retention, oldest first, in one short statement; how many it deleted.
     * Idempotent: a retry deletes what is still due.
     */
    async pruneExecutionBatch(input: { batchSize: number }): Promise<{ deleted: number }> {
      // Bulk replays go with the runs they replayed; the count (which paces the workflow) stays the executions'.
      await replays.bulks.pruneExpired(retention.daysByPlan, input.batchSize);
      return { deleted: await executions.pruneExpired(retention.daysByPlan, input.batchSize) };
    },
  };
}
