import { RecordPurger } from '../src/data-stores/record-purger';
import { DataStoresRepository } from '../src/data-stores/data-stores.repository';
import request from 'supertest';
import { ROLES, roleHas } from '../src/auth/roles';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Json = Record<string, any>;
type Query = Record<string, string | number>;
type Client = ReturnType<typeof as>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** interface.md 2.8, exactly. */
const RECORD_FIELDS = ['createdAt', 'expiresAt', 'id', 'key', 'organizationId', 'recordTimestamp', 'suid', 'tableName', 'updatedAt', 'value'];
const TABLE_FIELDS = ['createdAt', 'createdVia', 'recordCount', 'tableName'];
const MAX_VALUE_BYTES = 256 * 1024;

const tableUrl = (table: string) => `/data-stores/tables/${encodeURIComponent(table)}`;
const recordUrl = (table: string, key: string) => `${tableUrl(table)}/records/${encodeURIComponent(key)}`;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

/** A value whose JSON serialization is exactly `bytes` bytes long. */
const valueOfSize = (bytes: number) => ({ a: 'x'.repeat(bytes - '{"a":""}'.length) });
/** PostgreSQL "C" collation order: UTF-8 bytes, i.e. code points. */
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const ms = (iso: string) => new Date(iso).getTime();
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
const recordsOf = (entries: Record<string, Json>) => Object.entries(entries).map(([key, value]) => ({ key, value }));

/** Asserts the status, showing the body when it is not the expected one. */
function expectStatus(res: request.Response, status: number) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
}

/** A 400 whose details name `path`. */
function expectInvalid(res: request.Response, path: string, code = 'validation_failed') {
  expectError(res, 400, code);
  expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
}

function expectRecordShape(r: Json) {
  expect(Object.keys(r).sort()).toEqual(RECORD_FIELDS);
  expect(r.id).toMatch(UUID);
  expect(typeof r.suid).toBe('string');
  expect(r.suid.length).toBeGreaterThan(0);
  for (const field of ['recordTimestamp', 'createdAt', 'updatedAt']) expect(new Date(r[field]).toISOString()).toBe(r[field]);
  if (r.expiresAt !== null) expect(new Date(r.expiresAt).toISOString()).toBe(r.expiresAt);
}

async function insert(org: TestOrg, body: Json): Promise<Json> {
  const res = await owner(org).post('/data-stores').send(body);
  expectStatus(res, 201);
  return res.body;
}

/** Batch upsert as the owner; the table is created if needed. */
async function seed(org: TestOrg, table: string, records: Record<string, Json>) {
  const res = await owner(org)
    .post(tableUrl(table))
    .send({ records: recordsOf(records) });
  expectStatus(res, 200);
  return res.body as { created: number; updated: number; data: Json[] };
}

async function put(org: TestOrg, table: string, key: string, body: Json, status?: number): Promise<Json> {
  const res = await owner(org).put(recordUrl(table, key)).send(body);
  if (status) expectStatus(res, status);
  else expect([200, 201]).toContain(res.status);
  return res.body;
}

async function read(org: TestOrg, table: string, query: Query = {}) {
  const res = await owner(org).get(tableUrl(table)).query(query);
  expectStatus(res, 200);
  return res.body as { data: Json[]; nextAfter: string | null; total?: number };
}

const keysOf = async (org: TestOrg, table: string, query: Query = {}) => (await read(org, table, query)).data.map((r) => r.key as string);
const filtered = (org: TestOrg, table: string, where: unknown, query: Query = {}) => keysOf(org, table, { where: JSON.stringify(where), ...query });

async function getRecord(org: TestOrg, table: string, key: string) {
  const res = await owner(org).get(recordUrl(table, key));
  expectStatus(res, 200);
  return res.body as Json;
}

async function listOf(org: TestOrg, path: '/data-stores' | '/data-stores/tables', query: Query = {}) {
  const res = await owner(org).get(path).query(query);
  expectStatus(res, 200);
  return res.body as { total: number; data: Json[] };
}
const tablesOf = (org: TestOrg, query: Query = {}) => listOf(org, '/data-stores/tables', query);
const everythingOf = (org: TestOrg, query: Query = {}) => listOf(org, '/data-stores', query);

/** The organization's rows as stored, __meta__ and expired ones included. */
async function dbRows(org: TestOrg, table?: string): Promise<Json[]> {
  return h.services.db.query(
    `SELECT id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at FROM data_store_records
     WHERE organization_id = $1 AND ($2::text IS NULL OR table_name = $2) ORDER BY table_name, key`,
    [org.organizationId, table ?? null],
  );
}
const dbRow = async (org: TestOrg, table: string, key: string) => (await dbRows(org, table)).find((r) => r.key === key);

/** Moves a record's expiry into the past, as if its TTL had run out. */
async function expire(org: TestOrg, table: string, key: string) {
  const [, count] = await h.services.db.query(
    `UPDATE data_store_records SET expires_at = now() - interval '1 second' WHERE organization_id = $1 AND table_name = $2 AND key = $3`,
    [org.organizationId, table, key],
  );
  expect(count).toBe(1);
}

/**
 * Holds a row lock on one record in a transaction of its own while `during`
 * runs, to line up concurrent requests deterministically; commits after.
 * `untilBlocked(n)` resolves once n sessions wait, directly or in a chain, on this lock.
 */
async function withRowLocked<T>(org: TestOrg, table: string, key: string, during: (untilBlocked: (count: number) => Promise<void>) => Promise<T>): Promise<T> {
  const runner = h.services.db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  try {
    const locked = await runner.query(`SELECT id FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key = $3 FOR UPDATE`, [
      org.organizationId,
      table,
      key,
    ]);
    expect(locked).toHaveLength(1);
    const [{ pid }] = await runner.query(`SELECT pg_backend_pid() AS pid`);
    const untilBlocked = async (count: number) => {
      for (let i = 0; i < 250; i++) {
        const [{ n }] = await h.services.db.query(
          `WITH RECURSIVE blocked(pid) AS (
             SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
             UNION SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY(pg_blocking_pids(a.pid)))
           SELECT count(*)::int AS n FROM blocked`,
          [pid],
        );
        if (n >= count) return;
        await sleep(20);
      }
      throw new Error(`fewer than ${count} sessions got blocked`);
    };
    return await during(untilBlocked);
  } finally {
    await runner.commitTransaction();
    await runner.release();
  }
}

/** Starts a supertest request now (they are lazy) and returns its promise. */
const start = (req: request.Test): Promise<request.Response> => new Promise((resolve, reject) => req.then(resolve, reject));

async function expectNothingStored(org: TestOrg) {
  expect(await tablesOf(org)).toEqual({ total: 0, data: [] });
  expect(await dbRows(org)).toEqual([]);
}

