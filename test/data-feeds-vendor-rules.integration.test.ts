import { randomUUID } from 'node:crypto';
import { as, createConnection, expectError, expectStatus } from './harness';
import { createTestOrg, eventually, uniqueName, type TestOrg } from './factories';
import { customSource, getSource, settledSource, startFeedStack, sync, syncRunClosed, tableRecords, toggle, type FeedStack } from './data-feed-fixtures';

type Json = Record<string, any>;

/**
 * What real vendors do that a sync must keep up with, replayed against stubs
 * that enforce it: GitHub refuses requests without a User-Agent, Twilio fills
 * prices, statuses and recordings in after a call was first read, and records
 * are deleted or archived at the vendor. Also: a source whose connection was
 * deleted, reattached to another, and the history of its syncs.
 *
 * The stubs hold one account per vendor, shared by every test of the file:
 * each test creates its own records (at times no other test uses) and looks
 * only at those.
 */
let stack: FeedStack;
beforeAll(async () => {
  stack = await startFeedStack();
}, 60_000);
afterAll(() => stack.close());
afterEach(() => stack.stubs.setDelay(0));

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
const WEEK = 10_080;

async function feedOn(org: TestOrg, feedKey: string, connection: Json): Promise<string> {
  const res = await toggle(stack.h.app, org, {
    feedKey,
    connectionId: connection.id,
    connectionName: connection.name,
    enabled: true,
    syncIntervalMinutes: WEEK,
  });
  expectStatus(res, 201);
  await syncRunClosed(stack.h, res.body.dataSourceId);
  return res.body.dataSourceId;
}

async function orgWith(type: string, config: Json): Promise<{ org: TestOrg; connection: Json }> {
  const org = await createTestOrg(stack.h.services);
  return { org, connection: await createConnection(stack.h.app, org, { name: uniqueName(type.replace(/-/g, '_')), type, config }) };
}

/** Queues a sync without dates (as a beat would run it) and waits for it to close; answers the source after it. */
async function syncNow(org: TestOrg, id: string, body: Json = {}): Promise<Json> {
  expectStatus(await sync(stack.h.app, org, id, body), 201);
  expect(await syncRunClosed(stack.h, id)).toBe('COMPLETED');
  return getSource(stack.h.app, org, id);
}

/** Makes the next sync reconcile deletions, as if the last reconciliation were more than a day old. */
async function reconciliationDue(id: string) {
  await stack.h.services.db.query(`UPDATE data_sources SET sync_config = sync_config || '{"lastReconciledAt": "2020-01-01T00:00:00.000Z"}' WHERE id = $1`, [
    id,
  ]);
}

async function recordsOf(org: TestOrg, id: string): Promise<Map<string, Json>> {
  const source = await getSource(stack.h.app, org, id);
  return new Map((await tableRecords(stack.h.app, org, source.dataStoreTableName)).map((r) => [r.key, r.value]));
}

/** The keys the source's serving relation (what Cube queries) holds among these. */
async function servedKeys(org: TestOrg, id: string, keys: string[]): Promise<string[]> {
  const source = await getSource(stack.h.app, org, id);
  const rows: { key: string }[] = await stack.h.services.db.query(`SELECT __key AS key FROM analytics."${source.servingRelation}" WHERE __key = ANY($1)`, [
    keys,
  ]);
  return rows.map((r) => r.key).sort();
}

async function history(org: TestOrg, id: string, query = ''): Promise<Json> {
  const res = await as(stack.h.app, org.ownerToken).get(`/dashboards/data-sources/${id}/syncs${query}`);
  expectStatus(res, 200);
  return res.body;
}

