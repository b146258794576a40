import { type Client, ScheduleAlreadyRunning } from '@temporalio/client';
import { PRUNE_EXECUTIONS_WORKFLOW, type PruneExecutionsInput, retentionScheduleId } from '../../workflows/retention.types';

/** Batches one pruning run deletes at most; what is left waits for the next beat. */
const MAX_BATCHES_PER_RUN = 100;

export interface RetentionSettings {
  intervalMinutes: number;
  batchSize: number;
}

/**
 * The Temporal Schedule that prunes expired executions
 * (`execution-retention:<task queue>`): every `intervalMinutes` it starts
 * pruneExpiredExecutions, skipping a beat while the previous run still
 * deletes. Every worker makes sure it exists with the current settings when
 * it starts, so a changed setting takes effect at the next deploy.
 */
export async function ensureRetentionSchedule(client: Client, taskQueue: string, settings: RetentionSettings): Promise<void> {
  const scheduleId = retentionScheduleId(taskQueue);
  const input: PruneExecutionsInput = { batchSize: settings.batchSize, maxBatches: MAX_BATCHES_PER_RUN };
  const spec = { intervals: [{ every: `${settings.intervalMinutes}m` }] };
  const action = {
    type: 'startWorkflow' as const,
    workflowType: PRUNE_EXECUTIONS_WORKFLOW,
    workflowId: `${scheduleId}:run`,
    taskQueue,
    args: [input],
    staticSummary: `Deletes executions past their retention, ${settings.batchSize} a statement`,
  };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies: { overlap: 'SKIP', catchupWindow: '1 minute' } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
  }
}
