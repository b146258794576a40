import type request from 'supertest';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const BASE = '/dashboards/data-sources';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SOURCE_FIELDS = [
  'builtIn',
  'connectionId',
  'connectionName',
  'createdAt',
  'dataStoreTableName',
  'effectiveHotPathMode',
  'enabled',
  'hotPathMode',
  'id',
  'name',
  'organizationId',
  'recordSchema',
  'servingEngine',
  'servingRelation',
  'sharedFromOrganizationId',
  'suid',
  'syncConfig',
  'type',
  'updatedAt',
  'userId',
  'windowDimensions',
];
const MISSING = '00000000-0000-4000-8000-000000000000';

const owner = (org: TestOrg) => as(h.app, org.ownerToken);
const tableUrl = (t: string) => `/data-stores/tables/${encodeURIComponent(t)}`;
const newTable = () => uniqueName('orders');

const FIELDS: Json = {
  placedAt: { type: 'date', label: 'Placed at', timeDimension: true },
  shippedAt: { type: 'date', label: 'Shipped at' },
  amount: { type: 'number', label: 'Amount', measure: true },
  qty: { type: 'number', label: 'Quantity' },
  region: { type: 'string', label: 'Region' },
};
const schema = (fields: Json = FIELDS) => ({ name: 'Orders', fields });
const sumExpr = { type: 'BinaryExpression', operator: '*', left: { type: 'Identifier', name: 'amount' }, right: { type: 'Identifier', name: 'qty' } };
const calcBody = (name = 'total', expression: Json = sumExpr) => ({ name, label: 'Total', type: 'number', expression, formula: 'amount * qty', measure: true });
const windowBody = (name = 'orderSeq', extra: Json = {}) => ({
  name,
  label: 'Seq',
  function: 'row_number',
  partitionBy: ['region'],
  orderBy: 'placedAt',
  direction: 'asc',
  semantic: 'lifetime',
  ...extra,
});

const seed = (org: TestOrg, table: string, records: Record<string, Json>) => seedRecords(h.app, org, table, records);
const emptyTable = async (org: TestOrg, table: string) => expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: table }), 201);

async function createSource(org: TestOrg, table: string, extra: Json = {}): Promise<Json> {
  const res = await owner(org)
    .post(BASE)
    .send({ name: 'Orders source', dataStoreTableName: table, recordSchema: schema(), ...extra });
  expectStatus(res, 201);
  return res.body;
}

/** A fresh org with a table holding `records` and a source over it. */
async function setup(records: Record<string, Json> = { a: { placedAt: '2024-01-05T10:00:00Z', amount: 10, qty: 2, region: 'eu' } }) {
  const org = await createTestOrg(h.services);
  const table = newTable();
  if (Object.keys(records).length > 0) await seed(org, table, records);
  else await emptyTable(org, table);
  const source = await createSource(org, table);
  return { org, table, source, url: `${BASE}/${source.id}` };
}

/** The serving relation's rows, key order, with numbers as JS numbers and dates as ISO strings. */
async function servingRows(relation: string, columns = ['placedAt', 'amount', 'qty', 'region']): Promise<Json[]> {
  const rows: Json[] = await h.services.db.query(`SELECT ${['__key', ...columns.map((c) => `"${c}"`)].join(', ')} FROM analytics."${relation}" ORDER BY __key`);
  const typed: Json[] = await h.services.db.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'analytics' AND table_name = $1 AND data_type = 'numeric'`,
    [relation],
  );
  const numeric = new Set(typed.map((r) => r.column_name));
  const plain = (k: string, v: unknown) => (v instanceof Date ? v.toISOString() : numeric.has(k) && v !== null ? Number(v) : v);
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(k, v)])));
}
const servingKeys = async (relation: string) => (await servingRows(relation, [])).map((r) => r.__key);
const relationExists = async (relation: string) => (await h.services.db.query(`SELECT to_regclass($1) AS r`, [`analytics."${relation}"`]))[0].r !== null;
const columnsOf = async (relation: string) =>
  (
    await h.services.db.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'analytics' AND table_name = $1 ORDER BY column_name`, [
      relation,
    ])
  ).map((r: Json) => r.column_name);
