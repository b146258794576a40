import { createTestOrg } from './factories';
import { expectError, expectStatus, type Harness, startHarness } from './harness';
import { dataStoreApi, expectInvalid, expectRecordShape, type Json, MAX_VALUE_BYTES, ms, valueOfSize } from './data-store-api';

/** POST /data-stores: inserting one record, its validation, and a second insert of the same key. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, insert, keysOf, getRecord, tablesOf, dbRows, dbRow, expire, expectNothingStored } = dataStoreApi(() => h);

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

  test('inserting again once the first record has expired (its TTL ran out) succeeds with 201', async () => {
    const org = await createTestOrg(h.services);
    const first = await insert(org, { tableName: 't', key: 'k', value: { v: 1 }, ttlSeconds: 3600 });
    expect(ms(first.expiresAt) - ms(first.createdAt)).toBeGreaterThan(3_599_000);
    expect(ms(first.expiresAt) - ms(first.createdAt)).toBeLessThan(3_601_000);
    expectError(
      await owner(org)
        .post('/data-stores')
        .send({ tableName: 't', key: 'k', value: { v: 2 } }),
      409,
      'record_exists',
    );
    // The hour is over: its expires_at moved into the past, as the database's clock (now()) judges expiry.
    await expire(org, 't', 'k');
    const second = await insert(org, { tableName: 't', key: 'k', value: { v: 2 } });
    expect(second).toMatchObject({ value: { v: 2 }, expiresAt: null });
    expect(ms(second.createdAt)).toBeGreaterThan(ms(first.createdAt));
    expect(await getRecord(org, 't', 'k')).toEqual(second);
    expect(await dbRows(org, 't')).toHaveLength(2);
  });
});
