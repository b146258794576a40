import { createTestOrg } from './factories';
import { expectError, expectStatus, type Harness, startHarness } from './harness';
import { dataStoreApi, expectInvalid, expectRecordShape, ms, recordUrl, TABLE_FIELDS, tableUrl } from './data-store-api';

/** Tables: GET /data-stores (every record), listing and creating tables, and deleting a table. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, insert, seed, read, keysOf, getRecord, tablesOf, everythingOf, dbRows, expire, expectNothingStored } = dataStoreApi(() => h);

describe('GET /data-stores', () => {
  test('{total, data} across tables with one __meta__ row per table, by table then key (bytewise)', async () => {
    const org = await createTestOrg(h.services);
    expect(await everythingOf(org)).toEqual({ total: 0, data: [] });
    expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: 'empty' }), 201);
    await seed(org, 'b-table', { a: { n: 1 }, B: { n: 2 } });
    await insert(org, { tableName: 'a-table', key: 'z', value: { n: 3 } });

    const all = await everythingOf(org);
    expect(Object.keys(all).sort()).toEqual(['data', 'total']);
    expect(all.total).toBe(6);
    // 'B' (0x42) < '__meta__' (0x5f) < 'a' (0x61)
    expect(all.data.map((r) => [r.tableName, r.key])).toEqual([
      ['a-table', '__meta__'],
      ['a-table', 'z'],
      ['b-table', 'B'],
      ['b-table', '__meta__'],
      ['b-table', 'a'],
      ['empty', '__meta__'],
    ]);
    for (const r of all.data) {
      expectRecordShape(r);
      expect(r.organizationId).toBe(org.organizationId);
      if (r.key === '__meta__') expect(r).toMatchObject({ value: { createdVia: 'api' }, expiresAt: null });
    }
    expect(all.data.find((r) => r.key === 'B')!.value).toEqual({ n: 2 });
  });

  test('limit and offset page through it, total stays the full count; bad limits are 400', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, { i }])));
    const all = await everythingOf(org);
    expect(all.total).toBe(10);
    const pages = [];
    // Ten rows (nine records and __meta__) in pages of 3: 3, 3, 3, the last 1, then nothing past the end.
    for (const [offset, length] of [
      [0, 3],
      [3, 3],
      [6, 3],
      [9, 1],
      [12, 0],
    ]) {
      const page = await everythingOf(org, { limit: 3, offset });
      expect(page.total).toBe(10);
      expect(page.data).toHaveLength(length);
      pages.push(...page.data);
    }
    expect(pages).toEqual(all.data);
    expect((await everythingOf(org, { limit: 1000 })).data).toHaveLength(10);
    for (const limit of [0, 1001, -1, 'abc', 1.5]) expectInvalid(await owner(org).get('/data-stores').query({ limit }), 'query.limit');
    expectInvalid(await owner(org).get('/data-stores').query({ offset: -1 }), 'query.offset');
    expectInvalid(await owner(org).get('/data-stores').query({ prefix: 'k' }), 'query.prefix');
  });
});

describe('/data-stores/tables', () => {
  test('GET lists tables by name with live record counts (not counting __meta__ or expired records)', async () => {
    const org = await createTestOrg(h.services);
    expect(await tablesOf(org)).toEqual({ total: 0, data: [] });
    const before = Date.now();
    expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: 'zeta' }), 201);
    await seed(org, 'beta', { a: {}, b: {}, gone: {} });
    await expire(org, 'beta', 'gone');
    await insert(org, { tableName: 'Alpha', key: 'x', value: {} });

    const list = await tablesOf(org);
    expect(Object.keys(list).sort()).toEqual(['data', 'total']);
    expect(list.total).toBe(3);
    expect(list.data.map((t) => [t.tableName, t.recordCount, t.createdVia])).toEqual([
      ['Alpha', 1, 'api'],
      ['beta', 2, 'api'],
      ['zeta', 0, 'api'],
    ]);
    for (const t of list.data) {
      expect(Object.keys(t).sort()).toEqual(TABLE_FIELDS);
      expect(new Date(t.createdAt).toISOString()).toBe(t.createdAt);
      expect(ms(t.createdAt)).toBeGreaterThan(before - 10_000);
    }
  });

  test('limit and offset: limit=1 gives one table and the full total; bad limits are 400', async () => {
    const org = await createTestOrg(h.services);
    for (const tableName of ['c', 'a', 'b']) expectStatus(await owner(org).post('/data-stores/tables').send({ tableName }), 201);
    const first = await tablesOf(org, { limit: 1 });
    expect(first.total).toBe(3);
    expect(first.data.map((t) => t.tableName)).toEqual(['a']);
    expect((await tablesOf(org, { limit: 1, offset: 2 })).data.map((t) => t.tableName)).toEqual(['c']);
    expect((await tablesOf(org, { offset: 3 })).data).toEqual([]);
    for (const limit of [0, 1001]) expectInvalid(await owner(org).get('/data-stores/tables').query({ limit }), 'query.limit');
  });

  test('POST creates an empty table (201), a second time is 409 table_exists', async () => {
    const org = await createTestOrg(h.services);
    const res = await owner(org).post('/data-stores/tables').send({ tableName: 'fresh' });
    expectStatus(res, 201);
    expect(Object.keys(res.body).sort()).toEqual(TABLE_FIELDS);
    expect(res.body).toMatchObject({ tableName: 'fresh', recordCount: 0, createdVia: 'api' });
    expect(await read(org, 'fresh')).toEqual({ data: [], nextAfter: null });
    expect((await tablesOf(org)).data).toEqual([res.body]);

    expectError(await owner(org).post('/data-stores/tables').send({ tableName: 'fresh' }), 409, 'table_exists');
    // Also for a table that came into being through a write.
    await insert(org, { tableName: 'written', key: 'k', value: {} });
    expectError(await owner(org).post('/data-stores/tables').send({ tableName: 'written' }), 409, 'table_exists');
    expect((await dbRows(org)).filter((r) => r.key === '__meta__')).toHaveLength(2);
    expect((await tablesOf(org)).total).toBe(2);
  });

  test('POST with a bad or missing name or an unknown field is 400 and creates nothing', async () => {
    const org = await createTestOrg(h.services);
    for (const body of [{}, { tableName: '' }, { tableName: '9t' }, { tableName: 'a b' }]) {
      expectInvalid(await owner(org).post('/data-stores/tables').send(body), 'tableName');
    }
    expectInvalid(await owner(org).post('/data-stores/tables').send({ tableName: 't', createdVia: 'import' }), 'createdVia');
    await expectNothingStored(org);
  });

  test('parallel creates of one table: one 201, the others 409, one __meta__ row', async () => {
    const org = await createTestOrg(h.services);
    const results = await Promise.all(Array.from({ length: 8 }, () => owner(org).post('/data-stores/tables').send({ tableName: 't' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    expect(await dbRows(org)).toHaveLength(1);
  });

  test('createdVia is "import" for a table first written by an import and keeps its origin afterwards', async () => {
    const org = await createTestOrg(h.services);
    const imported = await owner(org)
      .post(`${tableUrl('imported')}/import`)
      .set('Content-Type', 'application/x-ndjson')
      .send('{"key":"a","value":{"n":1}}\n{"key":"b","value":{"n":2}}\n');
    expectStatus(imported, 200);
    await insert(org, { tableName: 'imported', key: 'c', value: {} });
    await insert(org, { tableName: 'api-made', key: 'a', value: {} });
    const intoApiTable = await owner(org)
      .post(`${tableUrl('api-made')}/import`)
      .set('Content-Type', 'application/x-ndjson')
      .send('{"key":"b","value":{}}\n');
    expectStatus(intoApiTable, 200);
    expect((await tablesOf(org)).data.map((t) => [t.tableName, t.createdVia, t.recordCount])).toEqual([
      ['api-made', 'api', 2],
      ['imported', 'import', 3],
    ]);
  });
});

describe('DELETE /data-stores/tables/{tableName}', () => {
  test('200 {tableName, deletedRecords} not counting __meta__; the table is gone everywhere, others intact', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 'doomed', { a: {}, b: {}, c: {} });
    await seed(org, 'kept', { a: { v: 1 } });
    const res = await owner(org).delete(tableUrl('doomed'));
    expectStatus(res, 200);
    expect(res.body).toEqual({ tableName: 'doomed', deletedRecords: 3 });

    expect((await tablesOf(org)).data.map((t) => t.tableName)).toEqual(['kept']);
    expectError(await owner(org).get(tableUrl('doomed')), 404, 'not_found');
    expectError(await owner(org).get(recordUrl('doomed', 'a')), 404, 'not_found');
    expectError(await owner(org).delete(tableUrl('doomed')), 404, 'not_found');
    expect(await dbRows(org, 'doomed')).toEqual([]);
    expect((await everythingOf(org)).data.map((r) => r.tableName)).toEqual(['kept', 'kept']);
    expect((await getRecord(org, 'kept', 'a')).value).toEqual({ v: 1 });
  });

  test('an empty table deletes with 0; an unknown table is 404; a deleted table can be created again, empty', async () => {
    const org = await createTestOrg(h.services);
    expectError(await owner(org).delete(tableUrl('never')), 404, 'not_found');
    expectInvalid(await owner(org).delete(tableUrl('1bad')), 'params.tableName');
    expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: 'e' }), 201);
    expect((await owner(org).delete(tableUrl('e'))).body).toEqual({ tableName: 'e', deletedRecords: 0 });

    await seed(org, 'again', { old: {} });
    expectStatus(await owner(org).delete(tableUrl('again')), 200);
    expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: 'again' }), 201);
    expect(await keysOf(org, 'again')).toEqual([]);
  });
});
