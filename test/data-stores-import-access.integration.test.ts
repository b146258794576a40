import request from 'supertest';
import { createTestOrg } from './factories';
import { expectError, type Harness, startHarness } from './harness';
import { csv, dataStoreImports } from './data-store-import';

/** Who may import, and imports of the same table name in two organizations. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importFile, importCsv, valuesOf, tableEntry, rowCount, expectNoTable, snapshot, seed } = dataStoreImports(() => h);

describe('permissions and tenancy', () => {
  test('viewer and analyst get 403 missing_permission and nothing is stored; developer and admin may import', async () => {
    const org = await createTestOrg(h.services);
    for (const role of ['viewer', 'analyst'] as const) {
      const res = await importFile(org, 'perm', 'csv', csv('key,n', 'a,1'), { token: org.tokens[role] });
      expectError(res, 403, 'missing_permission');
    }
    await expectNoTable(org, 'perm');
    for (const role of ['developer', 'admin'] as const) {
      const res = await importFile(org, `perm_${role}`, 'csv', csv('key,n', 'a,1'), { token: org.tokens[role] });
      expect(res.status).toBe(200);
    }
  });

  test('without a token it is 401', async () => {
    const res = await request(h.app).post('/data-stores/tables/anon/import').set('Content-Type', 'text/csv').send(csv('key', 'a'));
    expectError(res, 401, 'unauthorized');
  });

  test("another organization importing the same table name does not touch this organization's table", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await importCsv(a, 'shared', csv('key,owner', 'k1,a', 'k2,a'));
    const before = await snapshot(a, 'shared');

    const res = await importCsv(b, 'shared', csv('key,owner', 'k1,b', 'k3,b'));
    expect(res.status).toBe(200);
    // k1 exists in A's table, but for B it is new.
    expect(res.body).toMatchObject({ created: 2, updated: 0 });

    expect(await snapshot(a, 'shared')).toEqual(before);
    expect(await valuesOf(b, 'shared')).toEqual({ k1: { owner: 'b' }, k3: { owner: 'b' } });
    expect(await rowCount(a, 'shared')).toBe(3);
    expect(await rowCount(b, 'shared')).toBe(3);
  });

  test("importing into a name only another organization has creates this organization's own table", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await seed(b, 'bonly', [{ key: 'x', value: { from: 'b' } }]);
    const bBefore = await snapshot(b, 'bonly');
    expect(bBefore.entry).toMatchObject({ createdVia: 'api', recordCount: 1 });

    const res = await importCsv(a, 'bonly', csv('key,from', 'x,a', 'y,a'));
    expect(res.body).toMatchObject({ records: 2, created: 2, updated: 0 });
    expect(await tableEntry(a, 'bonly')).toMatchObject({ createdVia: 'import', recordCount: 2 });
    expect(await valuesOf(a, 'bonly')).toEqual({ x: { from: 'a' }, y: { from: 'a' } });
    expect(await snapshot(b, 'bonly')).toEqual(bBefore);
  });

  test("a failed import by another organization leaves this one's same-named table alone", async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    await importCsv(a, 'both', csv('key,n', 'k,1'));
    const before = await snapshot(a, 'both');
    expectError(await importCsv(b, 'both', csv('key,n', 'k,2', 'k,3')), 400, 'import_rejected');
    expect(await snapshot(a, 'both')).toEqual(before);
    await expectNoTable(b, 'both');
  });
});