describe('POST /data-stores (insert)', () => {
  test('201 with exactly the fields of interface.md 2.8, stored as returned', async () => {
    const org = await createTestOrg(h.services);
    const value = { total: 12.5, paid: true, items: [{ sku: 'a', qty: 2 }], note: null, customer: { name: 'Zoë' } };
    const r = await insert(org, { tableName: 'orders', key: 'order:1', value });
    expectRecordShape(r);
    expect(r).toMatchObject({ organizationId: org.organizationId, tableName: 'orders', key: 'order:1', value, expiresAt: null });
    expect(r.updatedAt).toBe(r.createdAt);
    expect(Math.abs(ms(r.createdAt) - Date.now())).toBeLessThan(10_000);
    expect(Math.abs(ms(r.recordTimestamp) - ms(r.createdAt))).toBeLessThan(1000);
    expect(await getRecord(org, 'orders', 'order:1')).toEqual(r);
    const row = await dbRow(org, 'orders', 'order:1');
    expect(row).toMatchObject({ id: r.id, value, expires_at: null });

    // A given recordTimestamp is kept (normalized to UTC).
    const stamped = await insert(org, { tableName: 'orders', key: 'order:2', value: {}, recordTimestamp: '2020-01-02T05:04:05.678+02:00' });
    expect(stamped.recordTimestamp).toBe('2020-01-02T03:04:05.678Z');
    expect(stamped.value).toEqual({});
  });

  test('a second insert of the same table and key is 409 record_exists and leaves the stored record as it was', async () => {
    const org = await createTestOrg(h.services);
    const first = await insert(org, { tableName: 'orders', key: 'k', value: { v: 1 } });
    const dup = await owner(org)
      .post('/data-stores')
      .send({ tableName: 'orders', key: 'k', value: { v: 2 }, ttlSeconds: 60 });
    expectError(dup, 409, 'record_exists');
    expect(await getRecord(org, 'orders', 'k')).toEqual(first);
    expect((await dbRows(org, 'orders')).map((r) => [r.key, r.value, r.expires_at])).toEqual([
      ['__meta__', { createdVia: 'api' }, null],
      ['k', { v: 1 }, null],
    ]);
    // The key is unique per table only.
    await insert(org, { tableName: 'other', key: 'k', value: { v: 3 } });
  });

  test('concurrent inserts of one key: exactly one 201, the others 409', async () => {
    const org = await createTestOrg(h.services);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => owner(org).post('/data-stores').send({ tableName: 'race', key: 'k', value: { i } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const winner = results.find((r) => r.status === 201)!.body;
    expect(await getRecord(org, 'race', 'k')).toEqual(winner);
    expect(await dbRows(org, 'race')).toHaveLength(2);
  });

  test('400 naming each missing field; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const full = { tableName: 't', key: 'k', value: { a: 1 } };
    for (const field of ['tableName', 'key', 'value'] as const) {
      const { [field]: _omitted, ...body } = full;
      expectInvalid(await owner(org).post('/data-stores').send(body), field);
    }
    expectInvalid(await owner(org).post('/data-stores').send({}), 'tableName');
    await expectNothingStored(org);
  });

  test('400 when value is not a JSON object (array, string, null, number, boolean); nothing stored', async () => {
    const org = await createTestOrg(h.services);
    for (const value of [[1, 2], [], 'text', null, 42, true]) {
      expectInvalid(await owner(org).post('/data-stores').send({ tableName: 't', key: 'k', value }), 'value');
    }
    await expectNothingStored(org);
  });

  test('400 for bad table names; 63 characters and letters, digits, _ and - are fine', async () => {
    const org = await createTestOrg(h.services);
    for (const tableName of ['', '1orders', 'a'.repeat(64), 'my table', 'a/b', '_x', '-x', 'ünï', 'a.b', 42]) {
      expectInvalid(await owner(org).post('/data-stores').send({ tableName, key: 'k', value: {} }), 'tableName');
    }
    await expectNothingStored(org);
    for (const tableName of ['a'.repeat(63), 'A-b_9', 'x']) await insert(org, { tableName, key: 'k', value: {} });
    expect((await tablesOf(org)).total).toBe(3);
  });

  test('400 for bad keys (empty, 256 characters, control characters, reserved __name__); 255 characters is fine', async () => {
    const org = await createTestOrg(h.services);
    for (const key of ['', 'k'.repeat(256), 'a\nb', 'a\u0000b', '\t', 'a\u007fb', '__meta__', '__x__', '____', 7]) {
      expectInvalid(await owner(org).post('/data-stores').send({ tableName: 't', key, value: {} }), 'key');
    }
    await expectNothingStored(org);
    const ok = ['k'.repeat(255), '__x', '_x_', 'ünï 😀 / ?#%', ' '];
    for (const key of ok) expect((await insert(org, { tableName: 't', key, value: {} })).key).toBe(key);
    expect((await keysOf(org, 't')).sort()).toEqual([...ok].sort());
  });

  test('400 for expiry problems: past expiresAt, both expiresAt and ttlSeconds, malformed values; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const post = (extra: Json) =>
      owner(org)
        .post('/data-stores')
        .send({ tableName: 't', key: 'k', value: {}, ...extra });
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expectInvalid(await post({ expiresAt: new Date(Date.now() - 60_000).toISOString() }), 'expiresAt');
    expectInvalid(await post({ expiresAt: future, ttlSeconds: 60 }), 'ttlSeconds');
    for (const expiresAt of ['tomorrow', '2099-01-01T00:00:00', 1893456000]) expectInvalid(await post({ expiresAt }), 'expiresAt');
    for (const ttlSeconds of [0, -1, 1.5, '60', 400 * 24 * 3600 * 11]) expectInvalid(await post({ ttlSeconds }), 'ttlSeconds');
    expectInvalid(await post({ recordTimestamp: 'yesterday' }), 'recordTimestamp');
    await expectNothingStored(org);
  });

  test('value size: exactly 256 KiB serialized is accepted; one byte more (or multi-byte text over it) is 400 on value', async () => {
    const org = await createTestOrg(h.services);
    const tooBig = valueOfSize(MAX_VALUE_BYTES + 1);
    expectInvalid(await owner(org).post('/data-stores').send({ tableName: 't', key: 'big', value: tooBig }), 'value');
    // 'é' is 2 bytes in UTF-8: under the limit in characters, over it in bytes.
    const wide = { a: 'é'.repeat(MAX_VALUE_BYTES / 2) };
    expect(JSON.stringify(wide).length).toBeLessThan(MAX_VALUE_BYTES);
    expectInvalid(await owner(org).post('/data-stores').send({ tableName: 't', key: 'wide', value: wide }), 'value');
    await expectNothingStored(org);

    const atLimit = valueOfSize(MAX_VALUE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(atLimit))).toBe(MAX_VALUE_BYTES);
    await insert(org, { tableName: 't', key: 'limit', value: atLimit });
    expect((await getRecord(org, 't', 'limit')).value).toEqual(atLimit);
  });

  test('a NUL character anywhere in the value is 400; the six-character text "\\u0000" is fine', async () => {
    const org = await createTestOrg(h.services);
    const cases: Array<[Json, string]> = [
      [{ a: 'x\u0000y' }, 'value.a'],
      [{ nested: { deep: ['ok', '\u0000'] } }, 'value.nested.deep.1'],
      [{ 'k\u0000': 1 }, 'value'],
    ];
    for (const [value, path] of cases) {
      expectInvalid(await owner(org).post('/data-stores').send({ tableName: 't', key: 'k', value }), path);
    }
    await expectNothingStored(org);
    const literal = { a: '\\u0000', b: '\\\\u0000' };
    await insert(org, { tableName: 't', key: 'k', value: literal });
    expect((await getRecord(org, 't', 'k')).value).toEqual(literal);
  });

  test('a number JSON cannot keep exactly (1e400 parses to Infinity) is 400, not stored as null', async () => {
    const org = await createTestOrg(h.services);
    const body = '{"tableName":"t","key":"k","value":{"ok":1,"items":[{"n":1e400}]}}';
    expectInvalid(await owner(org).post('/data-stores').set('Content-Type', 'application/json').send(body), 'value.items.0.n');
    await expectNothingStored(org);
  });

  test('a top-level value field named "__proto__" is stored or refused, never silently dropped', async () => {
    const org = await createTestOrg(h.services);
    const res = await owner(org)
      .post('/data-stores')
      .set('Content-Type', 'application/json')
      .send('{"tableName":"t","key":"k","value":{"__proto__":{"x":1},"a":1}}');
    if (res.status === 400) return expectInvalid(res, 'value.__proto__');
    expectStatus(res, 201);
    const row = await dbRow(org, 't', 'k');
    expect(Object.keys(row!.value).sort()).toEqual(['__proto__', 'a']);
  });
  test('unknown fields are 400 and name the field; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await owner(org)
      .post('/data-stores')
      .send({ tableName: 't', key: 'k', value: {}, organizationId: org.organizationId, id: '00000000-0000-4000-8000-000000000000' });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'organizationId', message: 'Unknown field' },
        { path: 'id', message: 'Unknown field' },
      ]),
    );
    await expectNothingStored(org);
  });

  test('inserting again once the first record has expired (real TTL) succeeds with 201', async () => {
    const org = await createTestOrg(h.services);
    const first = await insert(org, { tableName: 't', key: 'k', value: { v: 1 }, ttlSeconds: 1 });
    expectError(
      await owner(org)
        .post('/data-stores')
        .send({ tableName: 't', key: 'k', value: { v: 2 } }),
      409,
      'record_exists',
    );
    await sleep(Math.max(0, ms(first.expiresAt) - Date.now()) + 200);
    const second = await insert(org, { tableName: 't', key: 'k', value: { v: 2 } });
    expect(second).toMatchObject({ value: { v: 2 }, expiresAt: null });
    expect(ms(second.createdAt)).toBeGreaterThan(ms(first.createdAt));
    expect(await getRecord(org, 't', 'k')).toEqual(second);
    expect(await dbRows(org, 't')).toHaveLength(2);
  });
});

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
    for (let offset = 0; offset < 12; offset += 3) {
      const page = await everythingOf(org, { limit: 3, offset });
      expect(page.total).toBe(10);
      expect(page.data.length).toBe(Math.max(0, Math.min(3, 10 - offset)));
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

describe('POST /data-stores/tables/{tableName} (upsert)', () => {
  test('single form: 201 when new, 200 when replaced (value replaced whole, id and createdAt kept, updatedAt advances)', async () => {
    const org = await createTestOrg(h.services);
    const created = await owner(org)
      .post(tableUrl('t'))
      .send({ key: 'k', value: { a: 1, b: { c: 2 } } });
    expectStatus(created, 201);
    expectRecordShape(created.body);
    expect(created.body).toMatchObject({ tableName: 't', key: 'k', value: { a: 1, b: { c: 2 } }, expiresAt: null });

    const replaced = await owner(org)
      .post(tableUrl('t'))
      .send({ key: 'k', value: { z: true } });
    expectStatus(replaced, 200);
    expect(replaced.body).toMatchObject({ id: created.body.id, suid: created.body.suid, createdAt: created.body.createdAt, value: { z: true } });
    expect(replaced.body.value).toEqual({ z: true });
    expect(ms(replaced.body.updatedAt)).toBeGreaterThan(ms(created.body.updatedAt));
    expect(await getRecord(org, 't', 'k')).toEqual(replaced.body);
    expect(await dbRows(org, 't')).toHaveLength(2);
  });

  test('batch form: 200 {created, updated, data}', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { a: { v: 'a0' }, b: { v: 'b0' } });
    const res = await owner(org)
      .post(tableUrl('t'))
      .send({
        records: [
          { key: 'b', value: { v: 'b1' } },
          { key: 'c', value: { v: 'c1' } },
          { key: 'd', value: { v: 'd1' }, ttlSeconds: 60 },
        ],
      });
    expectStatus(res, 200);
    expect(Object.keys(res.body).sort()).toEqual(['created', 'data', 'updated']);
    expect(res.body).toMatchObject({ created: 2, updated: 1 });
    const data: Json[] = res.body.data;
    expect(data.map((r) => r.key).sort()).toEqual(['b', 'c', 'd']);
    data.forEach(expectRecordShape);
    expect(data.find((r) => r.key === 'd')!.expiresAt).not.toBeNull();
    expect((await dbRows(org, 't')).map((r) => [r.key, r.value])).toEqual([
      ['__meta__', { createdVia: 'api' }],
      ['a', { v: 'a0' }],
      ['b', { v: 'b1' }],
      ['c', { v: 'c1' }],
      ['d', { v: 'd1' }],
    ]);
    // A batch of one answers in the batch form too.
    const one = await owner(org)
      .post(tableUrl('t'))
      .send({ records: [{ key: 'e', value: {} }] });
    expectStatus(one, 200);
    expect(one.body).toMatchObject({ created: 1, updated: 0, data: [expect.objectContaining({ key: 'e' })] });
  });

  test('a key repeated within a batch is 400 duplicate_keys and nothing is written', async () => {
    const org = await createTestOrg(h.services);
    const res = await owner(org)
      .post(tableUrl('t'))
      .send({
        records: [
          { key: 'k1', value: {} },
          { key: 'k2', value: {} },
          { key: 'k1', value: { again: true } },
        ],
      });
    expectInvalid(res, 'records.2.key', 'duplicate_keys');
    await expectNothingStored(org);

    await seed(org, 't', { k1: { v: 0 } });
    const before = await dbRows(org);
    expectInvalid(
      await owner(org)
        .post(tableUrl('t'))
        .send({
          records: [
            { key: 'k1', value: { v: 1 } },
            { key: 'k1', value: { v: 2 } },
          ],
        }),
      'records.1.key',
      'duplicate_keys',
    );
    expect(await dbRows(org)).toEqual(before);
  });

  test('one bad record in a batch is 400 naming its index, and nothing is written', async () => {
    const org = await createTestOrg(h.services);
    const past = new Date(Date.now() - 60_000).toISOString();
    const cases: Array<[Json, string]> = [
      [{ key: 'b', value: {}, expiresAt: past }, 'records.1.expiresAt'],
      [{ key: '__meta__', value: {} }, 'records.1.key'],
      [{ key: 'b', value: [] }, 'records.1.value'],
      [{ key: 'b', value: valueOfSize(MAX_VALUE_BYTES + 1) }, 'records.1.value'],
      [{ key: 'b', value: {}, extra: 1 }, 'records.1.extra'],
    ];
    for (const [bad, path] of cases) {
      expectInvalid(
        await owner(org)
          .post(tableUrl('t'))
          .send({ records: [{ key: 'a', value: {} }, bad] }),
        path,
      );
    }
    await expectNothingStored(org);
  });

  test('single-form and envelope errors are 400; more than 1000 records is 400, exactly 1000 is fine', async () => {
    const org = await createTestOrg(h.services);
    const post = (body: unknown) =>
      owner(org)
        .post(tableUrl('t'))
        .send(body as object);
    expectInvalid(await post({ key: 'k' }), 'value');
    expectInvalid(await post({ value: {} }), 'key');
    expectInvalid(await post({ key: 'k', value: 'x' }), 'value');
    expectInvalid(await post({ records: [] }), 'records');
    expectInvalid(await post({ records: Array.from({ length: 1001 }, (_, i) => ({ key: `k${i}`, value: {} })) }), 'records');
    expectInvalid(await owner(org).post(tableUrl('1bad')).send({ key: 'k', value: {} }), 'params.tableName');
    await expectNothingStored(org);

    const res = await post({ records: Array.from({ length: 1000 }, (_, i) => ({ key: `k${String(i).padStart(4, '0')}`, value: { i } })) });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ created: 1000, updated: 0 });
    expect(res.body.data).toHaveLength(1000);
    expect((await tablesOf(org)).data).toEqual([expect.objectContaining({ tableName: 't', recordCount: 1000 })]);
  });

  test('an upsert creates the table, which then appears in the table list', async () => {
    const org = await createTestOrg(h.services);
    expectError(await owner(org).get(tableUrl('auto')), 404, 'not_found');
    expectStatus(await owner(org).post(tableUrl('auto')).send({ key: 'k', value: {} }), 201);
    expect((await tablesOf(org)).data).toEqual([expect.objectContaining({ tableName: 'auto', recordCount: 1, createdVia: 'api' })]);
    expect(await keysOf(org, 'auto')).toEqual(['k']);
  });

  test('30 parallel upserts of one key: all succeed, exactly one 201, one row, and the final value is one of those written', async () => {
    const org = await createTestOrg(h.services);
    expectStatus(await owner(org).post('/data-stores/tables').send({ tableName: 'hot' }), 201);
    const results = await Promise.all(Array.from({ length: 30 }, (_, writer) => owner(org).post(tableUrl('hot')).send({ key: 'k', value: { writer } })));
    for (const r of results) expect([200, 201]).toContain(r.status);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);

    const rows = (await dbRows(org, 'hot')).filter((r) => r.key === 'k');
    expect(rows).toHaveLength(1);
    const final = await getRecord(org, 'hot', 'k');
    expect(final.value).toEqual(rows[0].value);
    expect(Object.keys(final.value)).toEqual(['writer']);
    expect(final.value.writer).toBeGreaterThanOrEqual(0);
    expect(final.value.writer).toBeLessThan(30);
  });

  test('a write that started earlier but lost the race to insert still reports updatedAt >= createdAt', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { block: {} });
    // The batch starts first and waits on `block`; meanwhile a later single upsert creates `k`;
    // the batch then replaces `k`, using its own (earlier) statement time as updatedAt.
    const { batch, single } = await withRowLocked(org, 't', 'block', async (untilBlocked) => {
      const batch = start(
        owner(org)
          .post(tableUrl('t'))
          .send({
            records: [
              { key: 'block', value: { by: 'batch' } },
              { key: 'k', value: { by: 'batch' } },
            ],
          }),
      );
      await untilBlocked(1);
      const single = await owner(org)
        .post(tableUrl('t'))
        .send({ key: 'k', value: { by: 'single' } });
      return { batch, single };
    });
    expectStatus(single, 201);
    const batchRes = await batch;
    expectStatus(batchRes, 200);
    expect(batchRes.body).toMatchObject({ created: 0, updated: 2 });
    const k = await getRecord(org, 't', 'k');
    expect(k.value).toEqual({ by: 'batch' });
    expect(k.createdAt).toBe(single.body.createdAt);
    expect({ createdAt: k.createdAt, updatedAt: k.updatedAt, ordered: ms(k.updatedAt) >= ms(k.createdAt) }).toMatchObject({ ordered: true });
  });

  test('parallel upserts into a new table register it exactly once', async () => {
    const org = await createTestOrg(h.services);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        owner(org)
          .post(tableUrl('fresh'))
          .send({ key: `k${i}`, value: { i } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect((await dbRows(org, 'fresh')).filter((r) => r.key === '__meta__')).toHaveLength(1);
    expect((await tablesOf(org)).data).toEqual([expect.objectContaining({ tableName: 'fresh', recordCount: 20 })]);
  });

  test('two batches over the same keys in opposite orders both succeed (no deadlock)', async () => {
    const org = await createTestOrg(h.services);
    const keys = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    await seed(org, 't', Object.fromEntries(keys.map((k) => [k, { v: -1 }])));
    const batch = (ordered: string[], writer: string) =>
      start(
        owner(org)
          .post(tableUrl('t'))
          .send({ records: ordered.map((key) => ({ key, value: { writer } })) }),
      );
    // Both batches queue up behind a lock on the middle key, so they meet there: each then
    // holds the half of the rows the other one needs next.
    const results = await withRowLocked(org, 't', 'k10', async (untilBlocked) => {
      const pending = [batch(keys, 'ascending'), batch([...keys].reverse(), 'descending')];
      await untilBlocked(2);
      return pending;
    });
    expect((await Promise.all(results)).map((r) => ({ status: r.status, code: r.body.error?.code }))).toEqual([{ status: 200 }, { status: 200 }]);
    const values = (await dbRows(org, 't')).filter((r) => r.key !== '__meta__').map((r) => r.value.writer);
    expect(values).toHaveLength(20);
  });
});