describe('GitHub', () => {
  it('syncs through a GitHub that refuses requests without a User-Agent, naming the service and its version', async () => {
    const issues = stack.stubs.github.addIssues(3, { start: hoursAgo(5), repository: 'octo-org/ua' });
    const { org, connection } = await orgWith('github-oauth', stack.stubs.github.connectionConfig);
    const before = stack.stubs.requests.length;
    const id = await feedOn(org, 'github:issues', connection);

    const source = await getSource(stack.h.app, org, id);
    expect(source.syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncError: null });
    const records = await recordsOf(org, id);
    for (const issue of issues) expect(records.get(issue.node_id)).toMatchObject({ repository: 'octo-org/ua', number: issue.number });
    const sent = stack.stubs.requests.slice(before).filter((r) => r.vendor === 'github');
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) expect(request.headers['user-agent']).toMatch(/^Flowbase\/0\.1\.0 /);
  });

  it('mirrors an issue deleted at GitHub once a reconciliation asks GitHub about the stored keys', async () => {
    const [kept, deleted] = stack.stubs.github.addIssues(2, { start: hoursAgo(30), repository: 'octo-org/deletions' });
    const { org, connection } = await orgWith('github-oauth', stack.stubs.github.connectionConfig);
    const id = await feedOn(org, 'github:issues', connection);
    expect([...(await recordsOf(org, id)).keys()]).toEqual(expect.arrayContaining([kept.node_id, deleted.node_id]));
    expect(await servedKeys(org, id, [kept.node_id, deleted.node_id])).toEqual([kept.node_id, deleted.node_id].sort());

    stack.stubs.github.deleteIssues([deleted.node_id]);
    // Within a day of the last reconciliation, the look-back alone cannot see the deletion (the issue was updated 30 hours ago).
    await syncNow(org, id);
    expect((await recordsOf(org, id)).has(deleted.node_id)).toBe(true);

    await reconciliationDue(id);
    const before = stack.stubs.requests.length;
    const after = await syncNow(org, id);
    const records = await recordsOf(org, id);
    expect(records.has(deleted.node_id)).toBe(false);
    expect(records.has(kept.node_id)).toBe(true);
    expect(await servedKeys(org, id, [kept.node_id, deleted.node_id])).toEqual([kept.node_id]);
    expect(after.syncConfig.lastSyncRecords.deleted).toBeGreaterThanOrEqual(1);
    const graphql = stack.stubs.requests.slice(before).filter((r) => r.vendor === 'github' && r.path === '/graphql');
    expect(graphql.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(graphql[0].body).variables.ids).toEqual(expect.arrayContaining([kept.node_id, deleted.node_id]));
    const [latest] = (await history(org, id, '?limit=1')).data;
    expect(latest).toMatchObject({
      status: 'success',
      reconciled: true,
      records: expect.objectContaining({ deleted: after.syncConfig.lastSyncRecords.deleted }),
    });
    // The reconciliation is recorded as of the run that did it.
    expect(Date.parse(after.syncConfig.lastReconciledAt)).toBe(Date.parse(latest.startedAt));
  });
});

describe('HubSpot', () => {
  it('mirrors a deal archived at HubSpot (and one deleted for good) at the next reconciliation', async () => {
    const [kept, archived, removed] = stack.stubs.hubspot.addDeals(3, { start: hoursAgo(40) });
    const { org, connection } = await orgWith('hubspot-oauth', stack.stubs.hubspot.connectionConfig);
    const id = await feedOn(org, 'hubspot:deals', connection);
    expect([...(await recordsOf(org, id)).keys()]).toEqual(expect.arrayContaining([kept.id, archived.id, removed.id]));

    stack.stubs.hubspot.archiveDeals([archived.id]);
    stack.stubs.hubspot.removeDeals([removed.id]);
    await reconciliationDue(id);
    await syncNow(org, id);
    const records = await recordsOf(org, id);
    expect(records.has(kept.id)).toBe(true);
    expect(records.has(archived.id)).toBe(false);
    expect(records.has(removed.id)).toBe(false);
    expect(await servedKeys(org, id, [kept.id, archived.id, removed.id])).toEqual([kept.id]);
  });
});

