import { as, expectError, expectStatus } from './harness';
import { eventually, type TestOrg } from './factories';
import { historyText } from './workflow-api';
import { DataSourcesRepository } from '../src/data-sources/data-sources.repository';
import {
  callListRequests,
  getSource,
  orgWithTwilio,
  settledSource,
  startFeedStack,
  sync,
  syncRunClosed,
  tableRecords,
  toggleTwilioOn,
  type FeedStack,
} from './data-feed-fixtures';

/**
 * Manual syncs of twilio:calls against the Twilio stub. Every test adds its
 * calls on a day of 2025 of its own and syncs that day, so tests sharing the
 * stub never see each other's calls (the toggle's first sync looks back 30
 * days from now, far from them). Calls are `no-answer` unless a test needs
 * recordings: one Calls request per page, nothing else.
 */
let stack: FeedStack;
beforeAll(async () => {
  stack = await startFeedStack();
}, 60_000);
afterAll(() => stack.close());

let day = 0;
/** A day of 2025 no other test of this file uses. */
function freshDay() {
  day += 1;
  const start = new Date(Date.UTC(2025, 0, 1 + day * 3));
  return { start, window: { startDate: start.toISOString(), endDate: new Date(start.getTime() + 86_400_000).toISOString() } };
}

/** An organization with twilio:calls on (weekly schedule: it never fires during the test) and its first sync done. */
async function feedSource() {
  const { org, connection } = await orgWithTwilio(stack);
  const id = await toggleTwilioOn(stack.h.app, org, connection, 10_080);
  await syncRunClosed(stack.h, id);
  const source = await getSource(stack.h.app, org, id);
  return { org, id, table: source.dataStoreTableName as string };
}

/**
 * Records that the source's last success ended at `at`, a fixed instant in the past: a source last synced long ago,
 * so the next window's start is a known literal and calls within it are already in the past (no waiting for the clock).
 */
async function setSyncedThrough(org: TestOrg, id: string, at: string) {
  expect(await new DataSourcesRepository(stack.h.services.db.manager).mergeSyncConfig(org.organizationId, id, { syncedThrough: at })).toBe(true);
}

const inWindow = (records: Array<Record<string, any>>, w: { startDate: string; endDate: string }) =>
  records.filter((r) => r.value.startTime >= w.startDate && r.value.startTime < w.endDate);

afterEach(() => {
  stack.stubs.setDelay(0);
});

