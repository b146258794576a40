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
  uuid4,
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
  type SyncPhase,
  type SyncProgress,
} from './data-feed-sync.types';

/** Activities per run before it continues as new: keeps each run's history short however many pages a sync has. */
const PAGES_PER_RUN = 50;
/** How long one page may wait out vendor rate limits in all (each wait is the vendor's Retry-After, at most 15 minutes) before the run fails. */
export const MAX_RATE_LIMIT_WAIT_MS = 60 * 60_000;

const { beginFeedSync, finishFeedSync, settleFeedListing, deleteFeedSchedule } = proxyActivities<Activities>({
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
const { syncFeedPage, reconcileFeedKeys } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/**
 * One sync of a feed-backed data source: its phases (src/data-feeds/sync-plan.ts)
 * one after the other. A window phase pages the vendor until it has no next
 * page, each page written by its activity, and a listing that reaches its end
 * then settles the deletions in its window; a keys phase asks the vendor about
 * stored keys, a batch per activity. The run carries only cursors and counts.
 * It continues as new every PAGES_PER_RUN activities; a failure fails the run
 * (what was written stays) and the source and its history say why. A
 * cancelled run is recorded failed too.
 */
export async function dataFeedSync(input: FeedSyncInput): Promise<FeedSyncResult> {
  const ref = { organizationId: input.organizationId, dataSourceId: input.dataSourceId };
  let progress = input.resume && fromEarlierRelease(input.resume);
  if (!progress) {
    const trigger = input.trigger ?? (input.window ? 'manual' : 'schedule');
    const syncId = uuid4();
    const begun = await beginFeedSync({ ...ref, window: input.window, trigger, syncId, workflowId: workflowInfo().workflowId });
    if ('skipped' in begun) return { status: 'skipped', reason: begun.skipped, ...(begun.gone ? { gone: true } : {}) };
    progress = fromEarlierRelease({ syncId, ...begun, counts: emptyCounts() });
  }
  const { syncId, window, startedAt, reconciles } = progress;
  const counts: SyncCounts = { ...progress.counts };
  const phases = [...progress.phases];
  const finish = (outcome: { status: 'success' } | { status: 'failed'; error: string }) =>
    finishFeedSync({ ...ref, syncId, window, counts, startedAt, reconciled: reconciles && outcome.status === 'success', ...outcome });
  try {
    for (let steps = 0; phases.length > 0 && steps < PAGES_PER_RUN; steps++) {
      const next = await advance(ref, phases[0], counts);
      if (next) phases[0] = next;
      else phases.shift();
    }
  } catch (err) {
    const message = isCancellation(err) ? 'The sync was cancelled; the records written so far are kept' : failureMessage(err);
    // Recorded even when the run is cancelled: the source never stays `running`.
    await CancellationScope.nonCancellable(() => finish({ status: 'failed', error: message }));
    if (isCancellation(err)) throw err;
    throw ApplicationFailure.create({ type: 'FeedSyncFailed', message, nonRetryable: true });
  }
  if (phases.length > 0) return continueAsNew<typeof dataFeedSync>({ ...ref, resume: { syncId, window, startedAt, reconciles, counts, phases } });
  await finish({ status: 'success' });
  return { status: 'success', window, counts, reconciled: reconciles };
}

const emptyCounts = (): SyncCounts => ({ pages: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, vendorRequests: 0 });

/**
 * A run begun before syncs had phases (a deploy while it ran) knows a window
 * and a cursor only, from its begin activity's answer or the input it
 * continued as new with: it finishes as it began, one window without
 * deletions, so its replay schedules exactly the activities it did.
 */
function fromEarlierRelease(
  progress: Omit<SyncProgress, 'phases' | 'reconciles' | 'syncId' | 'startedAt'> &
    Partial<Pick<SyncProgress, 'phases' | 'reconciles' | 'syncId' | 'startedAt'>> & { cursor?: string | null },
): SyncProgress {
  return {
    syncId: progress.syncId ?? uuid4(),
    window: progress.window,
    startedAt: progress.startedAt ?? progress.window.endDate,
    counts: { ...emptyCounts(), ...progress.counts },
    phases: progress.phases ?? [{ kind: 'window', window: progress.window, listingId: null, cursor: progress.cursor ?? null }],
    reconciles: progress.reconciles ?? false,
  };
}

/**
 * One step of the phase (a page, then the settle of a listing's deletions
 * after its last page; or a batch of keys), its counts added. Answers the
 * phase as it then stands, or null when it is done.
 */
async function advance(ref: { organizationId: string; dataSourceId: string }, phase: SyncPhase, counts: SyncCounts): Promise<SyncPhase | null> {
  if (phase.kind === 'keys') {
    const batch = await rateLimited(() => reconcileFeedKeys({ ...ref, after: phase.after }));
    counts.deleted += batch.deleted;
    counts.vendorRequests += batch.requests;
    return batch.next === null ? null : { kind: 'keys', after: batch.next };
  }
  const page = await rateLimited(() => syncFeedPage({ ...ref, window: phase.window, cursor: phase.cursor, listingId: phase.listingId }));
  counts.pages += 1;
  counts.created += page.created;
  counts.updated += page.updated;
  counts.unchanged += page.unchanged;
  counts.vendorRequests += page.requests;
  if (page.next !== null) return { ...phase, cursor: page.next };
  if (phase.listingId !== null) {
    const settled = await settleFeedListing({ ...ref, listingId: phase.listingId, window: phase.window });
    counts.deleted += settled.deleted;
  }
  return null;
}

/** An activity that may answer `rateLimited`, run until it does not: the vendor's Retry-After waited out with timers, within MAX_RATE_LIMIT_WAIT_MS. */
async function rateLimited<T extends object>(call: () => Promise<T | { rateLimited: { retryAfterMs: number; message: string } }>): Promise<T> {
  let waited = 0;
  for (;;) {
    const answer = await call();
    if (!('rateLimited' in answer)) return answer;
    const { retryAfterMs, message } = answer.rateLimited;
    if (waited + retryAfterMs > MAX_RATE_LIMIT_WAIT_MS) {
      throw ApplicationFailure.create({
        type: 'VendorRateLimited',
        message: `${message}; the vendor kept rate-limiting this request for ${Math.round(waited / 60_000)} minutes, so the sync stopped: run the sync again later`,
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
