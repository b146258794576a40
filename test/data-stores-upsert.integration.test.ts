import { dataStoresService } from '../src/data-stores/data-stores.service';
import { PackagesRepository } from '../src/packages/packages.repository';
import { createTestOrg } from './factories';
import { expectError, expectStatus, type Harness, startHarness } from './harness';
import { dataStoreApi, expectInvalid, expectRecordShape, type Json, MAX_VALUE_BYTES, ms, start, tableUrl, valueOfSize } from './data-store-api';

/** POST /data-stores/tables/{tableName}: single and batch upserts, their validation, and concurrent writers. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, seed, keysOf, getRecord, tablesOf, dbRows, withRowLocked, expectNothingStored } = dataStoreApi(() => h);

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

  test("a write through a transaction's EntityManager (a package install's) joins that transaction and rolls back with it", async () => {
    const org = await createTestOrg(h.services);
    const packages = new PackagesRepository(h.services.db.manager);
    const rolledBack = packages.transaction(org.organizationId, async (manager) => {
      const outcome = await dataStoresService(manager).upsert(org.organizationId, 'installed', [{ key: 'k', value: { a: 1 } }]);
      expect(outcome).toMatchObject({ created: 1, updated: 0 });
      // Not committed, so not seen from the pool.
      expect(await dbRows(org, 'installed')).toEqual([]);
      throw new Error('install failed');
    });
    await expect(rolledBack).rejects.toThrow('install failed');
    expect(await dbRows(org, 'installed')).toEqual([]);

    await packages.transaction(org.organizationId, (manager) =>
      dataStoresService(manager).upsert(org.organizationId, 'installed', [{ key: 'k', value: { a: 2 } }]),
    );
    expect((await dbRows(org, 'installed')).map((r) => [r.key, r.value])).toEqual([
      ['__meta__', { createdVia: 'api' }],
      ['k', { a: 2 }],
    ]);
  });
});