describe('manual sync', () => {
  it('with dates sends exactly that window to the vendor and writes its calls; without dates continues from the last success to now', async () => {
    const { app } = stack.h;
    const { org, id, table } = await feedSource();
    const throughBefore = (await getSource(app, org, id)).syncConfig.syncedThrough as string;
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(3, { start: new Date(start.getTime() + 3_600_000), status: 'no-answer' });
    stack.stubs.twilio.addCalls(2, { start: new Date(start.getTime() - 3_600_000), status: 'no-answer' }); // the day before

    const before = callListRequests(stack.stubs).length;
    const res = await sync(app, org, id, window);
    expectStatus(res, 201);
    expect(res.body.message).toContain(window.startDate);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    const [request] = callListRequests(stack.stubs).slice(before);
    expect(request.query).toMatchObject({ 'StartTime>': window.startDate.replace('.000', ''), 'StartTime<': expect.stringMatching(/^2025-/) });
    expect(inWindow(await tableRecords(app, org, table), window)).toHaveLength(3);
    const synced = await getSource(app, org, id);
    expect(synced.syncConfig).toMatchObject({
      lastSyncStatus: 'success',
      lastSyncWindow: window,
      lastSyncRecords: { created: 3, updated: 0, unchanged: 0, deleted: 0 },
      lastSyncError: null,
    });
    // A backfill of old dates never moves the next sync's start backwards.
    expect(synced.syncConfig.syncedThrough).toBe(throughBefore);

    // Without dates: from where the last success ended, less Twilio's day of look-back, to now. Two calls that started
    // within that day before it, added since, are read again.
    await setSyncedThrough(org, id, '2025-06-15T12:00:00.000Z');
    stack.stubs.twilio.addCalls(2, { start: new Date('2025-06-15T08:00:00.000Z'), spacingSeconds: 1, status: 'no-answer' });
    const mark = callListRequests(stack.stubs).length;
    const sentAt = Date.now();
    expectStatus(await sync(app, org, id, {}), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    const next = callListRequests(stack.stubs).slice(mark)[0];
    expect(next.query['StartTime>']).toBe('2025-06-14T12:00:00Z'); // 24 h before syncedThrough
    const end = Date.parse(next.query['StartTime<']);
    expect(end).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000) * 1000 - 1000);
    const after = await getSource(app, org, id);
    expect(after.syncConfig.lastSyncWindow.startDate).toBe('2025-06-14T12:00:00.000Z');
    expect(after.syncConfig.lastSyncRecords.created).toBe(2);
  });

  it('syncedThrough never jumps a gap, and an endDate in the future is capped at now', async () => {
    const { app } = stack.h;
    const { org, id } = await feedSource();
    const through = '2025-07-01T00:00:00.000Z';
    await setSyncedThrough(org, id, through);
    // A later window than syncedThrough (a day's gap between): synced, but syncedThrough stays.
    const later = { startDate: '2025-07-02T00:00:00.000Z', endDate: '2025-07-03T00:00:00.000Z' };
    expectStatus(await sync(app, org, id, later), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect((await getSource(app, org, id)).syncConfig).toMatchObject({
      lastSyncStatus: 'success',
      lastSyncWindow: later,
      syncedThrough: '2025-07-01T00:00:00.000Z',
    });

    // An endDate a year ahead: the window ends now, and syncedThrough never passes when the run began.
    const sentAt = Date.now();
    const res = await sync(app, org, id, { startDate: through, endDate: new Date(sentAt + 365 * 86_400_000).toISOString() });
    expectStatus(res, 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    const after = (await getSource(app, org, id)).syncConfig;
    expect(after.lastSyncWindow.startDate).toBe('2025-07-01T00:00:00.000Z');
    expect(Date.parse(after.lastSyncWindow.endDate)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(after.syncedThrough)).toBeGreaterThanOrEqual(sentAt - 1_000);
    expect(Date.parse(after.syncedThrough)).toBeLessThanOrEqual(Date.now());
  });

  it('a renamed connection keeps syncing (found by id)', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWithTwilio(stack);
    const id = await toggleTwilioOn(app, org, connection, 10_080);
    await syncRunClosed(stack.h, id);
    const table = (await getSource(app, org, id)).dataStoreTableName;
    expectStatus(
      await as(app, org.ownerToken)
        .patch(`/connections/${connection.id}`)
        .send({ name: `${connection.name}_renamed` }),
      200,
    );
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(2, { start, status: 'no-answer' });
    expectStatus(await sync(app, org, id, window), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect(inWindow(await tableRecords(app, org, table), window)).toHaveLength(2);
    expect((await getSource(app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncError: null });
  });

  it('is idempotent: the same window twice leaves the same records', async () => {
    const { app } = stack.h;
    const { org, id, table } = await feedSource();
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(120, { start, spacingSeconds: 300, status: 'no-answer' }); // three pages of 50
    expectStatus(await sync(app, org, id, window), 201);
    await syncRunClosed(stack.h, id);
    const first = inWindow(await tableRecords(app, org, table), window);
    expect(first).toHaveLength(120);
    expect((await getSource(app, org, id)).syncConfig.lastSyncRecords).toEqual({ created: 120, updated: 0, unchanged: 0, deleted: 0 });

    expectStatus(await sync(app, org, id, window), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    const second = inWindow(await tableRecords(app, org, table), window);
    expect(second).toHaveLength(120);
    expect(new Set(second.map((r) => r.key))).toEqual(new Set(first.map((r) => r.key)));
    // Read again as they were: nothing is written, nothing deleted.
    expect((await getSource(app, org, id)).syncConfig.lastSyncRecords).toEqual({ created: 0, updated: 0, unchanged: 120, deleted: 0 });
  });

  it('a second request while a sync runs is 409 sync_running naming when the running one started', async () => {
    const { app } = stack.h;
    const { org, id } = await feedSource();
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(2, { start, status: 'no-answer' });
    stack.stubs.setDelay(3_000);
    expectStatus(await sync(app, org, id, window), 201);
    const second = await sync(app, org, id, {});
    expectError(second, 409, 'sync_running');
    expect(second.body.error.message).toMatch(/already running .*started \d{4}-\d{2}-\d{2}T/);
    await eventually(
      () => getSource(app, org, id),
      (s) => s.syncConfig.lastSyncStatus === 'running',
    );
    stack.stubs.setDelay(0);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    // Once it is over, the next one is accepted.
    expectStatus(await sync(app, org, id, window), 201);
    await syncRunClosed(stack.h, id);
  });
});

describe('vendor failures', () => {
  it('a 429 is retried after its Retry-After and the sync succeeds', async () => {
    const { app } = stack.h;
    const { org, id, table } = await feedSource();
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(4, { start, status: 'no-answer' });
    const mark = callListRequests(stack.stubs).length;
    stack.stubs.failNext('twilio', 1, { status: 429, retryAfterSeconds: 2 });
    const sentAt = Date.now();
    expectStatus(await sync(app, org, id, window), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2_000);
    expect(callListRequests(stack.stubs).slice(mark)).toHaveLength(2);
    expect(inWindow(await tableRecords(app, org, table), window)).toHaveLength(4);
    expect((await getSource(app, org, id)).syncConfig.lastSyncStatus).toBe('success');
  });

  it('429s in a row do not use up the attempts meant for outages: six of them, and the sync still succeeds', async () => {
    const { app } = stack.h;
    const { org, id, table } = await feedSource();
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(3, { start, status: 'no-answer' });
    const mark = callListRequests(stack.stubs).length;
    stack.stubs.failNext('twilio', 6, { status: 429, retryAfterSeconds: 1 });
    expectStatus(await sync(app, org, id, window), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect(callListRequests(stack.stubs).slice(mark)).toHaveLength(7);
    expect(inWindow(await tableRecords(app, org, table), window)).toHaveLength(3);
    expect((await getSource(app, org, id)).syncConfig.lastSyncStatus).toBe('success');
  }, 60_000);

  it('a 500 that persists fails the run after bounded retries, keeps the pages written before, and the next sync starts from the last success', async () => {
    const { app } = stack.h;
    const { org, id, table } = await feedSource();
    const syncedThrough = (await getSource(app, org, id)).syncConfig.syncedThrough;
    const { start, window } = freshDay();
    stack.stubs.twilio.addCalls(120, { start, spacingSeconds: 300, status: 'no-answer' });
    stack.stubs.setDelay(1_000);
    expectStatus(await sync(app, org, id, window), 201);
    await eventually(
      async () => inWindow(await tableRecords(app, org, table), window).length,
      (n) => n >= 50,
    );
    // The page in flight and its four retries all get 500.
    stack.stubs.failNext('twilio', 5, { status: 500 });
    stack.stubs.setDelay(0);
    expect(await syncRunClosed(stack.h, id)).toBe('FAILED');
    const failed = await settledSource(app, org, id);
    expect(failed.syncConfig).toMatchObject({ lastSyncStatus: 'failed', lastSyncError: expect.stringMatching(/Twilio.*500/), syncedThrough });
    expect(failed.syncConfig.lastSyncError).not.toContain(stack.stubs.twilio.authToken);
    const kept = inWindow(await tableRecords(app, org, table), window).length;
    expect(kept).toBeGreaterThanOrEqual(50);
    expect(kept).toBeLessThan(120);

    // The vendor is back: the same window completes, without duplicates.
    expectStatus(await sync(app, org, id, window), 201);
    expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
    expect(inWindow(await tableRecords(app, org, table), window)).toHaveLength(120);
    expect((await getSource(app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncError: null });
  });
});

it('the history of a finished sync holds no record values and no credentials', async () => {
  const { app, services } = stack.h;
  const { org, id, table } = await feedSource();
  const { start, window } = freshDay();
  const calls = stack.stubs.twilio.addCalls(60, { start, spacingSeconds: 600, withRecording: true }); // two pages, with recordings
  expectStatus(await sync(app, org, id, window), 201);
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
  const stored = inWindow(await tableRecords(app, org, table), window);
  expect(stored).toHaveLength(60);
  expect(stored[0].value.recording).toMatch(/^proxy\+twilio:recording:\/\/RE/);

  const text = await historyText(services.temporal.client, `feed-sync:${id}`);
  expect(text).toContain('syncFeedPage'); // the history was read
  const { authToken, accountSid } = stack.stubs.twilio;
  expect(text).not.toContain(authToken);
  expect(text).not.toContain(Buffer.from(`${accountSid}:${authToken}`).toString('base64'));
  for (const call of calls.slice(0, 5)) expect(text).not.toContain(call.from);
  expect(text).not.toContain('+15550999999');
  expect(text).not.toContain('proxy+twilio:recording');
});
