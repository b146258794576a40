import { as, expectStatus } from './harness';
import { eventually } from './factories';
import { getSource, orgWithTwilio, startFeedStack, sync, syncRunClosed, toggleTwilioOn, type FeedStack } from './data-feed-fixtures';
import type { TestOrg } from './factories';

/**
 * Sync runs that stop without recording their end (docs/analytics.md, "Sync
 * history"): a terminated workflow runs no more code, so the API's reconciler
 * (FeedSyncReconciler) ends its history row, and the source's lastSyncStatus,
 * from outside. Real runs on the worker against the Twilio stub, their vendor
 * page held (`setDelay`) so that they are under way when terminated; the
 * reconciler looks at runs of any age here (FEED_SYNC_RECONCILE_AFTER_SECONDS 0).
 */
let stack: FeedStack;
beforeAll(async () => {
  stack = await startFeedStack({ configure: (c) => (c.vendors.syncReconcile = { intervalSeconds: 60, afterSeconds: 0 }) });
}, 60_000);
afterAll(async () => {
  stack.stubs.setDelay(0);
  await stack.close();
});

type Json = Record<string, any>;
/** How long the stub holds each vendor answer while a test needs runs under way (below the feeds' 30 s vendor timeout). */
const HELD_MS = 15_000;

let day = 0;
/** A day of 2024 no other test of this file syncs. */
function freshWindow() {
  day += 1;
  const start = new Date(Date.UTC(2024, 0, 1 + day * 3));
  return { startDate: start.toISOString(), endDate: new Date(start.getTime() + 86_400_000).toISOString() };
}

/** An organization with twilio:calls on (weekly: its schedule never fires here) and its first sync done. */
async function feedSource(): Promise<{ org: TestOrg; id: string }> {
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(stack.h.app, org, connection, 10_080);
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
  return { org, id };
}

const history = async (org: TestOrg, id: string): Promise<{ total: number; data: Json[] }> => {
  const res = await as(stack.h.app, org.ownerToken).get(`/dashboards/data-sources/${id}/syncs`);
  expectStatus(res, 200);
  return res.body;
};

/** Starts a sync of a fresh day and waits until it has begun (its history row, running); the stub holds its vendor page. */
async function syncUnderWay({ org, id }: { org: TestOrg; id: string }): Promise<Json> {
  const before = (await history(org, id)).total;
  expectStatus(await sync(stack.h.app, org, id, freshWindow()), 201);
  const { data } = await eventually(
    () => history(org, id),
    (h) => h.total === before + 1 && h.data[0].status === 'running',
  );
  expect((await getSource(stack.h.app, org, id)).syncConfig.lastSyncStatus).toBe('running');
  return data[0];
}

const terminate = (id: string) => stack.h.services.temporal.client.workflow.getHandle(`feed-sync:${id}`).terminate('test: an operator ends the run');

it('a run whose workflow was terminated ends failed, saying so, in its history and in lastSyncStatus; a run still going is left alone', async () => {
  const stopped = await feedSource();
  const going = await feedSource();
  stack.stubs.setDelay(HELD_MS);
  const run = await syncUnderWay(stopped);
  const other = await syncUnderWay(going);

  await terminate(stopped.id);
  expect(await syncRunClosed(stack.h, stopped.id)).toBe('TERMINATED');
  // Nothing of the run records its end any more: without the reconciler it would stay `running` for ever.
  expect((await history(stopped.org, stopped.id)).data[0]).toMatchObject({ id: run.id, status: 'running', finishedAt: null });

  await stack.h.services.feedSyncReconciler.reconcileNow();

  const ended = (await history(stopped.org, stopped.id)).data[0];
  expect(ended).toMatchObject({
    id: run.id,
    status: 'failed',
    error: expect.stringMatching(/^The sync stopped without recording its end: its Temporal workflow was terminated\. The records it wrote are kept/),
    finishedAt: expect.any(String),
    durationMs: expect.any(Number),
  });
  expect((await getSource(stack.h.app, stopped.org, stopped.id)).syncConfig).toMatchObject({
    lastSyncStatus: 'failed',
    lastSyncError: ended.error,
    lastSyncAt: ended.finishedAt,
  });
  // The other source's run is under way: its workflow runs, so it stays as it is.
  expect((await history(going.org, going.id)).data[0]).toMatchObject({ id: other.id, status: 'running' });
  expect((await getSource(stack.h.app, going.org, going.id)).syncConfig.lastSyncStatus).toBe('running');

  // A second pass changes nothing of the ended run; the source syncs again.
  await stack.h.services.feedSyncReconciler.reconcileNow();
  expect((await history(stopped.org, stopped.id)).data[0]).toEqual(ended);
  stack.stubs.setDelay(0);
  expectStatus(await sync(stack.h.app, stopped.org, stopped.id, freshWindow()), 201);
  expect(await syncRunClosed(stack.h, stopped.id)).toBe('COMPLETED');
  const after = await history(stopped.org, stopped.id);
  expect(after.data.slice(0, 2).map((r) => r.status)).toEqual(['success', 'failed']);
  expect((await getSource(stack.h.app, stopped.org, stopped.id)).syncConfig.lastSyncStatus).toBe('success');
  // The held run ends by itself, as it would have.
  expect(await syncRunClosed(stack.h, going.id)).toBe('COMPLETED');
  expect((await history(going.org, going.id)).data[0]).toMatchObject({ id: other.id, status: 'success' });
}, 120_000);

it('a terminated run whose source has synced again since is ended too; the later run, and the syncConfig describing it, are left as they are', async () => {
  const source = await feedSource();
  stack.stubs.setDelay(HELD_MS);
  const first = await syncUnderWay(source);
  await terminate(source.id);
  expect(await syncRunClosed(stack.h, source.id)).toBe('TERMINATED');
  // Temporal admits the next run at once (the workflow is closed), before anything has ended the first one's row.
  const later = await syncUnderWay(source);

  await stack.h.services.feedSyncReconciler.reconcileNow();

  const { data } = await history(source.org, source.id);
  expect(data[0]).toMatchObject({ id: later.id, status: 'running', finishedAt: null, error: null });
  expect(data[1]).toMatchObject({
    id: first.id,
    status: 'failed',
    error: expect.stringContaining('stopped without recording its end: a later sync of the source has begun since'),
  });
  expect((await getSource(stack.h.app, source.org, source.id)).syncConfig).toMatchObject({ lastSyncStatus: 'running', lastSyncError: null });

  stack.stubs.setDelay(0);
  expect(await syncRunClosed(stack.h, source.id)).toBe('COMPLETED');
  expect((await history(source.org, source.id)).data[0]).toMatchObject({ id: later.id, status: 'success' });
  expect((await getSource(stack.h.app, source.org, source.id)).syncConfig.lastSyncStatus).toBe('success');
}, 120_000);