describe('GET /data-stores/tables/{tableName} (read)', () => {
  test('hides __meta__ and returns every key in bytewise (code point) order', async () => {
    const org = await createTestOrg(h.services);
    const keys = ['b', 'B', 'a', 'A', '_x', '10', '9', 'é', 'ﬀ', '😀', 'a b', 'a/b', 'Z', '~'];
    await seed(org, 't', Object.fromEntries(keys.map((k) => [k, { k }])));
    const page = await read(org, 't');
    expect(Object.keys(page).sort()).toEqual(['data', 'nextAfter']);
    expect(page.nextAfter).toBeNull();
    expect(page.data.map((r) => r.key)).toEqual([...keys].sort(bytewise));
    expect(page.data.map((r) => r.key).indexOf('B')).toBeLessThan(page.data.map((r) => r.key).indexOf('a'));
    for (const r of page.data) {
      expectRecordShape(r);
      expect(r.value).toEqual({ k: r.key });
    }
  });

  test('prefix: case-sensitive, unicode, LIKE wildcards taken literally, no match gives an empty page', async () => {
    const org = await createTestOrg(h.services);
    const keys = [
      'order:1',
      'order:2',
      'order:10',
      'orders',
      'Order:3',
      'refund:1',
      'ördér:1',
      'ördér:2',
      'ördéz',
      '😀a',
      '😀b',
      '😁',
      'a_b',
      'axb',
      'a%c',
      'abc',
    ];
    await seed(org, 't', Object.fromEntries(keys.map((k) => [k, {}])));
    const cases: Array<[string, string[]]> = [
      ['order:', ['order:1', 'order:10', 'order:2']],
      ['order', ['order:1', 'order:10', 'order:2', 'orders']],
      ['orders', ['orders']],
      ['Order', ['Order:3']],
      ['ORDER', []],
      ['zzz', []],
      ['ördér:', ['ördér:1', 'ördér:2']],
      ['ö', ['ördér:1', 'ördér:2', 'ördéz']],
      ['😀', ['😀a', '😀b']],
      ['a_', ['a_b']],
      ['a%', ['a%c']],
    ];
    for (const [prefix, expected] of cases) expect({ prefix, keys: await keysOf(org, 't', { prefix }) }).toEqual({ prefix, keys: expected });
    expect(await keysOf(org, 't', { prefix: '' })).toHaveLength(keys.length);
  });

  describe('where filters', () => {
    const ORDERS: Record<string, Json> = {
      o1: { status: 'paid', total: 120, customer: { country: 'FR', vip: true }, tags: ['a'], note: null },
      o2: { status: 'open', total: 80, customer: { country: 'DE', vip: false } },
      o3: { status: 'paid', total: '95', customer: { country: 'FR' } },
      o4: { status: 'void', total: 100, flag: true },
      o5: { total: 200.5, customer: { country: 'US' }, flag: false },
    };
    async function ordersOrg() {
      const org = await createTestOrg(h.services);
      await seed(org, 'orders', ORDERS);
      return org;
    }

    test('equality on strings, numbers, booleans, null, arrays and whole nested objects; dotted paths', async () => {
      const org = await ordersOrg();
      const cases: Array<[unknown, string[]]> = [
        [{ status: 'paid' }, ['o1', 'o3']],
        [{ total: 100 }, ['o4']],
        [{ total: 100.0 }, ['o4']],
        [{ total: '95' }, ['o3']],
        [{ total: 95 }, []],
        [{ flag: true }, ['o4']],
        [{ flag: false }, ['o5']],
        [{ note: null }, ['o1']],
        [{ tags: ['a'] }, ['o1']],
        [{ customer: { country: 'DE', vip: false } }, ['o2']],
        [{ customer: { country: 'FR' } }, ['o3']],
        [{ 'customer.country': 'FR' }, ['o1', 'o3']],
        [{ 'customer.vip': false }, ['o2']],
        [{ 'customer.country': 'FR', status: 'paid', total: 120 }, ['o1']],
        [{ 'customer.country.code': 'FR' }, []],
        [{ status: { $eq: 'open' } }, ['o2']],
        [{ missing: 'x' }, []],
      ];
      for (const [where, expected] of cases) expect({ where, keys: await filtered(org, 'orders', where) }).toEqual({ where, keys: expected });
    });

    test('$ne (a missing field is not equal), $gt/$gte/$lt/$lte (like types only), $in, $exists', async () => {
      const org = await ordersOrg();
      const cases: Array<[unknown, string[]]> = [
        [{ status: { $ne: 'paid' } }, ['o2', 'o4', 'o5']],
        [{ 'customer.vip': { $ne: true } }, ['o2', 'o3', 'o4', 'o5']],
        [{ total: { $gt: 100 } }, ['o1', 'o5']],
        [{ total: { $gte: 100 } }, ['o1', 'o4', 'o5']],
        [{ total: { $lt: 100 } }, ['o2']],
        [{ total: { $lte: 100 } }, ['o2', 'o4']],
        [{ total: { $gte: 80, $lt: 150 } }, ['o1', 'o2', 'o4']],
        [{ total: { $gt: 200.25 } }, ['o5']],
        [{ total: { $gt: -1e9 } }, ['o1', 'o2', 'o4', 'o5']],
        // Strings compare with strings only: '95' is the one string total.
        [{ total: { $gt: '9' } }, ['o3']],
        [{ total: { $lt: '9' } }, []],
        [{ status: { $lt: 'p' } }, ['o2']],
        [{ status: { $gte: 'paid' } }, ['o1', 'o3', 'o4']],
        [{ status: { $gt: 1 } }, []],
        [{ 'customer.vip': { $gte: 0 } }, []],
        [{ 'customer.country': { $in: ['DE', 'US'] } }, ['o2', 'o5']],
        [{ total: { $in: [100, 'paid', '95'] } }, ['o3', 'o4']],
        [{ status: { $in: ['nope'] } }, []],
        [{ status: { $exists: false } }, ['o5']],
        [{ status: { $exists: true } }, ['o1', 'o2', 'o3', 'o4']],
        [{ note: { $exists: true } }, ['o1']],
        [{ 'customer.vip': { $exists: true } }, ['o1', 'o2']],
        [{ 'customer.vip': { $exists: false }, customer: { $exists: true } }, ['o3', 'o5']],
      ];
      for (const [where, expected] of cases) expect({ where, keys: await filtered(org, 'orders', where) }).toEqual({ where, keys: expected });
    });

    test('prefix and where combine', async () => {
      const org = await ordersOrg();
      await seed(org, 'orders', { 'refund:1': { status: 'paid', total: 120 }, 'refund:2': { status: 'open' } });
      expect(await filtered(org, 'orders', { status: 'paid' })).toEqual(['o1', 'o3', 'refund:1']);
      expect(await filtered(org, 'orders', { status: 'paid' }, { prefix: 'refund:' })).toEqual(['refund:1']);
      expect(await filtered(org, 'orders', { status: 'paid' }, { prefix: 'o' })).toEqual(['o1', 'o3']);
      expect(await filtered(org, 'orders', { total: { $gte: 100 } }, { prefix: 'zzz' })).toEqual([]);
    });

    test('an invalid where is 400 with details on query.where', async () => {
      const org = await ordersOrg();
      const bad = [
        'not json',
        '{"status": ',
        '[{"status":"paid"}]',
        '"paid"',
        'null',
        '42',
        '{"status":{"$regex":"^p"}}',
        '{"total":{"$gt":{"n":1}}}',
        '{"total":{"$gt":null}}',
        '{"total":{"$gt":true}}',
        '{"status":{"$in":[]}}',
        '{"status":{"$in":"paid"}}',
        '{"status":{"$exists":"yes"}}',
        '{"a..b":1}',
        '{".a":1}',
        '{"":1}',
      ];
      for (const where of bad) {
        const res = await owner(org).get(tableUrl('orders')).query({ where });
        expect({ where, status: res.status }).toEqual({ where, status: 400 });
        expectInvalid(res, 'query.where');
      }
      const unknownOp = await owner(org).get(tableUrl('orders')).query({ where: '{"status":{"$regex":"^p"}}' });
      expect(unknownOp.body.error.details[0].message).toContain('$regex');
    });
  });

  test('pagination: limit with nextAfter/after visits every record exactly once, in order', async () => {
    const org = await createTestOrg(h.services);
    const keys = Array.from({ length: 21 }, (_, i) => `key-${String(i).padStart(2, '0')}`);
    await seed(org, 't', Object.fromEntries(keys.map((k, i) => [k, { i, even: i % 2 === 0 }])));

    const walk = async (query: Query) => {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page = await read(org, 't', { ...query, ...(after === null ? {} : { after }) });
        expect(page.data.length).toBeLessThanOrEqual(Number(query.limit));
        seen.push(...page.data.map((r) => r.key));
        after = page.nextAfter;
        if (after !== null) expect(after).toBe(page.data[page.data.length - 1].key);
        pages++;
      } while (after !== null && pages < 50);
      return { seen, pages };
    };
    // 21 = 3 × 7: the last full page already says there is nothing more.
    expect(await walk({ limit: 7 })).toEqual({ seen: keys, pages: 3 });
    expect(await walk({ limit: 5 })).toEqual({ seen: keys, pages: 5 });
    expect(await walk({ limit: 4, where: JSON.stringify({ even: true }) })).toEqual({ seen: keys.filter((_, i) => i % 2 === 0), pages: 3 });
    expect(await keysOf(org, 't', { after: 'key-19' })).toEqual(['key-20']);
    expect(await keysOf(org, 't', { after: 'key-20' })).toEqual([]);
    expect(await keysOf(org, 't', { after: 'key-05x', limit: 2 })).toEqual(['key-06', 'key-07']);
  });

  test('offset skips records; count=true adds the total of records matching the filter', async () => {
    const org = await createTestOrg(h.services);
    const keys = Array.from({ length: 12 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    await seed(org, 't', Object.fromEntries(keys.map((k, i) => [k, { i, big: i >= 5 }])));
    await seed(org, 't', { other: { big: true } });
    expect(await keysOf(org, 't', { limit: 3, offset: 4 })).toEqual(['k04', 'k05', 'k06']);
    expect(await keysOf(org, 't', { offset: 13 })).toEqual([]);

    const counted = await read(org, 't', { count: 'true', limit: 2, prefix: 'k', where: JSON.stringify({ big: true }) });
    expect(counted.total).toBe(7);
    expect(counted.data.map((r) => r.key)).toEqual(['k05', 'k06']);
    expect(counted.nextAfter).toBe('k06');
    expect((await read(org, 't', { count: 'true' })).total).toBe(13);
    expect((await read(org, 't', { count: 'true', prefix: 'nope' })).total).toBe(0);
    expect(await read(org, 't', { count: 'false', limit: 1 })).not.toHaveProperty('total');
  });

  test('unknown table is 404; bad query parameters are 400', async () => {
    const org = await createTestOrg(h.services);
    expectError(await owner(org).get(tableUrl('missing')), 404, 'not_found');
    await seed(org, 't', { a: {} });
    const get = (query: Query) => owner(org).get(tableUrl('t')).query(query);
    expectInvalid(await get({ limit: 0 }), 'query.limit');
    expectInvalid(await get({ limit: 1001 }), 'query.limit');
    expectInvalid(await get({ offset: -1 }), 'query.offset');
    expectInvalid(await get({ count: 'yes' }), 'query.count');
    expectInvalid(await get({ prefix: 'p'.repeat(256) }), 'query.prefix');
    expectInvalid(await get({ after: 'p'.repeat(256) }), 'query.after');
    expectInvalid(await get({ sort: 'key' }), 'query.sort');
    expectInvalid(await owner(org).get(tableUrl('9t')), 'params.tableName');
  });

  test('a NUL character in prefix, after or where is a 400, not a database error (500)', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { a: {} });
    const queries: Query[] = [
      { prefix: 'a\u0000' },
      { after: '\u0000' },
      { where: JSON.stringify({ 'a\u0000': 1 }) },
      { where: JSON.stringify({ a: '\u0000' }) },
    ];
    const statuses = [];
    for (const query of queries) statuses.push({ query, status: (await owner(org).get(tableUrl('t')).query(query)).status });
    expect(statuses).toEqual(queries.map((query) => ({ query, status: 400 })));
  });

  test('a number operand beyond double range (1e400 parses to Infinity) does not match every number', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { small: { n: 1 }, nul: { n: null } });
    // Either refused (400), or compared as the number it stands for: 1 < Infinity, and nothing equals it.
    const cases: Array<[string, string[]]> = [
      ['{"n":{"$gt":1e400}}', []],
      ['{"n":{"$lt":1e400}}', ['small']],
      ['{"n":1e400}', []],
    ];
    const wrong = [];
    for (const [where, expected] of cases) {
      const res = await owner(org).get(tableUrl('t')).query({ where });
      const keys = res.status === 200 ? res.body.data.map((r: Json) => r.key) : undefined;
      if (res.status !== 400 && JSON.stringify(keys) !== JSON.stringify(expected)) wrong.push({ where, status: res.status, keys, expected });
    }
    expect(wrong).toEqual([]);
  });
});

