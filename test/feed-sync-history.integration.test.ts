import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { as, expectError, expectStatus } from './harness';
import { createTestOrg, seedRecords, uniqueName, type TestOrg } from './factories';
import { orgWithTwilio, startFeedStack, toggleTwilioOn, type FeedStack } from './data-feed-fixtures';
import { FEED_SYNC_HISTORY_LIMIT, FeedSyncsRepository, type FeedSyncOutcome, type SyncTrigger } from '../src/data-feeds/feed-syncs.repository';

/**
 * The sync history of feed-backed sources: FeedSyncsRepository's writes (as
 * the worker's activities make them) and GET /dashboards/data-sources/{id}/syncs.
 * No worker runs, so the only history is what each test writes itself.
 */
let stack: FeedStack;
let syncs: FeedSyncsRepository;
beforeAll(async () => {
  stack = await startFeedStack({ worker: false });
  syncs = new FeedSyncsRepository(stack.h.services.db);
}, 60_000);
afterAll(() => stack.close());

type Json = Record<string, any>;
const history = (org: TestOrg, id: string, query = '', token = org.ownerToken) => as(stack.h.app, token).get(`/dashboards/data-sources/${id}/syncs${query}`);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString();
const counts = { created: 3, updated: 2, unchanged: 7, deleted: 1, vendorRequests: 5, pages: 2 };
const success = (finishedAt: string): FeedSyncOutcome => ({ status: 'success', counts, reconciled: true, error: null, finishedAt });

/** A fresh organization with a twilio:calls source (its first sync stays queued: no worker). */
async function feedSource(): Promise<{ org: TestOrg; id: string }> {
  const { org, connection } = await orgWithTwilio(stack);
  return { org, id: await toggleTwilioOn(stack.h.app, org, connection) };
}

/** Begins a run of the source that started at `startedAt`; returns its id. */
async function begin(org: TestOrg, dataSourceId: string, startedAt: string, trigger: SyncTrigger = 'schedule'): Promise<string> {
  const id = randomUUID();
  await syncs.begin({
    id,
    organizationId: org.organizationId,
    dataSourceId,
    workflowId: `feed-sync:${dataSourceId}`,
    trigger,
    window: { startDate: at(0), endDate: startedAt },
    startedAt,
  });
  return id;
}

const rowsOf = async (dataSourceId: string): Promise<number> =>
  (await stack.h.services.db.query(`SELECT count(*)::int AS n FROM feed_syncs WHERE data_source_id = $1`, [dataSourceId]))[0].n;

describe('GET /dashboards/data-sources/{id}/syncs', () => {
  it('answers the runs newest first, each as the API shows it; a running one has no duration yet', async () => {
    const { org, id } = await feedSource();
    const first = await begin(org, id, at(10), 'manual');
    await syncs.finish(org.organizationId, first, success(at(12)));
    const second = await begin(org, id, at(20), 'backfill');
    await syncs.finish(org.organizationId, second, {
      status: 'failed',
      counts: { ...counts, created: 0 },
      reconciled: false,
      error: 'Twilio answered 401',
      finishedAt: at(21),
    });
    const running = await begin(org, id, at(30));

    const res = await history(org, id);
    expectStatus(res, 200);
    expect(res.body).toEqual({ total: 3, data: [expect.objectContaining({ id: running }), expect.objectContaining({ id: second }), expect.anything()] });
    expect(res.body.data[2]).toEqual({
      id: first,
      trigger: 'manual',
      status: 'success',
      window: { startDate: at(0), endDate: at(10) },
      records: { created: 3, updated: 2, unchanged: 7, deleted: 1 },
      vendorRequests: 5,
      pages: 2,
      reconciled: true,
      startedAt: at(10),
      finishedAt: at(12),
      durationMs: 120_000,
      error: null,
    });
    expect(res.body.data[1]).toMatchObject({ trigger: 'backfill', status: 'failed', error: 'Twilio answered 401', reconciled: false, durationMs: 60_000 });
    expect(res.body.data[0]).toMatchObject({
      trigger: 'schedule',
      status: 'running',
      records: { created: 0, updated: 0, unchanged: 0, deleted: 0 },
      finishedAt: null,
      durationMs: null,
      error: null,
    });
  });

  it('pages with limit and offset, the total counting every run', async () => {
    const { org, id } = await feedSource();
    const ids: string[] = [];
    for (let minute = 1; minute <= 5; minute++) ids.push(await begin(org, id, at(minute)));
    const newestFirst = [...ids].reverse();

    const page = await history(org, id, '?limit=2&offset=1');
    expectStatus(page, 200);
    expect(page.body.total).toBe(5);
    expect(page.body.data.map((s: Json) => s.id)).toEqual(newestFirst.slice(1, 3));
    expect((await history(org, id, '?offset=5')).body).toEqual({ total: 5, data: [] });
    expectError(await history(org, id, '?limit=0'), 400);
  });

  it('is 404 for another organization, exactly as reading the source; a viewer may read it', async () => {
    const { org, id } = await feedSource();
    await begin(org, id, at(1));
    const other = await createTestOrg(stack.h.services);

    const theirs = await history(other, id);
    expectError(theirs, 404);
    const { requestId: _, ...readingIt } = (await as(stack.h.app, other.ownerToken).get(`/dashboards/data-sources/${id}`)).body.error;
    expect(theirs.body.error).toEqual({ ...readingIt, requestId: expect.any(String) });
    expectError(await history(org, randomUUID()), 404);
    expectError(await history(org, 'not-a-uuid'), 400);

    const asViewer = await history(org, id, '', org.tokens.viewer);
    expectStatus(asViewer, 200);
    expect(asViewer.body.total).toBe(1);
  });

  it('answers an empty page for a custom source, which never syncs', async () => {
    const org = await createTestOrg(stack.h.services);
    const table = uniqueName('orders');
    await seedRecords(stack.h.app, org, table, { a: { placedAt: '2026-11-01T00:00:00Z', amount: 1 } });
    const created = await as(stack.h.app, org.ownerToken)
      .post('/dashboards/data-sources')
      .send({
        name: 'Orders',
        dataStoreTableName: table,
        recordSchema: {
          name: 'Orders',
          fields: { placedAt: { type: 'date', label: 'Placed at', timeDimension: true }, amount: { type: 'number', label: 'Amount' } },
        },
      });
    expectStatus(created, 201);
    expect(created.body.type).toBe('custom');

    expect((await history(org, created.body.id)).body).toEqual({ total: 0, data: [] });
  });

  it('is in the OpenAPI document, with its query and a summary', async () => {
    const document = await request(stack.h.app).get('/openapi.json');
    const operation = document.body.paths['/dashboards/data-sources/{dataSourceId}/syncs'].get;
    expect(operation.summary).toMatch(/newest first/);
    expect(operation.parameters.map((p: Json) => p.name).sort()).toEqual(['dataSourceId', 'limit', 'offset']);
    expect(operation.description).toBe('Permission: `dashboards:view`.');
  });
});

