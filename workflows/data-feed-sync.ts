import { ActivityFailure, ApplicationFailure, ParentClosePolicy, continueAsNew, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  DATA_FEED_SYNC_WORKFLOW,
  feedSyncWorkflowId,
  type FeedSyncInput,
  type FeedSyncResult,
  type ScheduledFeedSyncInput,
  type SyncCounts,
} from './data-feed-sync.types';

/** Pages per run before it continues as new: keeps each run's history short however many pages a window has. */
const PAGES_PER_RUN = 50;

const { beginFeedSync, finishFeedSync } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * A vendor outage gets a few attempts with backoff (about 8 s in all), then
 * the run fails; a rate limit waits the vendor's Retry-After instead (the
 * activity's nextRetryDelay); a rejection is not retried at all.
 */
const { syncFeedPage } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * One sync of a feed-backed data source over a window: page after page from
 * the vendor, each written by its activity, until the vendor has no next
 * page. The run carries only cursors and counts. It continues as new every
 * PAGES_PER_RUN pages; a failed page fails the run (records written before
 * stay) and syncConfig says why.
 */
export async function dataFeedSync(input: FeedSyncInput): Promise<FeedSyncResult> {
  const ref = { organizationId: input.organizationId, dataSourceId: input.dataSourceId };
  let state = input.resume;
  if (!state) {
    const begun = await beginFeedSync({ ...ref, window: input.window });
    if ('skipped' in begun) return { status: 'skipped', reason: begun.skipped };
    state = { window: begun.window, cursor: null, counts: { pages: 0, created: 0, updated: 0 } };
  }
  const { window } = state;
  let { cursor } = state;
  const counts: SyncCounts = { ...state.counts };
  try {
    for (let pages = 0; pages < PAGES_PER_RUN; pages++) {
      const page = await syncFeedPage({ ...ref, window, cursor });
      counts.pages += 1;
      counts.created += page.created;
      counts.updated += page.updated;
      cursor = page.next;
      if (cursor === null) break;
    }
  } catch (err) {
    const message = failureMessage(err);
    await finishFeedSync({ ...ref, window, counts, status: 'failed', error: message });
    throw ApplicationFailure.create({ type: 'FeedSyncFailed', message, nonRetryable: true });
  }
  if (cursor !== null) return continueAsNew<typeof dataFeedSync>({ ...ref, resume: { window, cursor, counts } });
  await finishFeedSync({ ...ref, window, counts, status: 'success' });
  return { status: 'success', window, counts };
}

/**
 * What a feed's Temporal Schedule runs: the source's sync, under its one
 * workflow id, so a beat that finds a sync still running (a manual one, say)
 * is skipped rather than doubled.
 */
export async function dataFeedScheduledSync(input: ScheduledFeedSyncInput): Promise<FeedSyncResult | { status: 'skipped'; reason: string }> {
  let child;
  try {
    child = await startChild(DATA_FEED_SYNC_WORKFLOW, {
      workflowId: feedSyncWorkflowId(input.dataSourceId),
      args: [{ organizationId: input.organizationId, dataSourceId: input.dataSourceId } satisfies FeedSyncInput],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: workflowInfo().typedSearchAttributes,
    });
  } catch (err) {
    // WorkflowExecutionAlreadyStartedError, which @temporalio/workflow does not re-export.
    if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')
      return { status: 'skipped', reason: 'a sync of this data source is already running' };
    throw err;
  }
  return (await child.result()) as FeedSyncResult;
}

/** The activity's own message (vendor, status, what to do), not Temporal's wrapper. */
function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return 'The sync failed';
}