describe('/data-stores/tables/{tableName}/records/{key}', () => {
  test('keys with "/", spaces and other URL-special characters work on every record route when URL-encoded', async () => {
    const org = await createTestOrg(h.services);
    const keys = ['a/b', 'with space', 'q?x=1&y=2#frag', '100% sure', 'ünï/😀', '  padded  ', 'a+b', '..'];
    for (const key of keys) {
      const created = await put(org, 't', key, { value: { key } }, 201);
      expect(created.key).toBe(key);
      expect(await getRecord(org, 't', key)).toEqual(created);
      expectStatus(
        await owner(org)
          .patch(recordUrl('t', key))
          .send({ value: { patched: true } }),
        200,
      );
    }
    expect(await keysOf(org, 't')).toEqual([...keys].sort(bytewise));
    for (const key of keys) {
      const gone = await owner(org).delete(recordUrl('t', key));
      expectStatus(gone, 200);
      expect(gone.body).toMatchObject({ key, value: { key, patched: true } });
      expectError(await owner(org).get(recordUrl('t', key)), 404, 'not_found');
    }
  });

  test('GET of a missing record or in a missing table is 404; a reserved or bad key is 400', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { a: {} });
    expectError(await owner(org).get(recordUrl('t', 'nope')), 404, 'not_found');
    expectError(await owner(org).get(recordUrl('other', 'a')), 404, 'not_found');
    expectInvalid(await owner(org).get(recordUrl('t', '__meta__')), 'params.key');
    expectInvalid(await owner(org).get(recordUrl('t', 'k'.repeat(256))), 'params.key');
    expectInvalid(await owner(org).get(recordUrl('t', 'a\nb')), 'params.key');
  });

  test('PUT creates (201), then replaces the value and the expiry whole (200)', async () => {
    const org = await createTestOrg(h.services);
    const created = await put(org, 't', 'k', { value: { a: 1, b: 2 }, ttlSeconds: 3600 }, 201);
    expectRecordShape(created);
    expect(created).toMatchObject({ tableName: 't', key: 'k', value: { a: 1, b: 2 } });
    expect(created.expiresAt).not.toBeNull();

    const replaced = await put(org, 't', 'k', { value: { c: 3 } }, 200);
    expect(replaced).toMatchObject({ id: created.id, createdAt: created.createdAt, expiresAt: null });
    expect(replaced.value).toEqual({ c: 3 });
    expect(ms(replaced.updatedAt)).toBeGreaterThan(ms(created.updatedAt));
    expect(await getRecord(org, 't', 'k')).toEqual(replaced);

    expectInvalid(await owner(org).put(recordUrl('t', 'k')).send({ key: 'k', value: {} }), 'key');
    expectInvalid(await owner(org).put(recordUrl('t', 'k')).send({}), 'value');
    expectInvalid(await owner(org).put(recordUrl('t', '__meta__')).send({ value: {} }), 'params.key');
    expect(await getRecord(org, 't', 'k')).toEqual(replaced);
  });

  test('PATCH merges top-level fields and keeps the expiry unless one is given', async () => {
    const org = await createTestOrg(h.services);
    const created = await put(org, 't', 'k', { value: { a: 1, nested: { x: 1, y: 2 }, keep: 'k' }, ttlSeconds: 3600 }, 201);

    const merged = await owner(org)
      .patch(recordUrl('t', 'k'))
      .send({ value: { a: 2, nested: { x: 9 }, added: true } });
    expectStatus(merged, 200);
    // Top level only: `nested` is replaced, not merged.
    expect(merged.body.value).toEqual({ a: 2, nested: { x: 9 }, keep: 'k', added: true });
    expect(merged.body).toMatchObject({ id: created.id, createdAt: created.createdAt, expiresAt: created.expiresAt, recordTimestamp: created.recordTimestamp });
    expect(ms(merged.body.updatedAt)).toBeGreaterThan(ms(created.updatedAt));
    expect(await getRecord(org, 't', 'k')).toEqual(merged.body);

    const ttl = await owner(org).patch(recordUrl('t', 'k')).send({ ttlSeconds: 7200 });
    expectStatus(ttl, 200);
    expect(ttl.body.value).toEqual(merged.body.value);
    expect(Math.abs(ms(ttl.body.expiresAt) - (Date.now() + 7_200_000))).toBeLessThan(10_000);

    const at = new Date(Date.now() + 86_400_000).toISOString();
    expect((await owner(org).patch(recordUrl('t', 'k')).send({ expiresAt: at })).body.expiresAt).toBe(at);
    expect((await owner(org).patch(recordUrl('t', 'k')).send({ expiresAt: null })).body.expiresAt).toBeNull();
    const stamped = await owner(org).patch(recordUrl('t', 'k')).send({ recordTimestamp: '2021-06-01T00:00:00.000Z' });
    expect(stamped.body).toMatchObject({ recordTimestamp: '2021-06-01T00:00:00.000Z', value: merged.body.value, expiresAt: null });
  });

  test('PATCH with {}, a past expiry or an unknown field is 400; on a missing record 404; nothing changes', async () => {
    const org = await createTestOrg(h.services);
    await put(org, 't', 'k', { value: { a: 1 } }, 201);
    const before = await dbRows(org);
    const patch = (body: Json, key = 'k') => owner(org).patch(recordUrl('t', key)).send(body);
    expectError(await patch({}), 400, 'validation_failed');
    expectInvalid(await patch({ expiresAt: new Date(Date.now() - 1000).toISOString() }), 'expiresAt');
    expectInvalid(await patch({ value: { b: 1 }, expiresAt: new Date(Date.now() + 60_000).toISOString(), ttlSeconds: 5 }), 'ttlSeconds');
    expectInvalid(await patch({ value: { b: 1 }, key: 'other' }), 'key');
    expectInvalid(await patch({ value: [1] }), 'value');
    expectInvalid(await patch({ value: { b: '\u0000' } }), 'value.b');
    expectError(await patch({ value: { b: 1 } }, 'missing'), 404, 'not_found');
    expectError(
      await owner(org)
        .patch(recordUrl('nope', 'k'))
        .send({ value: { b: 1 } }),
      404,
      'not_found',
    );
    expect(await dbRows(org)).toEqual(before);
  });

  test('PATCH that makes the merged value exceed 256 KiB is 400 on value and leaves the record unchanged', async () => {
    const org = await createTestOrg(h.services);
    const big = { a: 'x'.repeat(200_000) };
    await put(org, 't', 'k', { value: big }, 201);
    const before = await dbRow(org, 't', 'k');
    // Each part alone is well under the limit; merged they are over it.
    const res = await owner(org)
      .patch(recordUrl('t', 'k'))
      .send({ value: { b: 'y'.repeat(70_000) }, ttlSeconds: 60 });
    expectInvalid(res, 'value');
    expect(await dbRow(org, 't', 'k')).toEqual(before);
    // Replacing the big field instead keeps it under the limit.
    const ok = await owner(org)
      .patch(recordUrl('t', 'k'))
      .send({ value: { a: 'small', b: 'y'.repeat(70_000) } });
    expectStatus(ok, 200);
  });

  test('parallel PATCHes of different fields all land (no lost update)', async () => {
    const org = await createTestOrg(h.services);
    await put(org, 't', 'k', { value: { base: true } }, 201);
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        owner(org)
          .patch(recordUrl('t', 'k'))
          .send({ value: { [`f${i}`]: i } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(15).fill(200));
    expect((await getRecord(org, 't', 'k')).value).toEqual({ base: true, ...Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`f${i}`, i])) });
  });

  test('DELETE returns the record; then GET, PATCH and DELETE are 404 and the table stays', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { a: { v: 1 }, b: { v: 2 } });
    const a = await getRecord(org, 't', 'a');
    const res = await owner(org).delete(recordUrl('t', 'a'));
    expectStatus(res, 200);
    expect(res.body).toEqual(a);
    expectError(await owner(org).get(recordUrl('t', 'a')), 404, 'not_found');
    expectError(
      await owner(org)
        .patch(recordUrl('t', 'a'))
        .send({ value: { v: 3 } }),
      404,
      'not_found',
    );
    expectError(await owner(org).delete(recordUrl('t', 'a')), 404, 'not_found');
    expectError(await owner(org).delete(recordUrl('nope', 'a')), 404, 'not_found');
    expectInvalid(await owner(org).delete(recordUrl('t', '__meta__')), 'params.key');
    expect(await keysOf(org, 't')).toEqual(['b']);
    expect((await tablesOf(org)).data).toEqual([expect.objectContaining({ tableName: 't', recordCount: 1 })]);
    expect(await dbRow(org, 't', 'a')).toBeUndefined();
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

