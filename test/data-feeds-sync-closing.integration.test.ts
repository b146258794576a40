import { expectStatus } from './harness';
import { waitFor } from './factories';
import { getSource, orgWithTwilio, startFeedStack, sync, syncRunClosed, toggleTwilioOn, type FeedStack } from './data-feed-fixtures';

/**
 * `POST /dashboards/data-sources/{id}/sync` right after a run ends
 * (docs/analytics.md, "Data feeds: toggle, schedules and sync"): a run records
 * its end (syncConfig.lastSyncStatus) in its last activity, and its workflow
 * closes only after that, so for a moment Temporal still holds the run the
 * source shows ended. A sync asked for then is accepted (201), never 409
 * sync_running. The moment is made to last: the worker stops while the run's
 * last activity is held on a row lock, so the run's workflow stays open, its
 * end recorded, until a new worker takes its last step.
 */
let stack: FeedStack;
beforeAll(async () => {
  // Long enough for a new worker to start (it bundles the workflows) while the sync request waits.
  stack = await startFeedStack({ configure: (c) => (c.vendors.syncStartWaitMs = 60_000) });
}, 60_000);
afterAll(async () => {
  stack.stubs.setDelay(0);
  await stack.close();
});

const windowOf = (day: number) => {
  const start = new Date(Date.UTC(2024, 5, day));
  return { startDate: start.toISOString(), endDate: new Date(start.getTime() + 86_400_000).toISOString() };
};

it('a sync asked for once the last run shows ended is accepted, while that run is still closing in Temporal', async () => {
  const { app, services } = stack.h;
  const { client } = services.temporal;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 10_080);
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');

  // A run whose vendor page is held a moment, so that the source row can be locked once the run has begun.
  stack.stubs.setDelay(3_000);
  expectStatus(await sync(app, org, id, windowOf(1)), 201);
  await waitFor(async () => (await getSource(app, org, id)).syncConfig.lastSyncStatus === 'running', { intervalMs: 20 });
  const lock = services.db.createQueryRunner();
  await lock.connect();
  await lock.startTransaction();
  await lock.query('SELECT id FROM data_sources WHERE id = $1 FOR UPDATE', [id]);
  const [{ pid }] = await lock.query('SELECT pg_backend_pid() AS pid');
  // The run's last activity has written its history row and now waits to write syncConfig.
  await waitFor(
    async () =>
      (
        await services.db.query(
          `SELECT 1 FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid)) AND query LIKE 'UPDATE data_sources SET sync_config%'`,
          [pid],
        )
      ).length === 1,
    { intervalMs: 20, what: 'the run recording its end, held by the lock' },
  );
  stack.stubs.setDelay(0);

  // The worker stops taking new tasks; the held activity finishes (its end recorded), and the run's last step waits for a worker.
  const stopping = stack.stopWorker();
  await lock.commitTransaction();
  await lock.release();
  await stopping;
  const workflow = client.workflow.getHandle(`feed-sync:${id}`);
  expect((await getSource(app, org, id)).syncConfig.lastSyncStatus).toBe('success');
  expect((await workflow.describe()).status.name).toBe('RUNNING');

  // Asked for now: the source shows the last run ended, so the answer is not 409; it waits for the run to close and starts the next.
  const asked = sync(app, org, id, windowOf(2)).then((res) => res);
  await stack.startWorker();
  // The run's last step sits on the stopped worker's sticky queue: hand it to any worker at once.
  await client.workflowService.resetStickyTaskQueue({ namespace: services.config.temporal.namespace, execution: { workflowId: `feed-sync:${id}` } });
  const res = await asked;
  expectStatus(res, 201);
  expect(res.body.workflowId).toBe(`feed-sync:${id}`);
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
  expect((await getSource(app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncWindow: windowOf(2) });
}, 120_000);
