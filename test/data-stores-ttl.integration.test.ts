import { RecordPurger } from '../src/data-stores/record-purger';
import { DataStoresRepository } from '../src/data-stores/data-stores.repository';
import { createTestOrg, sleep, waitFor } from './factories';
import { expectError, expectStatus, type Harness, startHarness } from './harness';
import { dataStoreApi, ms, recordsOf, recordUrl, tableUrl } from './data-store-api';

/** Record expiry: ttlSeconds and expiresAt, expired records hidden from every read, and the purge. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, insert, seed, put, read, keysOf, filtered, tablesOf, everythingOf, dbRows, dbRow, expire } = dataStoreApi(() => h);

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
    const purger = new RecordPurger(new DataStoresRepository(h.services.db.manager), h.services.logger, 1);
    purger.start();
    try {
      await waitFor(async () => (await dbRow(org, 't', 'gone')) === undefined, { timeoutMs: 10_000, intervalMs: 200, what: 'the expired record purged' });
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
    // Lets the clock move on, so that the new createdAt below can be strictly later than the old one.
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