describe('Twilio', () => {
  it('reads prices, statuses and recordings Twilio fills in after a call was first read, at the next beat of the schedule', async () => {
    const [call, other] = stack.stubs.twilio.addCalls(2, { start: hoursAgo(3), inProgress: true });
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    expect((await recordsOf(org, id)).get(call.sid)).toMatchObject({ status: 'in-progress', price: null, recording: null });

    stack.stubs.twilio.updateCall(call.sid, { status: 'completed', price: '-0.0130', price_unit: 'USD', end_time: hoursAgo(2.9), duration: 360 });
    const recording = stack.stubs.twilio.addRecording({ callSid: call.sid, body: Buffer.from('RIFF late recording') });
    await stack.h.services.temporal.client.schedule.getHandle(`feed-sync:${id}`).trigger();
    // The history may list the first (manual) sync only after it closed, so the beat is found by its trigger, not by the count.
    const beat = await eventually(
      () => history(org, id),
      (h) => h.data.some((run: Json) => run.trigger === 'schedule' && run.status !== 'running'),
      60_000,
    );
    expect(beat.data.find((run: Json) => run.trigger === 'schedule')).toMatchObject({ status: 'success' });

    const records = await recordsOf(org, id);
    expect(records.get(call.sid)).toMatchObject({
      status: 'completed',
      price: -0.013,
      priceUnit: 'USD',
      duration: 360,
      recording: `proxy+twilio:recording://${recording.sid}`,
    });
    // The other call did not change: read again, not written again.
    expect(records.get(other.sid)).toMatchObject({ status: 'in-progress', price: null });
    expect(beat.data[0].records.updated).toBeGreaterThanOrEqual(1);
    expect(beat.data[0].records.unchanged).toBeGreaterThanOrEqual(1);
  });

  it('mirrors a call deleted at Twilio within its look-back at the next sync, and an older one at the next reconciliation', async () => {
    const [recent, goneRecent] = stack.stubs.twilio.addCalls(2, { start: hoursAgo(4), status: 'no-answer' });
    const [older, goneOlder] = stack.stubs.twilio.addCalls(2, { start: hoursAgo(24 * 5), status: 'no-answer' });
    const keys = [recent.sid, goneRecent.sid, older.sid, goneOlder.sid];
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    expect(await servedKeys(org, id, keys)).toEqual([...keys].sort());

    stack.stubs.twilio.deleteCalls([goneRecent.sid, goneOlder.sid]);
    const first = await syncNow(org, id);
    let records = await recordsOf(org, id);
    expect(records.has(goneRecent.sid)).toBe(false);
    expect(records.has(recent.sid)).toBe(true);
    // Five days back is outside the day of look-back: it waits for the reconciliation.
    expect(records.has(goneOlder.sid)).toBe(true);
    expect(first.syncConfig.lastSyncRecords.deleted).toBeGreaterThanOrEqual(1);

    await reconciliationDue(id);
    await syncNow(org, id);
    records = await recordsOf(org, id);
    expect(records.has(goneOlder.sid)).toBe(false);
    expect(records.has(older.sid)).toBe(true);
    expect(await servedKeys(org, id, keys)).toEqual([recent.sid, older.sid].sort());
  });

  it('keeps records when a listing fails before its end: nothing is deleted on a partial listing', async () => {
    const calls = stack.stubs.twilio.addCalls(3, { start: hoursAgo(6), status: 'busy' });
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    stack.stubs.failNext('twilio', 1, { status: 401 });
    expectStatus(await sync(stack.h.app, org, id), 201);
    await syncRunClosed(stack.h, id);
    expect((await getSource(stack.h.app, org, id)).syncConfig.lastSyncStatus).toBe('failed');
    const records = await recordsOf(org, id);
    for (const call of calls) expect(records.has(call.sid)).toBe(true);
  });

  it('takes a look-back of its own per source, and refuses one out of range', async () => {
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    const body = { feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: true };
    expectError(await toggle(stack.h.app, org, { ...body, lookbackMinutes: 43_201 }), 400, 'validation_failed');
    expectStatus(await toggle(stack.h.app, org, { ...body, lookbackMinutes: 90 }), 201);
    await syncRunClosed(stack.h, id);
    const source = await getSource(stack.h.app, org, id);
    expect(source.syncConfig.lookbackMinutes).toBe(90);
    const after = await syncNow(org, id);
    const { startDate } = after.syncConfig.lastSyncWindow;
    expect(Date.parse(source.syncConfig.syncedThrough) - Date.parse(startDate)).toBe(90 * 60_000);
  });
});

describe('a source whose connection was deleted', () => {
  it('answers sync with 500 source_without_connection, and is reattached to another connection keeping its table, records and id', async () => {
    const { app } = stack.h;
    const calls = stack.stubs.twilio.addCalls(2, { start: hoursAgo(7), status: 'failed' });
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    const before = await getSource(app, org, id);
    expectStatus(await as(app, org.ownerToken).delete(`/connections/${connection.id}`), 200);

    const refused = await sync(app, org, id);
    expectError(refused, 500, 'source_without_connection');
    expect(refused.body.error.message).toContain(`PUT /dashboards/data-sources/${id}/connection`);

    const replacement = await createConnection(app, org, { name: uniqueName('twilio_new'), type: 'twilio', config: stack.stubs.twilio.connectionConfig });
    const attached = await as(app, org.ownerToken)
      .put(`/dashboards/data-sources/${id}/connection`)
      .send({ connectionId: replacement.id, connectionName: replacement.name });
    expectStatus(attached, 200);
    expect(attached.body).toMatchObject({ id, connectionId: replacement.id, connectionName: replacement.name, dataStoreTableName: before.dataStoreTableName });
    // Attaching starts a sync through the new connection.
    const synced = await settledSource(app, org, id);
    expect(synced.syncConfig.lastSyncStatus).toBe('success');
    const records = await recordsOf(org, id);
    for (const call of calls) expect(records.has(call.sid)).toBe(true);
    // Toggling the feed with the new connection finds the same source.
    const again = await toggle(app, org, { feedKey: 'twilio:calls', connectionId: replacement.id, connectionName: replacement.name, enabled: true });
    expectStatus(again, 201);
    expect(again.body.dataSourceId).toBe(id);
    await syncRunClosed(stack.h, id);
  });

  it('refuses a connection of another type, one that already feeds a source, a non-feed source, and other organizations', async () => {
    const { app } = stack.h;
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    const put = (who: TestOrg, sourceId: string, c: Json) =>
      as(app, who.ownerToken).put(`/dashboards/data-sources/${sourceId}/connection`).send({ connectionId: c.id, connectionName: c.name });

    const github = await createConnection(app, org, { name: uniqueName('gh'), type: 'github-oauth', config: stack.stubs.github.connectionConfig });
    expectError(await put(org, id, github), 400, 'connection_type_mismatch');
    expectError(await put(org, id, { id: connection.id, name: 'not its name' }), 400, 'connection_name_mismatch');
    expectError(await put(org, id, { id: randomUUID(), name: 'x' }), 400, 'unknown_connection');

    const busy = await createConnection(app, org, { name: uniqueName('twilio_busy'), type: 'twilio', config: stack.stubs.twilio.connectionConfig });
    await feedOn(org, 'twilio:calls', busy);
    expectError(await put(org, id, busy), 409, 'feed_source_exists');
    expect((await getSource(app, org, id)).connectionId).toBe(connection.id);

    const stranger = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    expectError(await put(stranger.org, id, stranger.connection), 404, 'not_found');
    expectError(
      await as(app, org.tokens.viewer).put(`/dashboards/data-sources/${id}/connection`).send({ connectionId: connection.id, connectionName: connection.name }),
      403,
      'missing_permission',
    );

    const customId = await customSource(app, org);
    expectError(await put(org, customId, connection), 400, 'not_a_feed_source');
  });
});

