import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ParentClosePolicy,
  continueAsNew,
  isCancellation,
  proxyActivities,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
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
/** How long one page may wait out vendor rate limits in all (each wait is the vendor's Retry-After, at most 15 minutes) before the run fails. */
export const MAX_RATE_LIMIT_WAIT_MS = 60 * 60_000;

const { beginFeedSync, finishFeedSync, deleteFeedSchedule } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * A vendor outage gets a few attempts with backoff (about 8 s in all), then
 * the run fails; a rejection is not retried at all. A rate limit is not an
 * attempt: the activity answers `rateLimited` with the vendor's Retry-After
 * and the workflow waits it out with a timer (at most MAX_RATE_LIMIT_WAIT_MS
 * per page), so 429s in a row leave the 5 attempts to outages.
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
 * stay) and syncConfig says why. A cancelled run is recorded failed too.
 */
export async function dataFeedSync(input: FeedSyncInput): Promise<FeedSyncResult> {
  const ref = { organizationId: input.organizationId, dataSourceId: input.dataSourceId };
  let state = input.resume;
  if (!state) {
    const begun = await beginFeedSync({ ...ref, window: input.window });
    if ('skipped' in begun) return { status: 'skipped', reason: begun.skipped, ...(begun.gone ? { gone: true } : {}) };
    state = { window: begun.window, startedAt: begun.startedAt, cursor: null, counts: { pages: 0, created: 0, updated: 0 } };
  }
  const { window, startedAt } = state;
  let { cursor } = state;
  const counts: SyncCounts = { ...state.counts };
  try {
    for (let pages = 0; pages < PAGES_PER_RUN; pages++) {
      const page = await pageOf({ ...ref, window, cursor });
      counts.pages += 1;
      counts.created += page.created;
      counts.updated += page.updated;
      cursor = page.next;
      if (cursor === null) break;
    }
  } catch (err) {
    const message = isCancellation(err) ? 'The sync was cancelled; the records written so far are kept' : failureMessage(err);
    // Recorded even when the run is cancelled: the source never stays `running`.
    await CancellationScope.nonCancellable(() => finishFeedSync({ ...ref, window, counts, startedAt, status: 'failed', error: message }));
    if (isCancellation(err)) throw err;
    throw ApplicationFailure.create({ type: 'FeedSyncFailed', message, nonRetryable: true });
  }
  if (cursor !== null) return continueAsNew<typeof dataFeedSync>({ ...ref, resume: { window, startedAt, cursor, counts } });
  await finishFeedSync({ ...ref, window, counts, startedAt, status: 'success' });
  return { status: 'success', window, counts };
}

/** One page, waiting out the vendor's rate limits (the activity's Retry-After) with timers, within MAX_RATE_LIMIT_WAIT_MS. */
async function pageOf(input: Parameters<Activities['syncFeedPage']>[0]): Promise<{ next: string | null; created: number; updated: number }> {
  let waited = 0;
  for (;;) {
    const page = await syncFeedPage(input);
    if (!('rateLimited' in page)) return page;
    const { retryAfterMs, message } = page.rateLimited;
    if (waited + retryAfterMs > MAX_RATE_LIMIT_WAIT_MS) {
      throw ApplicationFailure.create({
        type: 'VendorRateLimited',
        message: `${message}; the vendor kept rate-limiting this page for ${Math.round(waited / 60_000)} minutes, so the sync stopped: run the sync again later`,
        nonRetryable: true,
      });
    }
    await sleep(retryAfterMs);
    waited += retryAfterMs;
  }
}

/**
 * What a feed's Temporal Schedule runs: the source's sync, under its one
 * workflow id, so a beat that finds a sync still running (a manual one, say)
 * is skipped rather than doubled. A beat that finds the source deleted
 * deletes the schedule (should the delete of the source have missed it).
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
    // WorkflowExecutionAlreadyStartedError: it lives in @temporalio/common, which workflow code does not import
    // (lint rule: @temporalio/workflow and `import type` only), and @temporalio/workflow does not re-export it.
    if (err instanceof Error && err.name === 'WorkflowExecutionAlreadyStartedError')
      return { status: 'skipped', reason: 'a sync of this data source is already running' };
    throw err;
  }
  const result = (await child.result()) as FeedSyncResult;
  if (result.status === 'skipped' && result.gone) await deleteFeedSchedule({ dataSourceId: input.dataSourceId });
  return result;
}

/** The activity's own message (vendor, status, what to do), not Temporal's wrapper. */
function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure || cause instanceof Error) return cause.message;
  return 'The sync failed';
}