const indexesOf = async (relation: string) =>
  (await h.services.db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'analytics' AND tablename = $1 ORDER BY indexname`, [
    relation,
  ])) as Json[];

describe('create, read, list', () => {
  test('POST creates a source with the full shape and builds the serving relation from existing records', async () => {
    const org = await createTestOrg(h.services);
    const table = newTable();
    await seed(org, table, {
      k1: { placedAt: '2024-01-05T10:00:00Z', amount: 12.5, qty: 3, region: 'eu' },
      k2: { placedAt: '2024-01-06', amount: '7', region: 'us' },
    });
    const s = await createSource(org, table);
    expect(Object.keys(s).sort()).toEqual(SOURCE_FIELDS);
    expect(s).toEqual(
      expect.objectContaining({
        organizationId: org.organizationId,
        userId: org.ownerId,
        name: 'Orders source',
        type: 'custom',
        connectionId: null,
        connectionName: null,
        dataStoreTableName: table,
        sharedFromOrganizationId: null,
        recordSchema: { ...schema(), calculatedFields: [] },
        windowDimensions: [],
        syncConfig: null,
        enabled: true,
        servingEngine: 'postgres',
        hotPathMode: 'retain',
        effectiveHotPathMode: 'retain',
      }),
    );
    expect(s.id).toMatch(UUID);
    expect(s.servingRelation).toBe(`ds_${s.id.replace(/-/g, '_')}`);
    expect(new Date(s.createdAt).toISOString()).toBe(s.createdAt);
    expect(await servingRows(s.servingRelation)).toEqual([
      { __key: 'k1', placedAt: '2024-01-05T10:00:00.000Z', amount: 12.5, qty: 3, region: 'eu' },
      { __key: 'k2', placedAt: '2024-01-06T00:00:00.000Z', amount: 7, qty: null, region: 'us' },
    ]);
  });

  test('GET lists newest first and GET one returns it; a disabled source is paused', async () => {
    const { org, table, source: first } = await setup();
    const second = await createSource(org, table, { name: 'Second', enabled: false });
    expect(second.effectiveHotPathMode).toBe('paused');
    expect(second.hotPathMode).toBe('retain');
    const list = await owner(org).get(BASE);
    expectStatus(list, 200);
    // After them, the oldest: the organization's built-in run sources (Runs as data).
    const own = list.body.filter((s: Json) => !s.builtIn);
    expect(own.map((s: Json) => s.id)).toEqual([second.id, first.id]);
    expect(own.map((s: Json) => s.effectiveHotPathMode)).toEqual(['paused', 'retain']);
    expect(list.body.slice(2).map((s: Json) => s.type)).toEqual(['flowbase:run-steps', 'flowbase:runs']);
    const one = await owner(org).get(`${BASE}/${first.id}`);
    expectStatus(one, 200);
    expect(one.body).toEqual(first);
    const renamed = await owner(org).patch(`${BASE}/${first.id}`).send({ name: 'Renamed' });
    expectStatus(renamed, 200);
    expect(renamed.body).toEqual({ ...first, name: 'Renamed', updatedAt: expect.any(String) });
  });

  test('viewer reads and previews but cannot change; analyst can create', async () => {
    const { org, table, url } = await setup();
    const viewer = as(h.app, org.tokens.viewer);
    expectStatus(await viewer.get(BASE), 200);
    expectStatus(await viewer.get(url), 200);
    expectStatus(await viewer.post(`${url}/calculated-fields/preview`).send({ expression: sumExpr, type: 'number' }), 201);
    expectError(await viewer.post(BASE).send({ name: 'x', dataStoreTableName: table, recordSchema: schema() }), 403);
    expectError(await viewer.patch(url).send({ name: 'renamed' }), 403);
    expectError(await viewer.delete(url), 403);
    expectError(await viewer.post(`${url}/calculated-fields`).send(calcBody()), 403);
    expectError(await viewer.post(`${url}/reindex`), 403);
    const analyst = await as(h.app, org.tokens.analyst).post(BASE).send({ name: 'By analyst', dataStoreTableName: table, recordSchema: schema() });
    expectStatus(analyst, 201);
  });

  test.each([
    ['a field name starting with a digit', { '1st': { type: 'string', label: 'x' } }],
    ['a field name with a dash', { 'bad-name': { type: 'string', label: 'x' } }],
    ['the reserved name count', { count: { type: 'number', label: 'x' } }],
    ['a measure on a string field', { region: { type: 'string', label: 'x', measure: true } }],
    ['a time dimension on a number field', { amount: { type: 'number', label: 'x', timeDimension: true } }],
  ])('400 validation_failed for %s', async (_what, extra) => {
    const org = await createTestOrg(h.services);
    const table = newTable();
    await emptyTable(org, table);
    const res = await owner(org)
      .post(BASE)
      .send({ name: 'x', dataStoreTableName: table, recordSchema: schema({ ...FIELDS, ...extra }) });
    expectError(res, 400, 'validation_failed');
  });

  test('400 validation_failed unless exactly one time dimension', async () => {
    const org = await createTestOrg(h.services);
    const table = newTable();
    await emptyTable(org, table);
    const none = { ...FIELDS, placedAt: { type: 'date', label: 'Placed at' } };
    const two = { ...FIELDS, shippedAt: { type: 'date', label: 'Shipped at', timeDimension: true } };
    for (const fields of [none, two])
      expectError(
        await owner(org)
          .post(BASE)
          .send({ name: 'x', dataStoreTableName: table, recordSchema: schema(fields) }),
        400,
        'validation_failed',
      );
    expect((await owner(org).get(BASE)).body.filter((s: Json) => !s.builtIn)).toEqual([]);
  });

  test('400 unsupported_type, share_inactive and unknown_table; GET unknown id 404, non-UUID 400', async () => {
    const org = await createTestOrg(h.services);
    const table = newTable();
    await emptyTable(org, table);
    const body = { name: 'x', dataStoreTableName: table, recordSchema: schema() };
    expectError(
      await owner(org)
        .post(BASE)
        .send({ ...body, type: 'stripe' }),
      400,
      'unsupported_type',
    );
    expectError(
      await owner(org)
        .post(BASE)
        .send({ ...body, sharedFromOrganizationId: MISSING }),
      400,
      'share_inactive',
    );
    expectError(
      await owner(org)
        .post(BASE)
        .send({ ...body, dataStoreTableName: 'no_such_table' }),
      400,
      'unknown_table',
    );
    expect((await owner(org).get(BASE)).body.filter((s: Json) => !s.builtIn)).toEqual([]);
    expectError(await owner(org).get(`${BASE}/${MISSING}`), 404);
    expectError(await owner(org).get(`${BASE}/not-a-uuid`), 400);
  });
});

describe('serving relation in step with records', () => {
  test('values are converted per field type', async () => {
    const { org, table, source } = await setup({});
    await seed(org, table, {
      a: { placedAt: '2024-01-05T10:00:00', shippedAt: 1704448800000, amount: ' 12.5 ', qty: 'abc', region: 42 },
      b: { placedAt: '2024-03-01T12:00:00+02:00', shippedAt: '2024-02-30', amount: '1e3', qty: true, region: { x: 1 } },
      c: { placedAt: 'yesterday', amount: null, region: null },
    });
    expect(await servingRows(source.servingRelation, ['placedAt', 'shippedAt', 'amount', 'qty', 'region'])).toEqual([
      { __key: 'a', placedAt: '2024-01-05T10:00:00.000Z', shippedAt: '2024-01-05T10:00:00.000Z', amount: 12.5, qty: null, region: '42' },
      { __key: 'b', placedAt: '2024-03-01T10:00:00.000Z', shippedAt: null, amount: 1000, qty: null, region: '{"x": 1}' },
      { __key: 'c', placedAt: null, shippedAt: null, amount: null, qty: null, region: null },
    ]);
  });

  test('single upsert, PUT, PATCH and record DELETE are reflected as soon as they return', async () => {
    const { org, table, source } = await setup({});
    const rel = source.servingRelation;
    expectStatus(
      await owner(org)
        .post(tableUrl(table))
        .send({ key: 'x', value: { placedAt: '2024-01-01', amount: 1, region: 'eu' } }),
      201,
    );
    expect(await servingRows(rel)).toEqual([{ __key: 'x', placedAt: '2024-01-01T00:00:00.000Z', amount: 1, qty: null, region: 'eu' }]);
    expectStatus(
      await owner(org)
        .put(`${tableUrl(table)}/records/y`)
        .send({ value: { placedAt: '2024-01-02', amount: 2 } }),
      201,
    );
    expectStatus(
      await owner(org)
        .patch(`${tableUrl(table)}/records/x`)
        .send({ value: { qty: 5 } }),
      200,
    );
    expect(await servingRows(rel)).toEqual([
      { __key: 'x', placedAt: '2024-01-01T00:00:00.000Z', amount: 1, qty: 5, region: 'eu' },
      { __key: 'y', placedAt: '2024-01-02T00:00:00.000Z', amount: 2, qty: null, region: null },
    ]);
    expectStatus(await owner(org).delete(`${tableUrl(table)}/records/x`), 200);
    expect(await servingKeys(rel)).toEqual(['y']);
  });

  test('deleting the whole table empties the serving relation', async () => {
    const { org, table, source } = await setup({ a: { amount: 1 }, b: { amount: 2 } });
    expect(await servingKeys(source.servingRelation)).toEqual(['a', 'b']);
    expectStatus(await owner(org).delete(tableUrl(table)), 200);
    expect(await servingKeys(source.servingRelation)).toEqual([]);
  });

  test('a bulk import (CSV, numbers inferred) and a failed one: the serving relation follows what committed', async () => {
    const { org, table, source } = await setup({ a: { placedAt: '2024-01-01T00:00:00Z', amount: 1, region: 'eu' } });
    const importCsv = (csv: string) =>
      owner(org)
        .post(`${tableUrl(table)}/import`)
        .set('Content-Type', 'text/csv')
        .send(csv);
    expectStatus(await importCsv('key,placedAt,amount,region\na,2024-02-01T00:00:00Z,5,us\nb,2024-02-02T00:00:00Z,6.5,eu\n'), 200);
    expect(await servingRows(source.servingRelation)).toEqual([
      { __key: 'a', placedAt: '2024-02-01T00:00:00.000Z', amount: 5, qty: null, region: 'us' },
      { __key: 'b', placedAt: '2024-02-02T00:00:00.000Z', amount: 6.5, qty: null, region: 'eu' },
    ]);
    // A rejected import keeps nothing, in the records and in the serving relation alike.
    expectError(await importCsv('key,amount\nc,1\n__bad__,2\n'), 400, 'import_rejected');
    expect(await servingKeys(source.servingRelation)).toEqual(['a', 'b']);
  });

  test('a write through the workflow path (dataStores.upsert) lands in the serving relation', async () => {
    const { org, table, source } = await setup({});
    await h.services.dataStores.upsert(
      org.organizationId,
      table,
      [{ key: 'wf', value: { placedAt: '2024-05-01T00:00:00Z', amount: 9, region: 'apac' } }],
      'workflow',
    );
    expect(await servingRows(source.servingRelation)).toEqual([{ __key: 'wf', placedAt: '2024-05-01T00:00:00.000Z', amount: 9, qty: null, region: 'apac' }]);
  });

  test('an expired record is excluded from preview', async () => {
    const { org, table, url, source } = await setup({ a: { amount: 1, qty: 1 }, b: { amount: 2, qty: 1 } });
    expectStatus(
      await owner(org)
        .post(tableUrl(table))
        .send({ key: 'c', value: { amount: 3, qty: 1 }, ttlSeconds: 3600 }),
      201,
    );
    const [row] = await h.services.db.query(`SELECT __expires_at FROM analytics."${source.servingRelation}" WHERE __key = 'c'`);
    expect(row.__expires_at).toBeInstanceOf(Date);
    await h.services.db.query(
      `UPDATE data_store_records SET expires_at = now() - interval '1 second' WHERE organization_id = $1 AND table_name = $2 AND key = 'c'`,
      [org.organizationId, table],
    );
    const res = await owner(org).post(`${url}/calculated-fields/preview`).send({ expression: sumExpr, type: 'number' });
    expectStatus(res, 201);
    expect(res.body).toEqual({ values: [1, 2] });
  });
});

describe('PATCH and DELETE', () => {
  test('changing the time dimension needs confirmTimeFieldRekey; then the relation is rebuilt', async () => {
    const { org, url, source } = await setup({ a: { placedAt: '2024-01-01', shippedAt: '2024-02-01', amount: 1 } });
    const fields = {
      ...FIELDS,
      placedAt: { type: 'date', label: 'Placed at' },
      shippedAt: { type: 'date', label: 'Shipped at', timeDimension: true },
      note: { type: 'string', label: 'Note' },
    };
    expectError(
      await owner(org)
        .patch(url)
        .send({ recordSchema: schema(fields) }),
      400,
      'time_field_rekey_unconfirmed',
    );
    expect((await owner(org).get(url)).body.recordSchema).toEqual({ ...schema(), calculatedFields: [] });
    expect(await columnsOf(source.servingRelation)).not.toContain('note');
    const ok = await owner(org)
      .patch(url)
      .send({ recordSchema: schema(fields), confirmTimeFieldRekey: true });
    expectStatus(ok, 200);
    expect(ok.body.recordSchema.fields).toEqual(fields);
    expect(await columnsOf(source.servingRelation)).toEqual(['__expires_at', '__key', 'amount', 'note', 'placedAt', 'qty', 'region', 'shippedAt'].sort());
    const time = (await indexesOf(source.servingRelation)).find((i) => i.indexname === `${source.servingRelation}_time`);
    expect(time?.indexdef).toContain('("shippedAt")');
    expect(await servingRows(source.servingRelation, ['shippedAt', 'amount'])).toEqual([{ __key: 'a', shippedAt: '2024-02-01T00:00:00.000Z', amount: 1 }]);
  });

  test('a schema removing a field used by a calculated field or window dimension is 400', async () => {
    const { org, url } = await setup();
    expectStatus(await owner(org).post(`${url}/calculated-fields`).send(calcBody()), 201);
    expectStatus(await owner(org).post(`${url}/window-dimensions`).send(windowBody()), 201);
    const { qty: _qty, ...withoutQty } = FIELDS;
    expectError(
      await owner(org)
        .patch(url)
        .send({ recordSchema: schema(withoutQty) }),
      400,
      'validation_failed',
    );
    const { region: _region, ...withoutRegion } = FIELDS;
    expectError(
      await owner(org)
        .patch(url)
        .send({ recordSchema: schema(withoutRegion) }),
      400,
      'validation_failed',
    );
    expect(Object.keys((await owner(org).get(url)).body.recordSchema.fields).sort()).toEqual(Object.keys(FIELDS).sort());
  });

  test('disabling pauses the relation; re-enabling catches up', async () => {
    const { org, table, url, source } = await setup({ a: { amount: 1 } });
    const off = await owner(org).patch(url).send({ enabled: false });
    expectStatus(off, 200);
    expect(off.body).toEqual(expect.objectContaining({ enabled: false, effectiveHotPathMode: 'paused', hotPathMode: 'retain' }));
    await seed(org, table, { b: { amount: 2 }, a: { amount: 10 } });
    expect(await servingRows(source.servingRelation, ['amount'])).toEqual([{ __key: 'a', amount: 1 }]);
    const on = await owner(org).patch(url).send({ enabled: true });
    expectStatus(on, 200);
    expect(on.body.effectiveHotPathMode).toBe('retain');
    expect(await servingRows(source.servingRelation, ['amount'])).toEqual([
      { __key: 'a', amount: 10 },
      { __key: 'b', amount: 2 },
    ]);
  });

  test('DELETE drops the serving relation and keeps the records', async () => {
    const { org, table, url, source } = await setup({ a: { amount: 1 } });
    expect(await relationExists(source.servingRelation)).toBe(true);
    const res = await owner(org).delete(url);
    expectStatus(res, 200);
    expect(res.body).toEqual({ deleted: true });
    expect(await relationExists(source.servingRelation)).toBe(false);
    expectError(await owner(org).get(url), 404);
    expectError(await owner(org).delete(url), 404);
    const records = await owner(org).get(tableUrl(table));
    expect(records.body.data.map((r: Json) => r.key)).toEqual(['a']);
  });
});

describe('refresh-schema and reindex', () => {
  test('refresh-schema adds inferred fields and keeps existing flags and calculated fields', async () => {
    const { org, url, source } = await setup({
      a: { placedAt: '2024-01-01', amount: 1, qty: 1, discount: 5, coupon: 'X1', deliveredAt: '2024-01-03T08:00:00Z', 'bad name': 1, weight: '2.5' },
      b: { placedAt: '2024-01-02', amount: 2, qty: 1, discount: '7', coupon: 3, deliveredAt: '2024-01-04' },
    });
    const calc = await owner(org).post(`${url}/calculated-fields`).send(calcBody());
    expectStatus(calc, 201);
    const res = await owner(org).post(`${url}/refresh-schema`);
    expectStatus(res, 201);
    expect([...res.body.addedFields].sort()).toEqual(['coupon', 'deliveredAt', 'discount', 'weight']);
    expect(res.body.skippedFields).toEqual(['bad name']);
    expect(res.body.recordSchema.fields).toEqual({
      ...FIELDS,
      discount: { type: 'number', label: 'Discount', measure: true },
      weight: { type: 'number', label: 'Weight', measure: true },
      coupon: { type: 'string', label: 'Coupon' },
      deliveredAt: { type: 'date', label: 'Delivered at' },
    });
    expect(res.body.recordSchema.calculatedFields).toEqual([calc.body]);
    expect(res.body.id).toBe(source.id);
    expect(await servingRows(source.servingRelation, ['discount', 'coupon', 'deliveredAt'])).toEqual([
      { __key: 'a', discount: 5, coupon: 'X1', deliveredAt: '2024-01-03T08:00:00.000Z' },
      { __key: 'b', discount: 7, coupon: '3', deliveredAt: '2024-01-04T00:00:00.000Z' },
    ]);
  });

  test('refresh-schema without records returns refreshed:false and changes nothing', async () => {
    const { org, url, source } = await setup({});
    const res = await owner(org).post(`${url}/refresh-schema`);
    expectStatus(res, 201);
    expect(res.body).toEqual({ refreshed: false, message: expect.any(String) });
    expect((await owner(org).get(url)).body.recordSchema).toEqual(source.recordSchema);
  });

  test('reindex recreates the indexes (one per window dimension) and keeps the data', async () => {
    const { org, url, source } = await setup({
      a: { placedAt: '2024-01-01', amount: 1, region: 'eu' },
      b: { placedAt: '2024-01-02', amount: 2, region: 'us' },
    });
    const rel = source.servingRelation;
    const before = await servingRows(rel);
    expect((await indexesOf(rel)).map((i) => i.indexname)).toEqual([`${rel}_pkey`, `${rel}_time`]);
    expectStatus(await owner(org).post(`${url}/window-dimensions`).send(windowBody()), 201);
    expectStatus(
      await owner(org)
        .post(`${url}/window-dimensions`)
        .send(windowBody('amountRank', { partitionBy: [], orderBy: 'amount', direction: 'desc' })),
      201,
    );
    await h.services.db.query(`DROP INDEX analytics."${rel}_w1"`);
    const res = await owner(org).post(`${url}/reindex`);
    expectStatus(res, 201);
    expect(res.body).toEqual({ reindexed: true });
    const indexes = await indexesOf(rel);
    expect(indexes.map((i) => i.indexname)).toEqual([`${rel}_pkey`, `${rel}_time`, `${rel}_w0`, `${rel}_w1`]);
    expect(indexes[2].indexdef).toContain('(region, "placedAt")');
    expect(indexes[3].indexdef).toContain('(amount)');
    expect(await servingRows(rel)).toEqual(before);
  });
});

describe('calculated fields', () => {
  test('create, patch and delete; the field is listed on the source', async () => {
    const { org, url } = await setup();
    const created = await owner(org).post(`${url}/calculated-fields`).send(calcBody());
    expectStatus(created, 201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID), ...calcBody() });
    expect((await owner(org).get(url)).body.recordSchema.calculatedFields).toEqual([created.body]);
    const fieldUrl = `${url}/calculated-fields/${created.body.id}`;
    const change = { label: 'Order total', name: 'orderTotal', formula: 'amount * qty', measure: false };
    const patched = await owner(org).patch(fieldUrl).send(change);
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...created.body, ...change });
    expect((await owner(org).get(url)).body.recordSchema.calculatedFields).toEqual([patched.body]);
    const deleted = await owner(org).delete(fieldUrl);
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await owner(org).get(url)).body.recordSchema.calculatedFields).toEqual([]);
    expectError(await owner(org).patch(fieldUrl).send({ label: 'x' }), 404);
    expectError(await owner(org).delete(fieldUrl), 404);
  });

  test('PATCH changes only the attributes given (formula and measure are kept)', async () => {
    const { org, url } = await setup();
    const created = (await owner(org).post(`${url}/calculated-fields`).send(calcBody())).body;
    const patched = await owner(org).patch(`${url}/calculated-fields/${created.id}`).send({ label: 'Renamed' });
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...created, label: 'Renamed' });
    expect((await owner(org).get(url)).body.recordSchema.calculatedFields).toEqual([{ ...created, label: 'Renamed' }]);
  });

  test('name collisions are 400', async () => {
    const { org, url } = await setup();
    expectStatus(await owner(org).post(`${url}/calculated-fields`).send(calcBody('total')), 201);
    expectStatus(await owner(org).post(`${url}/window-dimensions`).send(windowBody('seq')), 201);
    for (const name of ['amount', 'total', 'seq', 'count'])
      expectError(await owner(org).post(`${url}/calculated-fields`).send(calcBody(name)), 400, 'validation_failed');
    expect((await owner(org).get(url)).body.recordSchema.calculatedFields.map((c: Json) => c.name)).toEqual(['total']);
  });

  test('an expression naming a missing or non-number field is 400', async () => {
    const { org, url } = await setup();
    for (const name of ['nope', 'region', 'placedAt']) {
      const expression = { type: 'BinaryExpression', operator: '+', left: { type: 'Identifier', name: 'amount' }, right: { type: 'Identifier', name } };
      expectError(await owner(org).post(`${url}/calculated-fields`).send(calcBody('bad', expression)), 400, 'validation_failed');
      expectError(await owner(org).post(`${url}/calculated-fields/preview`).send({ expression, type: 'number' }), 400, 'validation_failed');
    }
  });

  test('preview evaluates over the first 20 rows in key order, null on zero divisors and bad values, saving nothing', async () => {
    const records: Record<string, Json> = { k00: { amount: 10, qty: 0 }, k01: { amount: 10, qty: 'x' }, k02: { amount: 9, qty: 4 }, k03: { qty: 2 } };
    for (let i = 4; i < 25; i++) records[`k${String(i).padStart(2, '0')}`] = { amount: i, qty: 1 };
    const { org, url, source } = await setup(records);
    const divide = (operator: string) => ({
      type: 'BinaryExpression',
      operator,
      left: { type: 'Identifier', name: 'amount' },
      right: { type: 'Identifier', name: 'qty' },
    });
    const res = await owner(org)
      .post(`${url}/calculated-fields/preview`)
      .send({ expression: divide('/'), type: 'number' });
    expectStatus(res, 201);
    expect(res.body.values).toEqual([null, null, 2.25, null, ...Array.from({ length: 16 }, (_, i) => i + 4)]);
    const mod = await owner(org)
      .post(`${url}/calculated-fields/preview`)
      .send({ expression: divide('%') });
    expect(mod.body.values.slice(0, 4)).toEqual([null, null, 1, null]);
    const literal = {
      type: 'BinaryExpression',
      operator: '-',
      left: { type: 'Identifier', name: 'amount' },
      right: { type: 'Literal', value: 0.5, raw: '0.5' },
    };
    expect((await owner(org).post(`${url}/calculated-fields/preview`).send({ expression: literal })).body.values.slice(0, 4)).toEqual([9.5, 9.5, 8.5, null]);
    expect((await owner(org).get(url)).body.recordSchema).toEqual(source.recordSchema);
  });
});

describe('window dimensions', () => {
  test('create, patch and delete', async () => {
    const { org, url, source } = await setup();
    const created = await owner(org).post(`${url}/window-dimensions`).send(windowBody());
    expectStatus(created, 201);
    expect(created.body).toEqual({ id: expect.stringMatching(UUID), ...windowBody() });
    expect((await owner(org).get(url)).body.windowDimensions).toEqual([created.body]);
    const wUrl = `${url}/window-dimensions/${created.body.id}`;
    const patched = await owner(org).patch(wUrl).send({ direction: 'desc', partitionBy: [] });
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...created.body, direction: 'desc', partitionBy: [] });
    const w0 = (await indexesOf(source.servingRelation)).find((i) => i.indexname === `${source.servingRelation}_w0`);
    expect(w0?.indexdef).toContain('("placedAt")');
    const deleted = await owner(org).delete(wUrl);
    expectStatus(deleted, 200);
    expect(deleted.body).toEqual({ deleted: true });
    expect((await owner(org).get(url)).body.windowDimensions).toEqual([]);
    expect((await indexesOf(source.servingRelation)).map((i) => i.indexname)).toEqual([`${source.servingRelation}_pkey`, `${source.servingRelation}_time`]);
    expectError(await owner(org).patch(wUrl).send({ label: 'x' }), 404);
    expectError(await owner(org).delete(wUrl), 404);
  });

  test('PATCH changes only the attributes given (partitionBy and direction are kept)', async () => {
    const { org, url } = await setup();
    const created = (
      await owner(org)
        .post(`${url}/window-dimensions`)
        .send(windowBody('seq', { direction: 'desc' }))
    ).body;
    const patched = await owner(org).patch(`${url}/window-dimensions/${created.id}`).send({ label: 'Renamed' });
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...created, label: 'Renamed' });
    expect((await owner(org).get(url)).body.windowDimensions).toEqual([{ ...created, label: 'Renamed' }]);
  });

  test('taken names, unknown fields and other functions are 400', async () => {
    const { org, url } = await setup();
    expectStatus(await owner(org).post(`${url}/calculated-fields`).send(calcBody('total')), 201);
    expectStatus(await owner(org).post(`${url}/window-dimensions`).send(windowBody('seq')), 201);
    for (const name of ['amount', 'total', 'seq'])
      expectError(await owner(org).post(`${url}/window-dimensions`).send(windowBody(name)), 400, 'validation_failed');
    expectError(
      await owner(org)
        .post(`${url}/window-dimensions`)
        .send(windowBody('w2', { partitionBy: ['nope'] })),
      400,
      'validation_failed',
    );
    expectError(
      await owner(org)
        .post(`${url}/window-dimensions`)
        .send(windowBody('w3', { orderBy: 'nope' })),
      400,
      'validation_failed',
    );
    expectError(
      await owner(org)
        .post(`${url}/window-dimensions`)
        .send(windowBody('w4', { function: 'rank' })),
      400,
      'validation_failed',
    );
    expect((await owner(org).get(url)).body.windowDimensions.map((w: Json) => w.name)).toEqual(['seq']);
  });
});

describe('tenant isolation', () => {
  test('another organization gets 404 on every route of a source and cannot see or reuse its table', async () => {
    const { org, table, url, source } = await setup();
    const calc = (await owner(org).post(`${url}/calculated-fields`).send(calcBody())).body;
    const win = (await owner(org).post(`${url}/window-dimensions`).send(windowBody())).body;
    const other = owner(await createTestOrg(h.services));
    const calcsUrl = `${url}/calculated-fields`,
      winsUrl = `${url}/window-dimensions`;
    const calls: Array<[string, request.Test]> = [
      ['GET', other.get(url)],
      ['PATCH', other.patch(url).send({ name: 'stolen' })],
      ['DELETE', other.delete(url)],
      ['refresh', other.post(`${url}/refresh-schema`)],
      ['reindex', other.post(`${url}/reindex`)],
      ['calc add', other.post(calcsUrl).send(calcBody('other'))],
      ['preview', other.post(`${calcsUrl}/preview`).send({ expression: sumExpr, type: 'number' })],
      ['calc patch', other.patch(`${calcsUrl}/${calc.id}`).send({ label: 'x' })],
      ['calc delete', other.delete(`${calcsUrl}/${calc.id}`)],
      ['window add', other.post(winsUrl).send(windowBody('other'))],
      ['window patch', other.patch(`${winsUrl}/${win.id}`).send({ label: 'x' })],
      ['window delete', other.delete(`${winsUrl}/${win.id}`)],
    ];
    for (const [what, call] of calls) {
      const res = await call;
      expect({ what, status: res.status }).toEqual({ what, status: 404 });
      expectError(res, 404);
    }
    expect((await other.get(BASE)).body.filter((s: Json) => !s.builtIn)).toEqual([]);
    expectError(await other.post(BASE).send({ name: 'x', dataStoreTableName: table, recordSchema: schema() }), 400, 'unknown_table');
    const mine = await owner(org).get(url);
    expect(mine.body).toEqual(expect.objectContaining({ name: source.name, windowDimensions: [win] }));
    expect(mine.body.recordSchema.calculatedFields).toEqual([calc]);
    expect(await relationExists(source.servingRelation)).toBe(true);
  });
});

describe('concurrency', () => {
  test('concurrent edits of one source all persist (each takes the locked row in turn)', async () => {
    const { org, url } = await setup();
    const names = Array.from({ length: 8 }, (_, i) => `calc${i}`);
    const results = await Promise.all(names.map((name) => owner(org).post(`${url}/calculated-fields`).send(calcBody(name))));
    for (const res of results) expectStatus(res, 201);
    const after = await owner(org).get(url);
    expect(after.body.recordSchema.calculatedFields.map((c: Json) => c.name).sort()).toEqual(names);
  });

  test('writes racing a rebuild all reach the rebuilt serving relation', async () => {
    const records: Record<string, Json> = {};
    for (let i = 0; i < 500; i++)
      records[`k${String(i).padStart(4, '0')}`] = { placedAt: '2024-01-05T10:00:00Z', shippedAt: '2024-02-01T00:00:00Z', amount: i, qty: 1, region: 'eu' };
    const { org, table, source, url } = await setup(records);
    const writes = Array.from({ length: 20 }, (_, i) =>
      owner(org)
        .post(tableUrl(table))
        .send({
          key: `w${String(i).padStart(2, '0')}`,
          value: { placedAt: '2024-03-01T00:00:00Z', shippedAt: '2024-03-02T00:00:00Z', amount: 1000 + i, qty: 1, region: 'us' },
        }),
    );
    const rekey = owner(org)
      .patch(url)
      .send({
        recordSchema: schema({
          ...FIELDS,
          placedAt: { type: 'date', label: 'Placed at' },
          shippedAt: { type: 'date', label: 'Shipped at', timeDimension: true },
        }),
        confirmTimeFieldRekey: true,
      });
    const [rekeyed, ...written] = await Promise.all([rekey, ...writes]);
    expectStatus(rekeyed, 200);
    for (const res of written) expect([200, 201]).toContain(res.status);
    const keys = await servingKeys(source.servingRelation);
    expect(keys).toHaveLength(520);
    expect(keys.filter((k) => k.startsWith('w'))).toEqual(Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, '0')}`));
  });
});