describe('TTL and purge', () => {
  test('ttlSeconds sets expiresAt to about now + ttl; a given expiresAt is kept', async () => {
    const org = await createTestOrg(h.services);
    const withTtl = await insert(org, { tableName: 't', key: 'ttl', value: {}, ttlSeconds: 3600 });
    expect(Math.abs(ms(withTtl.expiresAt) - (Date.now() + 3_600_000))).toBeLessThan(10_000);
    const at = new Date(Date.now() + 7 * 86_400_000).toISOString();
    expect((await insert(org, { tableName: 't', key: 'at', value: {}, expiresAt: at })).expiresAt).toBe(at);
    const viaUpsert = await owner(org).post(tableUrl('t')).send({ key: 'up', value: {}, ttlSeconds: 60 });
    expect(Math.abs(ms(viaUpsert.body.expiresAt) - (Date.now() + 60_000))).toBeLessThan(10_000);
    expect((await insert(org, { tableName: 't', key: 'never', value: {}, expiresAt: null })).expiresAt).toBeNull();
  });

  test('an expired record is invisible to every read, not counted, and cannot be patched or deleted', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { live: { s: 'x' }, later: { s: 'x' }, gone: { s: 'x' } });
    await owner(org)
      .put(recordUrl('t', 'later'))
      .send({ value: { s: 'x' }, ttlSeconds: 3600 });
    await expire(org, 't', 'gone');

    expectError(await owner(org).get(recordUrl('t', 'gone')), 404, 'not_found');
    expect(await keysOf(org, 't')).toEqual(['later', 'live']);
    expect(await keysOf(org, 't', { prefix: 'g' })).toEqual([]);
    expect(await filtered(org, 't', { s: 'x' })).toEqual(['later', 'live']);
    expect((await read(org, 't', { count: 'true' })).total).toBe(2);
    const all = await everythingOf(org);
    expect(all.total).toBe(3);
    expect(all.data.map((r) => r.key)).toEqual(['__meta__', 'later', 'live']);
    expect((await tablesOf(org)).data[0].recordCount).toBe(2);
    expectError(
      await owner(org)
        .patch(recordUrl('t', 'gone'))
        .send({ value: { s: 'y' } }),
      404,
      'not_found',
    );
    expectError(await owner(org).delete(recordUrl('t', 'gone')), 404, 'not_found');
    // Still physically there until the purge runs.
    expect(await dbRow(org, 't', 'gone')).toBeDefined();
  });

  test('purgeNow removes expired records physically and leaves live ones', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { live: {}, gone1: {}, gone2: {} });
    await owner(org).put(recordUrl('t', 'later')).send({ value: {}, ttlSeconds: 3600 });
    await expire(org, 't', 'gone1');
    await expire(org, 't', 'gone2');
    expect(await h.services.recordPurger.purgeNow()).toBeGreaterThanOrEqual(2);
    expect((await dbRows(org)).map((r) => r.key)).toEqual(['__meta__', 'later', 'live']);
    expect(await keysOf(org, 't')).toEqual(['later', 'live']);
  });

  test('the background purge deletes expired records on its own, on its interval', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { live: {}, gone: {} });
    await expire(org, 't', 'gone');
    const purger = new RecordPurger(new DataStoresRepository(h.services.db), h.services.logger, 1);
    purger.start();
    try {
      const deadline = Date.now() + 10_000;
      while ((await dbRow(org, 't', 'gone')) && Date.now() < deadline) await sleep(200);
      expect(await dbRow(org, 't', 'gone')).toBeUndefined();
      expect(await dbRow(org, 't', 'live')).toBeDefined();
    } finally {
      await purger.stop();
    }
  });

  test('writing over an expired record counts as a creation: 201 and a new createdAt', async () => {
    const org = await createTestOrg(h.services);
    const old = await put(org, 't', 'k', { value: { v: 1 } }, 201);
    await seed(org, 't', { b1: {}, b2: {} });
    for (const key of ['k', 'b1']) await expire(org, 't', key);
    await sleep(5);

    const single = await owner(org)
      .post(tableUrl('t'))
      .send({ key: 'k', value: { v: 2 } });
    expectStatus(single, 201);
    expect(single.body).toMatchObject({ value: { v: 2 }, expiresAt: null });
    expect(single.body.updatedAt).toBe(single.body.createdAt);
    expect(ms(single.body.createdAt)).toBeGreaterThan(ms(old.createdAt));

    const batch = await owner(org)
      .post(tableUrl('t'))
      .send({ records: recordsOf({ b1: { v: 1 }, b2: { v: 1 } }) });
    expect(batch.body).toMatchObject({ created: 1, updated: 1 });

    await expire(org, 't', 'k');
    expectStatus(
      await owner(org)
        .put(recordUrl('t', 'k'))
        .send({ value: { v: 3 } }),
      201,
    );
  });
});

