import { ScheduleNotFoundError } from '@temporalio/client';
import { expectStatus, as } from './harness';
import { eventually } from './factories';
import {
  callListRequests,
  getSource,
  orgWithTwilio,
  startFeedStack,
  sync,
  syncRunClosed,
  tableRecords,
  toggle,
  toggleTwilioOn,
  type FeedStack,
} from './data-feed-fixtures';

/** Schedules that fire, paused sources that a beat leaves alone, and a worker stopped mid-sync. */
let stack: FeedStack;
beforeAll(async () => {
  stack = await startFeedStack();
}, 60_000);
afterAll(() => stack.close());
afterEach(() => stack.stubs.setDelay(0));

const client = () => stack.h.services.temporal.client;

/** Scheduled launcher runs of the source, found as operators find them: by search attribute. */
async function scheduledRuns(dataSourceId: string) {
  const runs = [];
  for await (const run of client().workflow.list({ query: `DataSourceId = "${dataSourceId}" AND WorkflowType = "dataFeedScheduledSync"` })) runs.push(run);
  return runs;
}

it('a one-minute schedule is due within the minute, its beats run the sync and are found by DataSourceId; off stops it', async () => {
  const { app } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 1);
  await syncRunClosed(stack.h, id);
  const schedule = client().schedule.getHandle(`feed-sync:${id}`);
  const described = await schedule.describe();
  // Temporal's own plan for it, rather than a minute of waiting: a beat every 60 s, the next within the minute.
  expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 60_000 })]);
  expect(described.state.paused).toBe(false);
  const [next, afterNext] = described.info.nextActionTimes;
  expect(next.getTime() - Date.now()).toBeLessThanOrEqual(61_000);
  expect(afterNext.getTime() - next.getTime()).toBeGreaterThan(55_000);
  expect(afterNext.getTime() - next.getTime()).toBeLessThan(65_000);
  // A beat, as the schedule starts it.
  await schedule.trigger();
  const [run] = await eventually(
    () => scheduledRuns(id),
    (runs) => runs.length > 0,
  );
  expect(run.workflowId).toMatch(new RegExp(`^feed-sync-scheduled:${id}`));
  await eventually(
    () => client().workflow.getHandle(run.workflowId, run.runId).describe(),
    (d) => d.status.name === 'COMPLETED',
  );
  expect(await client().workflow.getHandle(run.workflowId, run.runId).result()).toMatchObject({ status: 'success' });
  const off = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
  expectStatus(off, 201);
  expect((await schedule.describe()).state.paused).toBe(true);
});

it('a beat of a disabled (paused) source ends without touching the vendor', async () => {
  const { app } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 10_080);
  await syncRunClosed(stack.h, id);
  expectStatus(await as(app, org.ownerToken).patch(`/dashboards/data-sources/${id}`).send({ enabled: false }), 200);
  const before = (await getSource(app, org, id)).syncConfig;
  const mark = stack.stubs.requests.length;
  await client().schedule.getHandle(`feed-sync:${id}`).trigger();
  const [run] = await eventually(
    () => scheduledRuns(id),
    (runs) => runs.some((r) => r.status.name === 'COMPLETED'),
  );
  expect(await client().workflow.getHandle(run.workflowId, run.runId).result()).toEqual({ status: 'skipped', reason: expect.stringMatching(/disabled/) });
  expect(stack.stubs.requests.slice(mark).filter((r) => r.vendor === 'twilio')).toEqual([]);
  expect((await getSource(app, org, id)).syncConfig).toEqual(before);
});

