import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PruneExecutionsInput, PruneExecutionsResult } from './retention.types';

const { pruneExecutionBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * Deletes expired executions batch after batch, each its own short
 * statement (never one long one holding locks), until a batch comes back
 * short or `maxBatches` ran; the retention schedule starts it every beat.
 */
export async function pruneExpiredExecutions(input: PruneExecutionsInput): Promise<PruneExecutionsResult> {
  let deleted = 0;
  for (let batches = 1; batches <= input.maxBatches; batches++) {
    const batch = await pruneExecutionBatch({ batchSize: input.batchSize });
    deleted += batch.deleted;
    if (batch.deleted < input.batchSize) return { deleted, batches, more: false };
  }
  return { deleted, batches: input.maxBatches, more: true };
}