describe('permissions', () => {
  test('the data store permissions: every role reads, only owner, admin and developer write', () => {
    expect(ROLES.filter((r) => roleHas(r, 'workflows:view'))).toEqual([...ROLES]);
    expect(ROLES.filter((r) => roleHas(r, 'workflows:admin'))).toEqual(['owner', 'admin', 'developer']);
  });

  /** Every write route, in an order that succeeds for a writer on a table `t` holding key `k`. */
  const WRITES: Array<[string, (c: Client) => request.Test, number]> = [
    ['POST /data-stores', (c) => c.post('/data-stores').send({ tableName: 't', key: 'n1', value: {} }), 201],
    ['POST /data-stores/tables', (c) => c.post('/data-stores/tables').send({ tableName: 'made' }), 201],
    ['POST /data-stores/tables/t', (c) => c.post(tableUrl('t')).send({ key: 'n2', value: {} }), 201],
    ['POST /data-stores/tables/t (batch)', (c) => c.post(tableUrl('t')).send({ records: [{ key: 'n3', value: {} }] }), 200],
    [
      'POST /data-stores/tables/t/import',
      (c) =>
        c
          .post(`${tableUrl('t')}/import`)
          .set('Content-Type', 'application/x-ndjson')
          .send('{"key":"n4","value":{}}\n'),
      200,
    ],
    ['PUT record', (c) => c.put(recordUrl('t', 'k')).send({ value: { v: 2 } }), 200],
    ['PATCH record', (c) => c.patch(recordUrl('t', 'k')).send({ value: { w: 1 } }), 200],
    ['DELETE record', (c) => c.delete(recordUrl('t', 'k')), 200],
    ['DELETE table', (c) => c.delete(tableUrl('t')), 200],
  ];
  const READS = ['/data-stores', '/data-stores/tables', tableUrl('t'), recordUrl('t', 'k')];

  describe.each(ROLES.map((r) => [r]))('%s', (role) => {
    const writer = roleHas(role, 'workflows:admin');

    test('every read route → 200', async () => {
      const org = await createTestOrg(h.services);
      await seed(org, 't', { k: { v: 1 } });
      for (const path of READS) expect({ path, status: (await as(h.app, org.tokens[role]).get(path)).status }).toEqual({ path, status: 200 });
    });

    test(`every write route → ${writer ? 'success' : '403 missing_permission, nothing changed'}`, async () => {
      const org = await createTestOrg(h.services);
      await seed(org, 't', { k: { v: 1 } });
      const before = await dbRows(org);
      const client = as(h.app, org.tokens[role]);
      for (const [name, send, status] of WRITES) {
        const res = await send(client);
        if (writer) expect({ name, status: res.status, body: res.body }).toEqual({ name, status, body: expect.anything() });
        else {
          expect({ name, status: res.status }).toEqual({ name, status: 403 });
          expectError(res, 403, 'missing_permission');
        }
      }
      if (writer) expect((await dbRows(org)).map((r) => [r.table_name, r.key])).toEqual([['made', '__meta__']]);
      else expect(await dbRows(org)).toEqual(before);
    });
  });

  test('the permission check comes before validation and existence', async () => {
    const org = await createTestOrg(h.services);
    const viewer = as(h.app, org.tokens.viewer);
    expectError(await viewer.post('/data-stores').send({ tableName: '1bad' }), 403, 'missing_permission');
    expectError(await viewer.put(recordUrl('t', '__meta__')).send({}), 403, 'missing_permission');
    expectError(await viewer.delete(tableUrl('no-such-table')), 403, 'missing_permission');
    await expectNothingStored(org);
  });

  test('no token or a bad token → 401 on every route', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { k: { v: 1 } });
    const before = await dbRows(org);
    const anonymous = {
      get: (url: string) => request(h.app).get(url),
      post: (url: string) => request(h.app).post(url),
      put: (url: string) => request(h.app).put(url),
      patch: (url: string) => request(h.app).patch(url),
      delete: (url: string) => request(h.app).delete(url),
    };
    for (const client of [anonymous, as(h.app, 'not-a-real-token')]) {
      for (const path of READS) expectError(await client.get(path), 401, 'unauthorized');
      for (const [name, send] of WRITES) {
        const res = await send(client);
        expect({ name, status: res.status }).toEqual({ name, status: 401 });
      }
    }
    expect(await dbRows(org)).toEqual(before);
  });
});

