import type { ActivityDeps } from './deps';

/** The retention workflow's one activity: a bounded batch of expired executions deleted. */
export function createRetentionActivities({ executions, retention }: Pick<ActivityDeps, 'executions' | 'retention'>) {
  return {
    /**
     * Deletes at most `batchSize` executions past their organization's
     * retention, oldest first, in one short statement; how many it deleted.
     * Idempotent: a retry deletes what is still due.
     */
    async pruneExecutionBatch(input: { batchSize: number }): Promise<{ deleted: number }> {
      return { deleted: await executions.pruneExpired(retention.daysByPlan, input.batchSize) };
    },
  };
}
