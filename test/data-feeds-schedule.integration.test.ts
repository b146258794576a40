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

it('a one-minute schedule fires on its own and its runs are found by DataSourceId; off stops it', async () => {
  const { app } = stack.h;
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(app, org, connection, 1);
  await syncRunClosed(stack.h, id);
  // Interval schedules fire on the minute: within about 60 s.
  const [run] = await eventually(
    () => scheduledRuns(id),
    (runs) => runs.length > 0,
    80_000,
  );
  expect(run.workflowId).toMatch(new RegExp(`^feed-sync-scheduled:${id}`));
  await eventually(
    () => client().workflow.getHandle(run.workflowId, run.runId).describe(),
    (d) => d.status.name === 'COMPLETED',
  );
  expect(await client().workflow.getHandle(run.workflowId, run.runId).result()).toMatchObject({ status: 'success' });
  const off = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false });
  expectStatus(off, 201);
  expect((await client().schedule.getHandle(`feed-sync:${id}`).describe()).state.paused).toBe(true);
}, 120_000);

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
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
  const records = await tableRecords(app, org, table);
  expect(records).toHaveLength(150);
  expect(new Set(records.map((r) => r.value.callSid)).size).toBe(150);
  expect((await getSource(app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncRecords: { created: 150 } });
  // The first page was fetched once: the new worker went on from the cursor, not from the start.
  const firstPages = callListRequests(stack.stubs)
    .slice(mark)
    .filter((r) => r.query.Page === undefined);
  expect(firstPages).toHaveLength(1);
}, 90_000);
