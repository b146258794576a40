import { Context } from '@temporalio/activity';
import { AppError } from '../src/errors/errors';
import { RunStarter } from '../src/executions/run-starter';
import type { BulkReplayBatch, BulkReplayInput } from '../workflows/bulk-replay.types';
import type { ActivityDeps } from './deps';
import { heartbeating } from './steps/step-runner';

export function createReplayActivities({ executions, replays, logger }: ActivityDeps) {
  return {
    /**
     * Starts up to `batch` pending runs of a bulk replay, each under the
     * execution id derived for it (RunStarter.startOnce): a batch retried
     * after its worker died finds the runs it already started and starts
     * none twice. A run that cannot be replayed (a refusal) is recorded
     * failed with the reason; anything else is retried. How many are left.
     */
    async startBulkReplays({ organizationId, bulkId, batch }: BulkReplayBatch): Promise<{ remaining: number }> {
      return heartbeating(async () => {
        const bulk = await replays.bulks.find(organizationId, bulkId);
        if (!bulk) return { remaining: 0 };
        const context = Context.current();
        const runs = new RunStarter(context.client, executions, context.info.taskQueue, logger);
        const { fromStepId, version } = bulk.request;
        for (const item of await replays.bulks.items(organizationId, bulkId, { limit: batch, pendingOnly: true })) {
          try {
            const plan = await replays.planner.plan(organizationId, item.originalId, { fromStepId, version });
            await runs.startOnce({ ...plan, executionId: item.executionId });
            await replays.bulks.mark(organizationId, bulkId, item.position, 'started');
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            await replays.bulks.mark(organizationId, bulkId, item.position, 'failed', err.message);
          }
        }
        const left = await replays.bulks.items(organizationId, bulkId, { limit: 1, pendingOnly: true });
        return { remaining: left.length };
      });
    },

    /** The bulk went through every run it selected. */
    async finishBulkReplay({ organizationId, bulkId }: BulkReplayInput): Promise<void> {
      await replays.bulks.finish(organizationId, bulkId);
    },
  };
}