describe('FeedSyncsRepository', () => {
  it('begin and finish are idempotent: a retried begin writes one row, a second finish keeps the first outcome', async () => {
    const { org, id } = await feedSource();
    const run = { id: randomUUID(), organizationId: org.organizationId, dataSourceId: id, workflowId: `feed-sync:${id}`, trigger: 'manual' as const };
    await syncs.begin({ ...run, window: { startDate: at(0), endDate: at(5) }, startedAt: at(5) });
    await syncs.begin({ ...run, window: { startDate: at(0), endDate: at(6) }, startedAt: at(6) });
    await syncs.finish(org.organizationId, run.id, success(at(7)));
    await syncs.finish(org.organizationId, run.id, {
      status: 'failed',
      counts: { ...counts, created: 99 },
      reconciled: false,
      error: 'late',
      finishedAt: at(9),
    });
    // A begin retried after the finish does not bring the run back to running.
    await syncs.begin({ ...run, window: { startDate: at(0), endDate: at(5) }, startedAt: at(5) });

    const { total, data } = await syncs.list(org.organizationId, id, { limit: 10, offset: 0 });
    expect(total).toBe(1);
    expect(data[0]).toMatchObject({
      id: run.id,
      status: 'success',
      counts,
      reconciled: true,
      error: null,
      window: { endDate: new Date(at(5)) },
      startedAt: new Date(at(5)),
      finishedAt: new Date(at(7)),
    });
  });

  it('is scoped by organization: another organization can neither begin, finish nor list a run of the source', async () => {
    const { org, id } = await feedSource();
    const other = await createTestOrg(stack.h.services);
    const mine = await begin(org, id, at(1));
    await begin(other, id, at(2));
    await syncs.finish(other.organizationId, mine, success(at(3)));

    expect(await syncs.list(other.organizationId, id, { limit: 10, offset: 0 })).toEqual({ total: 0, data: [] });
    const { data } = await syncs.list(org.organizationId, id, { limit: 10, offset: 0 });
    expect(data).toEqual([expect.objectContaining({ id: mine, status: 'running' })]);
  });

  it(`keeps the newest ${FEED_SYNC_HISTORY_LIMIT} runs of a source as runs begin`, async () => {
    const { org, id } = await feedSource();
    const { id: otherSource } = await feedSource();
    const ids: string[] = [];
    for (let minute = 0; minute < FEED_SYNC_HISTORY_LIMIT + 5; minute++) ids.push(await begin(org, id, at(minute)));

    const { total, data } = await syncs.list(org.organizationId, id, { limit: 1000, offset: 0 });
    expect(total).toBe(FEED_SYNC_HISTORY_LIMIT);
    expect(data.map((s) => s.id)).toEqual(ids.slice(5).reverse());
    expect(await rowsOf(otherSource)).toBe(0);
  }, 120_000);

  it('goes with its source: deleting the source deletes its history, and a run beginning after that writes nothing', async () => {
    const { org, id } = await feedSource();
    await begin(org, id, at(1));
    expect(await rowsOf(id)).toBe(1);

    expectStatus(await as(stack.h.app, org.ownerToken).delete(`/dashboards/data-sources/${id}`), 200);
    expect(await rowsOf(id)).toBe(0);
    await begin(org, id, at(2));
    expect(await rowsOf(id)).toBe(0);
  });
});
