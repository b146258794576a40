import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type request from 'supertest';
import { createTestOrg, waitFor } from './factories';
import { as, expectError, type Harness, startHarness } from './harness';
import { csv, dataStoreImports, detailsOf, pathsOf } from './data-store-import';

/**
 * Large, concurrent and failing imports: every row lands or none does, and failed
 * or stalled uploads never leave a half-written table or a pooled connection behind.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importFile, importCsv, importNdjson, tableEntry, rowCount, expectNoTable, checkedOut, appWithImportLimit } = dataStoreImports(() => h);

describe('large and concurrent imports', () => {
  const ROWS = 20_000;
  const bigFile = (n: (i: number) => string, badAt?: number) =>
    csv('key,n,label', ...Array.from({ length: ROWS }, (_, i) => (i === badAt ? `,${n(i)},bad` : `row${String(i).padStart(5, '0')},${n(i)},label ${i}`)));
  const slow = { timeoutMs: 30_000 };

  test('20,000 rows land completely; failing re-imports of 20,000 rows leave them unchanged', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(
      org,
      'big',
      'csv',
      bigFile((i) => String(i)),
      slow,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'big', format: 'csv', records: ROWS, created: ROWS, updated: 0 });
    expect(await rowCount(org, 'big')).toBe(ROWS + 1);
    expect(await tableEntry(org, 'big')).toMatchObject({ recordCount: ROWS, createdVia: 'import' });

    const checksum = async () =>
      (
        await h.services.db.query(
          `SELECT count(*)::int AS n, sum((value->>'n')::bigint)::text AS total, max(updated_at) AS latest
           FROM data_store_records WHERE organization_id = $1 AND table_name = 'big' AND key <> '__meta__'`,
          [org.organizationId],
        )
      )[0];
    const before = await checksum();
    expect(before).toMatchObject({ n: ROWS, total: String((ROWS * (ROWS - 1)) / 2) });
    const last = await as(h.app, org.ownerToken).get('/data-stores/tables/big/records/row19999');
    expect(last.body.value).toEqual({ n: 19999, label: 'label 19999' });

    // Every value changed, one bad row in the middle (file line 10,002).
    const failed = await importFile(
      org,
      'big',
      'csv',
      bigFile((i) => String(i + 1_000_000), 10_000),
      slow,
    );
    expectError(failed, 400, 'import_rejected');
    expect(pathsOf(failed)).toEqual(['line 10002.key']);
    expect(failed.body.error.message).toMatch(/20000 record/);
    expect(await checksum()).toEqual(before);
    expect(await tableEntry(org, 'big')).toMatchObject({ recordCount: ROWS });

    // A repeated key at the very end fails after every row reached PostgreSQL: still unchanged.
    const dup = await importFile(org, 'big', 'csv', `${bigFile((i) => String(i + 2_000_000))}row00000,1,again\n`, slow);
    expectError(dup, 400, 'import_rejected');
    expect(detailsOf(dup)).toEqual([{ path: `line ${ROWS + 2}.key`, message: expect.stringContaining('line 2') }]);
    expect(await checksum()).toEqual(before);
  });

  test('concurrent imports into one new table all land', async () => {
    const org = await createTestOrg(h.services);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, part) => importCsv(org, 'together', csv('key,part', ...Array.from({ length: 500 }, (_, i) => `p${part}-${i},${part}`)))),
    );
    for (const r of results) expect(r.body).toMatchObject({ records: 500, created: 500, updated: 0 });
    expect(await tableEntry(org, 'together')).toMatchObject({ recordCount: 2000, createdVia: 'import' });
    expect(await rowCount(org, 'together')).toBe(2001);
  });
});

describe('after failed imports', () => {
  test('the connection pool stays healthy: 10 failures in a row, then imports and reads work', async () => {
    const org = await createTestOrg(h.services);
    const small = appWithImportLimit(1000);
    const manyRows = Array.from({ length: 3000 }, (_, i) => `r${i},${i}`);
    const outBefore = checkedOut();
    const failures: Array<() => Promise<request.Response>> = [
      () => importCsv(org, 'pool', csv('key,n', ...manyRows, ',bad')), // rejected after COPY data was sent
      () => importCsv(org, 'pool', csv('key,n', ...manyRows, 'r0,dup')), // fails in the INSERT … ON CONFLICT
      () => importCsv(org, 'pool', csv('key,n', ...manyRows, 'x,"open')), // unreadable after COPY data was sent
      () => importCsv(org, 'pool', csv('key,n', 'a,1', 'b,2,3')),
      () => importCsv(org, 'pool', ''),
      () => importFile(org, 'pool', 'json', '[{"key":"a","value":{}},'),
      () => importNdjson(org, 'pool', '{"key":"a","value":{}}\nnope\n'),
      () => importCsv(org, 'pool', csv('key,n', ...manyRows, '__meta__,1')),
      () => importFile(org, 'pool', 'csv', csv('key,n', ...manyRows), { app: small }),
      () => importCsv(org, 'pool', csv('key,n', ...manyRows, 'bad,1', 'bad,2')),
    ];
    const statuses: number[] = [];
    for (const run of failures) statuses.push((await run()).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 413, 400]);
    await expectNoTable(org, 'pool');
    expect(checkedOut()).toBe(outBefore);

    const ok = await importCsv(org, 'pool', csv('key,n', ...manyRows));
    expect(ok.status).toBe(200);
    expect(ok.body.created).toBe(3000);
    expect(await tableEntry(org, 'pool')).toMatchObject({ recordCount: 3000 });

    // More concurrent requests than the pool has connections all complete.
    const reads = await Promise.all(Array.from({ length: 12 }, () => as(h.app, org.tokens.viewer).get('/data-stores/tables/pool?limit=1').timeout(5000)));
    for (const r of reads) expect(r.status).toBe(200);
    // No client was left checked out (stuck in a transaction or a COPY).
    expect(checkedOut()).toBe(outBefore);
  });

  test('an NDJSON upload that fails before reading starts is answered and gives its connection back', async () => {
    const org = await createTestOrg(h.services);
    const outBefore = checkedOut();
    const res = await importFile(org, 'ndleak', 'ndjson', Buffer.from('not gzip'), { headers: { 'Content-Encoding': 'gzip' }, timeoutMs: 3000 }).catch(
      (err: Error) => ({ status: `no answer: ${err.message}` }),
    );
    expect({ status: res.status, checkedOut: checkedOut() - outBefore }).toEqual({ status: 400, checkedOut: 0 });
  });

  test('uploads that stall before their first segment hold no connection: the API keeps answering', async () => {
    const org = await createTestOrg(h.services);
    const server = h.app.listen(0, '127.0.0.1');
    const arrived: http.IncomingMessage[] = [];
    server.on('request', (req: http.IncomingMessage) => arrived.push(req));
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const stalled = Array.from({ length: 12 }, () => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: '/data-stores/tables/stalled/import',
        method: 'POST',
        headers: { Authorization: `Bearer ${org.ownerToken}`, 'Content-Type': 'application/x-ndjson' },
      });
      req.on('error', () => undefined);
      req.write('{"key":"a","value":{}}\n');
      return req;
    });
    try {
      // Every upload got past authentication into the import, which has begun reading its body.
      await waitFor(() => arrived.length === stalled.length && arrived.every((req) => req.readableDidRead), { what: 'the stalled uploads being read' });
      const res = await as(h.app, org.tokens.viewer).get('/data-stores/tables').timeout(5000);
      expect(res.status).toBe(200);
    } finally {
      for (const req of stalled) req.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('an NDJSON line longer than any record could be is refused without buffering on', async () => {
    const org = await createTestOrg(h.services);
    const res = await importNdjson(org, 'long', `{"key":"a","value":{"s":"${'x'.repeat(400 * 1024)}"}}\n`);
    expectError(res, 400, 'import_unreadable');
    expect(res.body.error.message).toMatch(/line 1: longer than/);
    await expectNoTable(org, 'long');
  });
});