it('a worker stopped mid-sync: a new worker resumes the run and finishes it without duplicates', async () => {
  const { app } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 10_080);
  await syncRunClosed(stack.h, id);
  const table = (await getSource(app, org, id)).dataStoreTableName;
  const start = new Date(Date.UTC(2025, 5, 1));
  const window = { startDate: start.toISOString(), endDate: new Date(start.getTime() + 86_400_000).toISOString() };
  stack.stubs.twilio.addCalls(150, { start, spacingSeconds: 300, status: 'no-answer' }); // three pages
  stack.stubs.setDelay(1_500);
  const mark = callListRequests(stack.stubs).length;
  expectStatus(await sync(app, org, id, window), 201);
  await eventually(
    async () => (await tableRecords(app, org, table)).length,
    (n) => n >= 50,
  );
  await stack.stopWorker(); // the page in flight is cancelled with it
  expect((await getSource(app, org, id)).syncConfig.lastSyncStatus).toBe('running');
  stack.stubs.setDelay(0);
  await stack.startWorker();
  // A page task the stopping worker's poller had just taken is never run by it: Temporal retries that attempt only when
  // its start-to-close timeout (2 minutes, workflows/data-feed-sync.ts) has passed, as after a crash.
  expect(await syncRunClosed(stack.h, id, 180_000)).toBe('COMPLETED');
  expect(await tableRecords(app, org, table)).toHaveLength(150);
  // Every record was written as new once (a page redone from scratch would count updates), and each page was asked for at
  // most twice (the one in flight when the worker stopped is asked again; none more).
  const { lastSyncRecords } = (await getSource(app, org, id)).syncConfig;
  expect(lastSyncRecords.created).toBe(150);
  expect(lastSyncRecords.updated).toBeLessThanOrEqual(50);
  const perPage = new Map<string, number>();
  for (const r of callListRequests(stack.stubs).slice(mark)) perPage.set(String(r.query.Page ?? 0), (perPage.get(String(r.query.Page ?? 0)) ?? 0) + 1);
  expect(perPage.size).toBe(3);
  expect([...perPage.values()].every((n) => n <= 2)).toBe(true);
  expect([...perPage.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
  // The first page was fetched once: the new worker went on from the cursor, not from the start.
  const firstPages = callListRequests(stack.stubs)
    .slice(mark)
    .filter((r) => r.query.Page === undefined);
  expect(firstPages).toHaveLength(1);
}, 240_000);

it('a cancelled sync is recorded failed, not left running', async () => {
  const { app } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 10_080);
  await syncRunClosed(stack.h, id);
  const start = new Date(Date.UTC(2025, 6, 1));
  stack.stubs.twilio.addCalls(5, { start, status: 'no-answer' });
  stack.stubs.setDelay(5_000);
  expectStatus(await sync(app, org, id, { startDate: start.toISOString(), endDate: new Date(start.getTime() + 86_400_000).toISOString() }), 201);
  await eventually(
    () => getSource(app, org, id),
    (s) => s.syncConfig.lastSyncStatus === 'running',
  );
  await client().workflow.getHandle(`feed-sync:${id}`).cancel();
  expect(await syncRunClosed(stack.h, id)).toBe('CANCELLED');
  const after = await eventually(
    () => getSource(app, org, id),
    (s) => s.syncConfig.lastSyncStatus !== 'running',
  );
  expect(after.syncConfig).toMatchObject({ lastSyncStatus: 'failed', lastSyncError: expect.stringMatching(/cancelled/) });
});

it('a beat that finds its source gone (deleted without its schedule) deletes the schedule', async () => {
  const { app, services } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 10_080);
  await syncRunClosed(stack.h, id);
  // As if the delete's listener had failed (Temporal unreachable): the row and its serving relation go, the schedule stays.
  const { servingRelation } = await getSource(app, org, id);
  // In one transaction, as the service deletes them: no other file ever sees the relation without its row.
  await services.db.transaction(async (m) => {
    await m.query('DELETE FROM data_sources WHERE id = $1', [id]);
    await m.query(`DROP TABLE analytics.${servingRelation}`);
  });
  await client().schedule.getHandle(`feed-sync:${id}`).trigger();
  await eventually(
    () =>
      client()
        .schedule.getHandle(`feed-sync:${id}`)
        .describe()
        .then(
          () => false,
          (err: unknown) => err instanceof ScheduleNotFoundError,
        ),
    (gone) => gone,
  );
});
