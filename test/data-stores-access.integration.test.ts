import request from 'supertest';
import type { Role } from '../src/auth/roles';
import { createTestOrg } from './factories';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { type Client, dataStoreApi, type Json, recordUrl, tableUrl } from './data-store-api';

/** Who may read and write data stores: each role, no or a bad token, and another organization. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, insert, seed, put, keysOf, getRecord, tablesOf, everythingOf, dbRows, expectNothingStored } = dataStoreApi(() => h);

describe('permissions', () => {
  /** Who may write, written out: every role reads, only owner, admin and developer write (the README's role table). */
  const WRITER: Record<Role, boolean> = { owner: true, admin: true, developer: true, analyst: false, viewer: false };

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

  describe.each(Object.entries(WRITER) as Array<[Role, boolean]>)('%s', (role, writer) => {
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
