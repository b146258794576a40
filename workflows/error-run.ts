import { CancellationScope, log, patched } from '@temporalio/workflow';
import { PATCHES } from './patches';
import { activitiesWith } from './activity-proxies';
import { startDetachedRun } from './child-run';
import type { ErrorRunPrepareRequest } from './child-run.types';
import type { RunInput } from './run.types';

/**
 * The run failed or was cancelled: when its definition names an
 * `errorWorkflow`, an activity writes the error run's execution row (mode
 * `error`, linked to this run, the report as its masked input), then the
 * error run starts as a child that outlives this run (ABANDON). Not
 * cancellable: a cancelled run reports too. Never from an error run or its
 * descendants (RunInput.errorRun), so error workflows do not start one
 * another. Whatever goes wrong here is logged, never the run's outcome: the
 * run's own failure is what it reports. An operator's terminate runs no
 * workflow code, so a terminated run starts nothing. Runs begun before the
 * `errorWorkflows` patch replay ending as they did.
 */
export async function startErrorRun(input: RunInput, ended: ErrorRunPrepareRequest): Promise<void> {
  if (input.errorRun || !patched(PATCHES.errorWorkflows.id)) return;
  await CancellationScope.nonCancellable(async () => {
    try {
      const prepared = await activitiesWith({
        startToCloseTimeout: '30 seconds',
        heartbeatTimeout: '5 seconds',
        retry: { maximumAttempts: 5, initialInterval: '500 milliseconds' },
        activityId: 'error-run-prepare',
        summary: 'error workflow: run prepared',
      }).errorRunPrepare(ended);
      if (!prepared) return;
      await startDetachedRun(prepared, { mode: 'error', origin: `the ${ended.status} execution ${ended.executionId}` });
    } catch (err) {
      log.warn('The error workflow did not start', { executionId: ended.executionId, error: (err as Error).message });
    }
  });
}
