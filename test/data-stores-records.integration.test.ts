import { createTestOrg } from './factories';
import { expectError, expectStatus, type Harness, startHarness } from './harness';
import { bytewise, dataStoreApi, expectInvalid, expectRecordShape, type Json, ms, recordUrl } from './data-store-api';

/** /data-stores/tables/{tableName}/records/{key}: GET, PUT, PATCH and DELETE of one record. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, seed, put, keysOf, getRecord, tablesOf, dbRows, dbRow } = dataStoreApi(() => h);

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