describe('GET /dashboards/data-sources/{id}/syncs', () => {
  it('lists each sync newest first: trigger, window, records, vendor requests, duration and the error of a failed one', async () => {
    const { app } = stack.h;
    stack.stubs.twilio.addCalls(4, { start: hoursAgo(9), status: 'no-answer' });
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    await syncNow(org, id);
    const window = { startDate: new Date(Date.UTC(2025, 5, 1)).toISOString(), endDate: new Date(Date.UTC(2025, 5, 2)).toISOString() };
    await syncNow(org, id, window);
    stack.stubs.failNext('twilio', 1, { status: 401 });
    expectStatus(await sync(app, org, id), 201);
    await syncRunClosed(stack.h, id);

    const { total, data } = await history(org, id);
    expect(total).toBe(4);
    expect(data.map((s: Json) => [s.trigger, s.status])).toEqual([
      ['manual', 'failed'],
      ['backfill', 'success'],
      ['manual', 'success'],
      ['manual', 'success'],
    ]);
    const [failed, backfill, second, first] = data;
    expect(failed.error).toMatch(/^Twilio answered 401/);
    expect(failed.error).not.toContain(stack.stubs.twilio.authToken);
    expect(backfill.window).toEqual(window);
    expect(backfill.reconciled).toBe(false);
    // The toggle's first sync reads the calls; the next reads them again unchanged and writes nothing.
    expect(first.records.created).toBeGreaterThanOrEqual(4);
    expect(first.reconciled).toBe(true);
    expect(second.records).toMatchObject({ created: 0, updated: 0 });
    expect(second.records.unchanged).toBeGreaterThanOrEqual(4);
    // A failed page's own requests are not counted: the run reports what its finished pages sent.
    for (const s of [backfill, second, first]) expect(s.vendorRequests).toBeGreaterThanOrEqual(1);
    for (const s of data) {
      expect(s.durationMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(s.finishedAt)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
    }
    expect((await history(org, id, '?limit=2&offset=1')).data.map((s: Json) => s.id)).toEqual([backfill.id, second.id]);
  });
});

describe('a sync run begun by an earlier release (a deploy while it ran)', () => {
  it('goes on from the window and cursor its input carries, as one window without deletions', async () => {
    const calls = stack.stubs.twilio.addCalls(3, { start: hoursAgo(11), status: 'busy' });
    const { org, connection } = await orgWith('twilio', stack.stubs.twilio.connectionConfig);
    const id = await feedOn(org, 'twilio:calls', connection);
    stack.stubs.twilio.deleteCalls([calls[2].sid]);
    const window = { startDate: hoursAgo(12).toISOString(), endDate: hoursAgo(10).toISOString() };
    const { client } = stack.h.services.temporal;
    // The input an earlier release continued as new with: a window, a cursor and three counts.
    const handle = await client.workflow.start('dataFeedSync', {
      workflowId: `feed-sync:${id}`,
      taskQueue: stack.h.services.config.temporal.taskQueue,
      args: [{ organizationId: org.organizationId, dataSourceId: id, resume: { window, cursor: null, counts: { pages: 3, created: 7, updated: 0 } } }],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'success', reconciled: false, counts: expect.objectContaining({ pages: 4, created: 7, deleted: 0 }) });
    expect((await recordsOf(org, id)).has(calls[2].sid)).toBe(true);
    expect((await getSource(stack.h.app, org, id)).syncConfig).toMatchObject({ lastSyncStatus: 'success', lastSyncWindow: window });
  });
});