describe('tenant isolation', () => {
  async function twoOrgs() {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await seed(a, 'secret', { k: { owner: 'a' }, other: { owner: 'a' } });
    return { a, b, before: await dbRows(a) };
  }

  test("another organization cannot see or change A's table and records", async () => {
    const { a, b, before } = await twoOrgs();
    const asB = owner(b);
    expectError(await asB.get(tableUrl('secret')), 404, 'not_found');
    expectError(await asB.get(recordUrl('secret', 'k')), 404, 'not_found');
    expect(await tablesOf(b)).toEqual({ total: 0, data: [] });
    expect(await everythingOf(b)).toEqual({ total: 0, data: [] });
    expectError(await asB.patch(recordUrl('secret', 'k')).send({ value: { owner: 'b' } }), 404, 'not_found');
    expectError(await asB.delete(recordUrl('secret', 'k')), 404, 'not_found');
    expectError(await asB.delete(tableUrl('secret')), 404, 'not_found');
    expect(await dbRows(a)).toEqual(before);
    expect(await dbRows(b)).toEqual([]);
    expect((await getRecord(a, 'secret', 'k')).value).toEqual({ owner: 'a' });
  });

  test('the same table and key in two organizations are independent', async () => {
    const { a, b, before } = await twoOrgs();
    expectStatus(await owner(b).post('/data-stores/tables').send({ tableName: 'secret' }), 201);
    const bRecord = await insert(b, { tableName: 'secret', key: 'k', value: { owner: 'b' } });
    const aRecord = await getRecord(a, 'secret', 'k');
    expect(bRecord.id).not.toBe(aRecord.id);
    expect(bRecord.organizationId).toBe(b.organizationId);
    expect(aRecord.value).toEqual({ owner: 'a' });
    expect((await getRecord(b, 'secret', 'k')).value).toEqual({ owner: 'b' });
    expect(await keysOf(b, 'secret')).toEqual(['k']);
    expect(await keysOf(a, 'secret')).toEqual(['k', 'other']);

    // B's writes and deletes stay in B.
    await put(b, 'secret', 'other', { value: { owner: 'b' } }, 201);
    expect((await owner(b).delete(tableUrl('secret'))).body).toEqual({ tableName: 'secret', deletedRecords: 2 });
    expect(await dbRows(a)).toEqual(before);
  });

  test('X-Organization-Id cannot reach an organization the caller is not a member of', async () => {
    const { a, b, before } = await twoOrgs();
    for (const orgRef of [a.organizationId, a.organizationSuid]) {
      const inA = (req: request.Test) => req.set('X-Organization-Id', orgRef);
      expectError(await inA(owner(b).get('/data-stores')), 403, 'no_organization_access');
      expectError(await inA(owner(b).get('/data-stores/tables')), 403, 'no_organization_access');
      expectError(await inA(owner(b).get(tableUrl('secret'))), 403, 'no_organization_access');
      expectError(await inA(owner(b).get(recordUrl('secret', 'k'))), 403, 'no_organization_access');
      expectError(await inA(owner(b).post('/data-stores').send({ tableName: 'secret', key: 'x', value: {} })), 403, 'no_organization_access');
      expectError(
        await inA(
          owner(b)
            .put(recordUrl('secret', 'k'))
            .send({ value: { owner: 'b' } }),
        ),
        403,
        'no_organization_access',
      );
      expectError(await inA(owner(b).delete(tableUrl('secret'))), 403, 'no_organization_access');
    }
    expect(await dbRows(a)).toEqual(before);
    expect(await dbRows(b)).toEqual([]);
    // A's own owner naming A explicitly is fine.
    const own = await owner(a).get(tableUrl('secret')).set('X-Organization-Id', a.organizationSuid);
    expectStatus(own, 200);
    expect(own.body.data.map((r: Json) => r.key)).toEqual(['k', 'other']);
  });
});
