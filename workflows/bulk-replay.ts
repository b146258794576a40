import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { BULK_REPLAY_RATE_PER_SECOND, type BulkReplayInput } from './bulk-replay.types';

// Heartbeats every second: a dead worker's batch is retried within seconds; the derived ids keep each run started once.
const { startBulkReplays, finishBulkReplay } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * A bulk replay (POST /executions/replay): starts the runs it selected when
 * it was created, a batch of BULK_REPLAY_RATE_PER_SECOND each second, until
 * none is pending. Its history holds counts only: the ids are in the database.
 * At most 1,000 runs, so about 200 batches: no continue-as-new needed.
 */
export async function replayBulk(input: BulkReplayInput): Promise<void> {
  for (;;) {
    const { remaining } = await startBulkReplays({ ...input, batch: BULK_REPLAY_RATE_PER_SECOND });
    if (remaining === 0) break;
    await sleep('1 second');
  }
  await finishBulkReplay(input);
}
