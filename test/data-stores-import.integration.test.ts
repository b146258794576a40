/**
 * POST /data-stores/tables/:tableName/import against the real PostgreSQL:
 * CSV, JSON and NDJSON files sent as the raw body (optionally gzip), all or
 * nothing, upserting, and never leaving a half-written table or a stuck
 * pooled connection behind. Every test builds its own organization.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app/app';
import { createServices } from '../src/app/services';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

// ---------------------------------------------------------------------------
// Helpers

const CONTENT_TYPE = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' } as const;
type Format = keyof typeof CONTENT_TYPE;

interface ImportOptions {
  query?: string;
  token?: string;
  app?: Express;
  contentType?: string;
  headers?: Record<string, string>;
  /** How long to wait for the answer; a request that hangs fails the test after this. */
  timeoutMs?: number;
}

/** POSTs `body` raw to the import route (as the owner unless `token` is given). */
function importFile(org: TestOrg, table: string, format: Format, body: string | Buffer, o: ImportOptions = {}) {
  const req = as(o.app ?? h.app, o.token ?? org.ownerToken)
    .post(`/data-stores/tables/${table}/import${o.query ? `?${o.query}` : ''}`)
    .set('Content-Type', o.contentType ?? CONTENT_TYPE[format])
    .timeout(o.timeoutMs ?? 5000);
  for (const [name, value] of Object.entries(o.headers ?? {})) req.set(name, value);
  // superagent would JSON-encode a Buffer sent as application/json; send the bytes as they are.
  if (Buffer.isBuffer(body)) req.serialize((b: any) => b);
  return req.send(body);
}
const importCsv = (org: TestOrg, table: string, text: string | Buffer, query?: string) => importFile(org, table, 'csv', text, { query });
const importJson = (org: TestOrg, table: string, items: unknown) => importFile(org, table, 'json', JSON.stringify(items));
const importNdjson = (org: TestOrg, table: string, text: string) => importFile(org, table, 'ndjson', text);

/** Lines joined with LF and a final newline. */
const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

type Rec = Record<string, any>;

/** Every live record of a table through the API, keyed by record key. */
async function recordsOf(org: TestOrg, table: string): Promise<Record<string, Rec>> {
  const res = await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}?limit=1000`);
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.data as Rec[]).map((r) => [r.key, r]));
}

/** Just the values, keyed by record key. */
async function valuesOf(org: TestOrg, table: string): Promise<Record<string, Rec>> {
  const records = await recordsOf(org, table);
  return Object.fromEntries(Object.entries(records).map(([k, r]) => [k, r.value]));
}

/** The table's entry in GET /data-stores/tables, if any. */
async function tableEntry(org: TestOrg, table: string): Promise<Rec | undefined> {
  const res = await as(h.app, org.ownerToken).get('/data-stores/tables?limit=1000');
  expect(res.status).toBe(200);
  return (res.body.data as Rec[]).find((t) => t.tableName === table);
}

/** Rows stored for the organization (one table, or all), __meta__ rows included, straight from SQL. */
async function rowCount(org: TestOrg, table?: string): Promise<number> {
  const rows: Array<{ n: number }> = await h.services.db.query(
    `SELECT count(*)::int AS n FROM data_store_records WHERE organization_id = $1 ${table ? 'AND table_name = $2' : ''}`,
    table ? [org.organizationId, table] : [org.organizationId],
  );
  return rows[0].n;
}

/** The table does not exist in any form: not listed, 404 on read, no rows at all. */
async function expectNoTable(org: TestOrg, table: string) {
  expect(await tableEntry(org, table)).toBeUndefined();
  expectError(await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}`), 404, 'not_found');
  expect(await rowCount(org, table)).toBe(0);
}

/** A table snapshot that must survive a failed import unchanged: API records and the raw rows. */
async function snapshot(org: TestOrg, table: string) {
  const raw: Rec[] = await h.services.db.query(
    `SELECT key, value, expires_at, record_timestamp, created_at, updated_at FROM data_store_records
     WHERE organization_id = $1 AND table_name = $2 ORDER BY key`,
    [org.organizationId, table],
  );
  return { records: await recordsOf(org, table), raw, entry: await tableEntry(org, table) };
}

/** Writes records through the ordinary upsert route (not the import). */
async function seed(org: TestOrg, table: string, records: Array<{ key: string; value: Rec }>) {
  const res = await as(h.app, org.ownerToken).post(`/data-stores/tables/${table}`).send({ records });
  expect(res.status).toBe(200);
}

/** Pool clients currently checked out of the app's connection pool. */
function checkedOut(): number {
  const pool = (h.services.db.driver as unknown as { master: { totalCount: number; idleCount: number } }).master;
  return pool.totalCount - pool.idleCount;
}

type Detail = { path: string; message: string };
const detailsOf = (res: request.Response): Detail[] => res.body.error.details ?? [];
const pathsOf = (res: request.Response) => detailsOf(res).map((d) => d.path);

/** An app like h.app but whose import limit is `importLimitBytes`, on the same database and Temporal connection. */
function appWithImportLimit(importLimitBytes: number): Express {
  const { config, logger, db, keyring, temporal } = h.services;
  return createApp(createServices({ config: { ...config, dataStores: { ...config.dataStores, importLimitBytes } }, logger, db, keyring, temporal }));
}

/** Sends `chunks` with Transfer-Encoding: chunked (no Content-Length) to a listening copy of `app`. */
async function postChunked(app: Express, path: string, headers: Record<string, string>, chunks: Buffer[]) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<{ status: number; body: Rec }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      // The server may answer (and close) before the whole body is sent.
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

// ---------------------------------------------------------------------------

describe('CSV import', () => {
  test('header + rows: 200 with counts, value fields typed by inference', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(
      org,
      'people',
      csv('key,name,age,active,score,zip,big,sci,note', 'p1,Ann,42,true,1.5,007,12345678901234567890,1.5e3,', 'p2,Bob,-3,false,0,0,9007199254740991,2E-2,x'),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'people', format: 'csv', records: 2, created: 2, updated: 0 });

    expect(await valuesOf(org, 'people')).toEqual({
      p1: { name: 'Ann', age: 42, active: true, score: 1.5, zip: '007', big: '12345678901234567890', sci: 1500, note: null },
      p2: { name: 'Bob', age: -3, active: false, score: 0, zip: 0, big: 9007199254740991, sci: 0.02, note: 'x' },
    });
  });

  test('cells that only look like numbers or booleans stay text', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 't', csv('key,a,b,c,d,e,f,g,h', 'k,TRUE,False,1e400,+1,1.,.5, 7 ,9007199254740993'));
    expect(res.status).toBe(200);
    expect((await valuesOf(org, 't')).k).toEqual({ a: 'TRUE', b: 'False', c: '1e400', d: '+1', e: '1.', f: '.5', g: ' 7 ', h: '9007199254740993' });
  });

  test('?types=string keeps every cell as text, empty cells as ""', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'strings', csv('key,n,flag,empty,zip', 'a,42,true,,007'), 'types=string');
    expect(res.status).toBe(200);
    expect((await valuesOf(org, 'strings')).a).toEqual({ n: '42', flag: 'true', empty: '', zip: '007' });
  });

  test('quoted cells may hold commas, doubled quotes and newlines', async () => {
    const org = await createTestOrg(h.services);
    const text = [
      'key,text,n',
      'comma,"hello, world",1',
      'quote,"she said ""hi""",2',
      'newline,"first line',
      'second line",3',
      '"quoted,key",plain,4',
      '',
    ].join('\n');
    const res = await importCsv(org, 'quoted', text);
    expect(res.status).toBe(200);
    expect(res.body.records).toBe(4);
    expect(await valuesOf(org, 'quoted')).toEqual({
      comma: { text: 'hello, world', n: 1 },
      quote: { text: 'she said "hi"', n: 2 },
      newline: { text: 'first line\nsecond line', n: 3 },
      'quoted,key': { text: 'plain', n: 4 },
    });
  });

  test('a UTF-8 BOM, CRLF line endings and a missing final newline are fine', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'crlf', '\uFEFFkey,city,n\r\na,Zürich,1\r\nb,"multi\r\nline",2\r\nc,Oslo,3');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ records: 3, created: 3 });
    expect(await valuesOf(org, 'crlf')).toEqual({
      a: { city: 'Zürich', n: 1 },
      b: { city: 'multi\r\nline', n: 2 },
      c: { city: 'Oslo', n: 3 },
    });
  });

  test('blank lines are skipped', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'blanks', 'key,n\n\na,1\n\n\nb,2\n\n');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ records: 2, created: 2 });
    expect(await valuesOf(org, 'blanks')).toEqual({ a: { n: 1 }, b: { n: 2 } });
  });

  test('header names are trimmed', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'trimmed', csv(' key , first name ,n', 'a,Ann,1'));
    expect(res.status).toBe(200);
    expect((await valuesOf(org, 'trimmed')).a).toEqual({ 'first name': 'Ann', n: 1 });
  });

  test('?keyColumn=id takes the key from that column and keeps it in the value; no "key" column needed', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'byid', csv('id,name', '1,one', 'A-2,two'), 'keyColumn=id');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ records: 2, created: 2 });
    expect(await valuesOf(org, 'byid')).toEqual({ '1': { id: 1, name: 'one' }, 'A-2': { id: 'A-2', name: 'two' } });

    // A "key" column beside a custom key column is just data.
    const again = await importCsv(org, 'byid2', csv('id,key', 'x,not-the-key'), 'keyColumn=id&types=string');
    expect(again.status).toBe(200);
    expect(await valuesOf(org, 'byid2')).toEqual({ x: { id: 'x', key: 'not-the-key' } });
  });

  test('expiresAt, ttlSeconds and recordTimestamp columns set the record fields and stay out of the value', async () => {
    const org = await createTestOrg(h.services);
    const before = Date.now();
    const res = await importCsv(
      org,
      'timed',
      csv(
        'key,name,expiresAt,ttlSeconds,recordTimestamp',
        'a,x,2099-01-01T00:00:00Z,,2024-05-06T07:08:09Z',
        'b,y,,3600,',
        'c,z,,,2020-01-01T00:00:00+02:00',
        'd,w,,,',
      ),
    );
    const after = Date.now();
    expect(res.status).toBe(200);
    const recs = await recordsOf(org, 'timed');
    for (const r of Object.values(recs)) expect(Object.keys(r.value)).toEqual(['name']);
    expect(recs.a).toMatchObject({ expiresAt: '2099-01-01T00:00:00.000Z', recordTimestamp: '2024-05-06T07:08:09.000Z' });
    const bExpiry = Date.parse(recs.b.expiresAt);
    expect(bExpiry).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(bExpiry).toBeLessThanOrEqual(after + 3600_000 + 1000);
    expect(recs.c).toMatchObject({ expiresAt: null, recordTimestamp: '2019-12-31T22:00:00.000Z' });
    expect(recs.d.expiresAt).toBeNull();
    // Without a recordTimestamp the write time is used.
    const dTs = Date.parse(recs.d.recordTimestamp);
    expect(dTs).toBeGreaterThanOrEqual(before - 1000);
    expect(dTs).toBeLessThanOrEqual(after + 1000);
  });

  test('records are readable one by one, and keys and values with backslashes and unicode round-trip exactly', async () => {
    const org = await createTestOrg(h.services);
    const keys = ['C:\\dir\\file', '\\N', 'ünïcödé-€-😀', 'with space', 'a/b?c#d'];
    const text = csv('key,v,w', ...keys.map((k, i) => `"${k}","\\N","\\.\\\\ tab\there ${i}"`));
    const res = await importCsv(org, 'tricky', text);
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(keys.length);
    const values = await valuesOf(org, 'tricky');
    expect(Object.keys(values).sort()).toEqual([...keys].sort());
    keys.forEach((k, i) => expect(values[k]).toEqual({ v: '\\N', w: `\\.\\\\ tab\there ${i}` }));
    const one = await as(h.app, org.tokens.viewer).get(`/data-stores/tables/tricky/records/${encodeURIComponent('C:\\dir\\file')}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ key: 'C:\\dir\\file', tableName: 'tricky', organizationId: org.organizationId });
  });

  test('the imported table is listed with createdVia "import" and its record count; records carry the full shape', async () => {
    const org = await createTestOrg(h.services);
    const rows = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')},${i}`);
    const res = await importCsv(org, 'listed', csv('key,n', ...rows));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'listed', format: 'csv', records: 25, created: 25, updated: 0 });

    const entry = await tableEntry(org, 'listed');
    expect(entry).toMatchObject({ tableName: 'listed', createdVia: 'import', recordCount: 25 });
    expect(new Date(entry!.createdAt).toISOString()).toBe(entry!.createdAt);

    const page = await as(h.app, org.tokens.viewer).get('/data-stores/tables/listed?limit=5&count=true');
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(25);
    expect(page.body.data.map((r: Rec) => r.key)).toEqual(['k00', 'k01', 'k02', 'k03', 'k04']);
    const r = page.body.data[0];
    expect(r).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      suid: expect.any(String),
      organizationId: org.organizationId,
      tableName: 'listed',
      key: 'k00',
      value: { n: 0 },
      expiresAt: null,
      recordTimestamp: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(r.createdAt).toBe(r.updatedAt);
    // SQL agrees: 25 records and one __meta__ row.
    expect(await rowCount(org, 'listed')).toBe(26);
  });

  test('importing into a table created through the API keeps createdVia "api"', async () => {
    const org = await createTestOrg(h.services);
    expect((await as(h.app, org.ownerToken).post('/data-stores/tables').send({ tableName: 'pre' })).status).toBe(201);
    const res = await importCsv(org, 'pre', csv('key,n', 'a,1'));
    expect(res.status).toBe(200);
    expect(await tableEntry(org, 'pre')).toMatchObject({ createdVia: 'api', recordCount: 1 });
  });

  // BUG (import-formats.ts): `value[name] = …` on a plain object sets its prototype instead (see the report).
  test('a column named __proto__ is kept in the value or refused, never silently dropped', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'proto', csv('key,__proto__,n', 'a,x,1'));
    if (res.status !== 200) {
      expectError(res, 400);
      await expectNoTable(org, 'proto');
      return;
    }
    const [row] = await h.services.db.query(
      `SELECT value ? '__proto__' AS kept FROM data_store_records WHERE organization_id = $1 AND table_name = 'proto' AND key = 'a'`,
      [org.organizationId],
    );
    expect(row.kept).toBe(true);
  });

  test('bad query parameters and table names are 400 before anything is read', async () => {
    const org = await createTestOrg(h.services);
    expectError(await importCsv(org, 't', csv('key', 'a'), 'types=number'), 400, 'validation_failed');
    expectError(await importCsv(org, 't', csv('key', 'a'), 'delimiter=%3B'), 400, 'validation_failed');
    expectError(await importCsv(org, 't', csv('key', 'a'), 'keyColumn='), 400, 'validation_failed');
    expectError(await importCsv(org, '1bad', csv('key', 'a')), 400, 'validation_failed');
    await expectNoTable(org, 't');
  });
});

describe('re-import over existing keys', () => {
  test('upserts: existing keys are updated (value replaced, not merged), new keys created', async () => {
    const org = await createTestOrg(h.services);
    const first = await importCsv(org, 'stock', csv('key,qty,color', 'a,1,red', 'b,2,blue', 'c,3,green'));
    expect(first.body).toMatchObject({ created: 3, updated: 0 });
    const before = await recordsOf(org, 'stock');

    const second = await importCsv(org, 'stock', csv('key,qty,size', 'b,20,L', 'c,30,M', 'd,40,S'));
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ tableName: 'stock', format: 'csv', records: 3, created: 1, updated: 2 });

    const after = await recordsOf(org, 'stock');
    expect(Object.fromEntries(Object.entries(after).map(([k, r]) => [k, r.value]))).toEqual({
      a: { qty: 1, color: 'red' },
      b: { qty: 20, size: 'L' },
      c: { qty: 30, size: 'M' },
      d: { qty: 40, size: 'S' },
    });
    // Updated records keep their identity and creation time.
    expect(after.b.id).toBe(before.b.id);
    expect(after.b.createdAt).toBe(before.b.createdAt);
    expect(Date.parse(after.b.updatedAt)).toBeGreaterThan(Date.parse(before.b.updatedAt));
    expect(after.a).toEqual(before.a);
    expect(await tableEntry(org, 'stock')).toMatchObject({ recordCount: 4, createdVia: 'import' });
  });

  test('re-importing a record drops an expiry the file does not give', async () => {
    const org = await createTestOrg(h.services);
    await importCsv(org, 'exp', csv('key,n,ttlSeconds', 'a,1,600'));
    expect((await recordsOf(org, 'exp')).a.expiresAt).not.toBeNull();
    const res = await importCsv(org, 'exp', csv('key,n', 'a,2'));
    expect(res.body).toMatchObject({ created: 0, updated: 1 });
    expect((await recordsOf(org, 'exp')).a).toMatchObject({ value: { n: 2 }, expiresAt: null });
  });

  test('an expired record overwritten by an import counts as created', async () => {
    const org = await createTestOrg(h.services);
    await importCsv(org, 'gone', csv('key,n', 'a,1', 'b,2'));
    await h.services.db.query(
      `UPDATE data_store_records SET expires_at = now() - interval '1 minute'
       WHERE organization_id = $1 AND table_name = 'gone' AND key = 'a'`,
      [org.organizationId],
    );
    const res = await importCsv(org, 'gone', csv('key,n', 'a,10', 'b,20'));
    expect(res.body).toMatchObject({ records: 2, created: 1, updated: 1 });
    expect(await valuesOf(org, 'gone')).toEqual({ a: { n: 10 }, b: { n: 20 } });
  });
});

describe('JSON and NDJSON import', () => {
  test('JSON array of records: counts, values, expiresAt and ttlSeconds', async () => {
    const org = await createTestOrg(h.services);
    const before = Date.now();
    const res = await importJson(org, 'docs', [
      { key: 'a', value: { nested: { deep: [1, 2, { x: null }] }, s: 'text' } },
      { key: 'b', value: {}, expiresAt: '2099-06-01T12:00:00.000Z' },
      { key: 'c', value: { n: 1.25 }, ttlSeconds: 60, recordTimestamp: '2024-01-01T00:00:00Z' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'docs', format: 'json', records: 3, created: 3, updated: 0 });
    const recs = await recordsOf(org, 'docs');
    expect(recs.a).toMatchObject({ value: { nested: { deep: [1, 2, { x: null }] }, s: 'text' }, expiresAt: null });
    expect(recs.b).toMatchObject({ value: {}, expiresAt: '2099-06-01T12:00:00.000Z' });
    expect(recs.c).toMatchObject({ value: { n: 1.25 }, recordTimestamp: '2024-01-01T00:00:00.000Z' });
    expect(Date.parse(recs.c.expiresAt) - before).toBeGreaterThanOrEqual(59_000);
    expect(Date.parse(recs.c.expiresAt) - before).toBeLessThanOrEqual(62_000);

    const again = await importJson(org, 'docs', [
      { key: 'a', value: { replaced: true } },
      { key: 'z', value: {} },
    ]);
    expect(again.body).toEqual({ tableName: 'docs', format: 'json', records: 2, created: 1, updated: 1 });
    expect((await valuesOf(org, 'docs')).a).toEqual({ replaced: true });
    expect(await tableEntry(org, 'docs')).toMatchObject({ createdVia: 'import', recordCount: 4 });
  });

  test('JSON values keep strings that look like numbers, and big numbers as JSON numbers', async () => {
    const org = await createTestOrg(h.services);
    const res = await importJson(org, 'types', [{ key: 'a', value: { s: '007', n: 7, f: false, big: 1e20 } }]);
    expect(res.status).toBe(200);
    expect((await valuesOf(org, 'types')).a).toEqual({ s: '007', n: 7, f: false, big: 1e20 });
  });

  test('NDJSON: one record per line, blank lines skipped, CRLF accepted', async () => {
    const org = await createTestOrg(h.services);
    const text = '{"key":"a","value":{"n":1}}\r\n\r\n{"key":"b","value":{"n":2},"ttlSeconds":120}\r\n   \r\n{"key":"c","value":{"s":"x\\ny"}}';
    const res = await importNdjson(org, 'lines', text);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'lines', format: 'ndjson', records: 3, created: 3, updated: 0 });
    const recs = await recordsOf(org, 'lines');
    expect(recs.a.value).toEqual({ n: 1 });
    expect(recs.b.value).toEqual({ n: 2 });
    expect(recs.b.expiresAt).not.toBeNull();
    expect(recs.c.value).toEqual({ s: 'x\ny' });
  });

  test('application/jsonl is NDJSON too', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'jl', 'ndjson', '{"key":"a","value":{}}\n', { contentType: 'application/jsonl' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'ndjson', records: 1 });
  });

  // BUG (record-staging.ts): PostgreSQL's jsonb refuses an unpaired surrogate escape; the import answers 500 (see the report).
  test('a value with an unpaired UTF-16 surrogate (valid JSON, not storable) is 400 naming the item, not 500', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'surrogate', 'json', '[{"key":"ok","value":{}},{"key":"a","value":{"s":"\\ud800"}}]');
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual([expect.stringMatching(/^item 1\b/)]);
    await expectNoTable(org, 'surrogate');
  });

  test('an NDJSON problem row is named by its file line (blank lines counted)', async () => {
    const org = await createTestOrg(h.services);
    const text = '{"key":"a","value":{}}\n\n{"key":"__meta__","value":{}}\n{"key":"b","value":[]}\n';
    const res = await importNdjson(org, 'ndbad', text);
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 3.key', 'line 4.value']);
    await expectNoTable(org, 'ndbad');
  });
});

describe('all or nothing: bad rows', () => {
  const BAD_FILE = csv(
    'key,n,expiresAt', //                  line 1
    'good1,1,', //                         line 2
    '__meta__,2,', //                      line 3: reserved key
    ',3,', //                              line 4: empty key
    `${'k'.repeat(256)},4,`, //            line 5: key too long
    'good2,5,', //                         line 6
    'past,6,2000-01-01T00:00:00Z', //      line 7: expiry in the past
    'garbled,7,next tuesday', //           line 8: not a date
    '__other__,8,', //                     line 9: reserved form
    'good3,9,', //                         line 10
  );

  test('400 import_rejected listing every bad row by file line; the new table is not created', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'fresh', BAD_FILE);
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 3.key', 'line 4.key', 'line 5.key', 'line 7.expiresAt', 'line 8.expiresAt', 'line 9.key']);
    const byPath = Object.fromEntries(detailsOf(res).map((d) => [d.path, d.message]));
    expect(byPath['line 3.key']).toMatch(/reserved/);
    expect(byPath['line 4.key']).toMatch(/empty/);
    expect(byPath['line 5.key']).toMatch(/255/);
    expect(byPath['line 7.expiresAt']).toMatch(/future/);
    expect(res.body.error.message).toMatch(/nothing was imported/);
    await expectNoTable(org, 'fresh');
    expect(await rowCount(org)).toBe(0);
  });

  test('an existing table is left exactly as it was', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 'kept', [
      { key: 'good1', value: { orig: 1 } },
      { key: 'good2', value: { orig: 2 } },
      { key: 'other', value: { orig: 3 } },
    ]);
    const before = await snapshot(org, 'kept');
    expect(before.raw).toHaveLength(4);

    const res = await importCsv(org, 'kept', BAD_FILE);
    expectError(res, 400, 'import_rejected');
    expect(await snapshot(org, 'kept')).toEqual(before);
    expect(await rowCount(org, 'kept')).toBe(4);
  });

  test('a row setting both expiresAt and ttlSeconds, a bad ttlSeconds, and a NUL character are rejected too', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(
      org,
      'misc',
      csv('key,v,expiresAt,ttlSeconds', 'a,1,2099-01-01T00:00:00Z,60', 'b,2,,soon', 'c,3,,0', 'd,nul\u0000here,,', 'e,5,,'),
    );
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 2.ttlSeconds', 'line 3.ttlSeconds', 'line 4.ttlSeconds', expect.stringMatching(/^line 5\.value/)]);
    await expectNoTable(org, 'misc');
  });

  test('a value over 256 KiB is rejected with its line', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'huge', csv('key,blob', 'small,x', `big,${'x'.repeat(256 * 1024)}`));
    expectError(res, 400, 'import_rejected');
    expect(detailsOf(res)).toEqual([{ path: 'line 3.value', message: expect.stringMatching(/bytes/) }]);
    await expectNoTable(org, 'huge');
  });

  test('past 100 problems the report stops at 100 (and says so)', async () => {
    const org = await createTestOrg(h.services);
    const rows = Array.from({ length: 300 }, (_, i) => `__bad${i}__,${i}`);
    const res = await importCsv(org, 'many', csv('key,n', ...rows));
    expectError(res, 400, 'import_rejected');
    expect(detailsOf(res)).toHaveLength(100);
    expect(detailsOf(res)[0].path).toBe('line 2.key');
    expect(detailsOf(res)[99].path).toBe('line 101.key');
    expect(res.body.error.message).toMatch(/100\+ problem/);
    await expectNoTable(org, 'many');
  });

  test('a bad row after a quoted multi-line cell is named by its own line', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'ml', csv('key,text', 'a,"one', 'two', 'three"', ',empty key'));
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 5.key']);
  });

  // BUG: a multi-line row is reported at the line where it ends, not where it starts (see report).
  test('a bad row that spans lines is named by the line where it starts', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'ml2', csv('key,text', 'ok,x', '__meta__,"one', 'two', 'three"', 'ok2,y'));
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 3.key']);
  });

  test('JSON items that are not records are rejected by item index', async () => {
    const org = await createTestOrg(h.services);
    const res = await importJson(org, 'items', [
      { key: 'ok', value: {} },
      5,
      { key: 'novalue' },
      { key: 'extra', value: {}, color: 'red' },
      { key: 'arr', value: [1] },
      'text',
      null,
      { key: 'both', value: {}, expiresAt: '2099-01-01T00:00:00Z', ttlSeconds: 5 },
      { key: 7, value: {} },
    ]);
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['item 1', 'item 2.value', 'item 3.color', 'item 4.value', 'item 5', 'item 6', 'item 7.ttlSeconds', 'item 8.key']);
    await expectNoTable(org, 'items');
  });
});

describe('all or nothing: repeated keys', () => {
  test('a key twice in one CSV is 400 import_rejected naming both lines; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'dups', csv('key,n', 'a,1', 'b,2', 'c,3', 'a,4', 'd,5', 'b,6'));
    expectError(res, 400, 'import_rejected');
    expect(detailsOf(res)).toEqual([
      { path: 'line 5.key', message: expect.stringContaining('line 2') },
      { path: 'line 7.key', message: expect.stringContaining('line 3') },
    ]);
    expect(detailsOf(res)[0].message).toContain('"a"');
    await expectNoTable(org, 'dups');
  });

  test('in an existing table nothing changes', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 'dupkept', [{ key: 'a', value: { orig: true } }]);
    const before = await snapshot(org, 'dupkept');
    const res = await importCsv(org, 'dupkept', csv('key,n', 'a,1', 'new,2', 'a,3'));
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 4.key']);
    expect(await snapshot(org, 'dupkept')).toEqual(before);
  });

  test('keys that differ only by case or trailing space are distinct', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'near', csv('key,n', 'a,1', 'A,2', '"a ",3'));
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(3);
  });

  test('repeats in JSON and NDJSON name items and lines', async () => {
    const org = await createTestOrg(h.services);
    const json = await importJson(org, 'jd', [
      { key: 'x', value: {} },
      { key: 'y', value: {} },
      { key: 'x', value: { n: 2 } },
    ]);
    expectError(json, 400, 'import_rejected');
    expect(detailsOf(json)).toEqual([{ path: 'item 2.key', message: expect.stringContaining('item 0') }]);
    const nd = await importNdjson(org, 'jd', '{"key":"x","value":{}}\n\n{"key":"x","value":{}}\n');
    expectError(nd, 400, 'import_rejected');
    expect(detailsOf(nd)).toEqual([{ path: 'line 3.key', message: expect.stringContaining('line 1') }]);
    await expectNoTable(org, 'jd');
  });
});

describe('unreadable files', () => {
  const csvCases = [
    // csv-parse reports where parsing stopped: the end of the file for an unclosed quote.
    { label: 'an unclosed quote', text: csv('key,n', 'a,1', 'b,"2', 'c,3'), code: 'import_unreadable', message: /Quote Not Closed.*line \d/ },
    { label: 'a row with an extra column', text: csv('key,n', 'a,1', 'b,2,3', 'c,3'), code: 'import_unreadable', message: /expect 2, got 3 on line 3/ },
    { label: 'a row with a missing column', text: csv('key,n,m', 'a,1,1', 'b,2'), code: 'import_unreadable', message: /line 3/ },
    { label: 'a stray quote inside a cell', text: csv('key,n', 'a,1', 'b,x"y'), code: 'import_unreadable', message: /quote.*line 3/i },
    { label: 'a header without the key column', text: csv('id,n', 'a,1'), code: 'import_unreadable', message: /no "key" column.*"id", "n"/ },
    { label: 'duplicate header names', text: csv('key,n,n', 'a,1,2'), code: 'import_unreadable', message: /"n" twice/ },
    { label: 'an unnamed header column', text: csv('key,,n', 'a,1,2'), code: 'import_unreadable', message: /column 2 has no name/ },
    { label: 'an empty file', text: '', code: 'import_unreadable', message: /empty/ },
    { label: 'only blank lines', text: '\n\n\n', code: 'import_unreadable', message: /empty/ },
    { label: 'a header and no rows', text: csv('key,n'), code: 'import_empty', message: /no records/ },
  ];
  test.each(csvCases)('CSV with $label is 400 $code and stores nothing', async ({ text, code, message }) => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'broken', text);
    expectError(res, 400, code);
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.message).toMatch(/nothing was imported/);
    await expectNoTable(org, 'broken');
  });

  test('a header without the custom key column names that column', async () => {
    const org = await createTestOrg(h.services);
    const res = await importCsv(org, 'nokey', csv('key,n', 'a,1'), 'keyColumn=sku');
    expectError(res, 400, 'import_unreadable');
    expect(res.body.error.message).toMatch(/"sku"/);
    await expectNoTable(org, 'nokey');
  });

  // BUG (import-formats.ts formatFailure): a parse error while the upload is still arriving comes back as 500 (see the report).
  test.each([
    {
      format: 'csv' as const,
      body: (rows: string[]) => csv('key,n', 'a,99', ...rows.map((k, i) => `${k},${i}`), 'z,1,extra', 'y,2'),
      message: /CSV.*line 20003/,
    },
    {
      format: 'json' as const,
      body: (rows: string[]) => `[${rows.map((key) => JSON.stringify({ key, value: {} })).join(',')},{"key":"z",value}]`,
      message: /JSON/,
    },
  ])('$format: a syntax error after 20,000 good rows is 400 import_unreadable and leaves an existing table unchanged', async ({ format, body, message }) => {
    const org = await createTestOrg(h.services);
    await seed(org, 'stays', [{ key: 'a', value: { n: 1 } }]);
    const before = await snapshot(org, 'stays');
    const res = await importFile(org, 'stays', format, body(Array.from({ length: 20_000 }, (_, i) => `r${i}`)), { timeoutMs: 15_000 });
    expect(await snapshot(org, 'stays')).toEqual(before);
    expectError(res, 400, 'import_unreadable');
    expect(res.body.error.message).toMatch(message);
  });

  const jsonCases = [
    { label: 'a truncated array', text: '[{"key":"a","value":{}},{"key":"b","val', code: 'import_unreadable', message: /JSON/ },
    { label: 'a top-level object', text: '{"key":"a","value":{}}', code: 'import_unreadable', message: /array/ },
    { label: 'a top-level string', text: '"records"', code: 'import_unreadable', message: /array/ },
    { label: 'trailing garbage', text: '[{"key":"a","value":{}}] extra', code: 'import_unreadable', message: /JSON/ },
    { label: 'an empty array', text: '[]', code: 'import_empty', message: /no records/ },
  ];
  test.each(jsonCases)('JSON with $label is 400 $code and stores nothing', async ({ text, code, message }) => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'jbroken', 'json', text);
    expectError(res, 400, code);
    expect(res.body.error.message).toMatch(message);
    await expectNoTable(org, 'jbroken');
  });

  test('an empty JSON body is 400 and stores nothing', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'jempty', 'json', '');
    expect(res.status).toBe(400);
    expect(['import_unreadable', 'import_empty']).toContain(res.body.error.code);
    await expectNoTable(org, 'jempty');
  });

  test('NDJSON with a line that is not JSON is 400 naming the line', async () => {
    const org = await createTestOrg(h.services);
    const res = await importNdjson(org, 'ndbroken', '{"key":"a","value":{}}\n\n{"key":"b", value}\n{"key":"c","value":{}}\n');
    expectError(res, 400, 'import_unreadable');
    expect(res.body.error.message).toMatch(/NDJSON line 3/);
    await expectNoTable(org, 'ndbroken');
  });

  test('NDJSON with a JSON array on a line is rejected as not a record', async () => {
    const org = await createTestOrg(h.services);
    const res = await importNdjson(org, 'ndarr', '[{"key":"a","value":{}}]\n');
    expectError(res, 400, 'import_rejected');
    expect(pathsOf(res)).toEqual(['line 1']);
    await expectNoTable(org, 'ndarr');
  });

  test('NDJSON with only blank lines is import_empty', async () => {
    const org = await createTestOrg(h.services);
    expectError(await importNdjson(org, 'ndempty', '\n  \n\r\n'), 400, 'import_empty');
    await expectNoTable(org, 'ndempty');
  });

  test('a rejection early in a large file is answered promptly, for every format', async () => {
    const org = await createTestOrg(h.services);
    const n = 40_000; // about 3 MB per file after the bad part
    const pad = 'x'.repeat(40);
    const bad = Array.from({ length: 150 }, (_, i) => `__bad${i}__`);
    const goodKeys = Array.from({ length: n }, (_, i) => `k${i}`);
    const bodies: Array<[Format, string]> = [
      ['csv', csv('key,pad', ...bad.map((k) => `${k},x`), ...goodKeys.map((k) => `${k},${pad}`))],
      ['ndjson', [...bad, ...goodKeys].map((key) => JSON.stringify({ key, value: { pad } })).join('\n')],
      ['json', JSON.stringify([...bad, ...goodKeys].map((key) => ({ key, value: { pad } })))],
    ];
    for (const [format, body] of bodies) {
      const res = await importFile(org, `early_${format}`, format, body);
      expectError(res, 400, 'import_rejected');
      expect(detailsOf(res)).toHaveLength(100);
      await expectNoTable(org, `early_${format}`);
    }
    // An unreadable line right at the start of a large NDJSON file too.
    const nd = `{"key":"a","value":{}}\nnot json\n${goodKeys.map((key) => JSON.stringify({ key, value: { pad } })).join('\n')}`;
    expectError(await importNdjson(org, 'early_nd2', nd), 400, 'import_unreadable');
  });
});

describe('content type and encoding', () => {
  test('text/plain is 415 naming the accepted types; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'ct', 'csv', csv('key', 'a'), { contentType: 'text/plain' });
    expectError(res, 415, 'unsupported_media_type');
    expect(res.body.error.message).toMatch(/text\/csv/);
    await expectNoTable(org, 'ct');
  });

  test('a charset parameter on the content type is fine', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'cs', 'csv', csv('key', 'a'), { contentType: 'text/csv; charset=utf-8' });
    expect(res.status).toBe(200);
  });

  test('Content-Encoding br is 415; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'br', 'csv', csv('key', 'a'), { headers: { 'Content-Encoding': 'br' } });
    expectError(res, 415, 'unsupported_media_type');
    expect(res.body.error.message).toMatch(/br/);
    await expectNoTable(org, 'br');
  });

  test('gzip-compressed CSV, JSON and NDJSON import fine', async () => {
    const org = await createTestOrg(h.services);
    const rows = Array.from({ length: 1000 }, (_, i) => `k${i},${i},"name ${i}"`);
    const gz = { headers: { 'Content-Encoding': 'gzip' } };
    const res = await importFile(org, 'gz', 'csv', gzipSync(csv('key,n,name', ...rows)), gz);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ records: 1000, created: 1000 });
    expect(await tableEntry(org, 'gz')).toMatchObject({ recordCount: 1000 });
    expect((await as(h.app, org.ownerToken).get('/data-stores/tables/gz/records/k999')).body.value).toEqual({ n: 999, name: 'name 999' });

    const json = await importFile(org, 'gzj', 'json', gzipSync(JSON.stringify([{ key: 'a', value: { n: 1 } }])), gz);
    expect(json.body).toEqual({ tableName: 'gzj', format: 'json', records: 1, created: 1, updated: 0 });
    const nd = await importFile(org, 'gzn', 'ndjson', gzipSync('{"key":"a","value":{}}\n{"key":"b","value":{}}\n'), gz);
    expect(nd.body).toEqual({ tableName: 'gzn', format: 'ndjson', records: 2, created: 2, updated: 0 });
  });

  // BUG (upload.ts): the error reaches the body stream before the importer reads it → unhandled 'error' event.
  // BUG (import-formats.ts, NDJSON): readline never ends on an already-failed source → the request hangs.
  test.each(['csv', 'json', 'ndjson'] as const)('%s: bytes that are not gzip are 400 invalid_gzip; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'badgz', format, Buffer.from('this is not gzip'), { headers: { 'Content-Encoding': 'gzip' }, timeoutMs: 3000 });
    expectError(res, 400, 'invalid_gzip');
    await expectNoTable(org, 'badgz');
  });

  test('truncated gzip is 400 invalid_gzip; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const full = gzipSync(csv('key,n', ...Array.from({ length: 500 }, (_, i) => `k${i},${i}`)));
    const res = await importFile(org, 'cutgz', 'csv', full.subarray(0, full.length - 12), { headers: { 'Content-Encoding': 'gzip' } });
    expectError(res, 400, 'invalid_gzip');
    await expectNoTable(org, 'cutgz');
  });
});

describe('size limit', () => {
  const LIMIT = 1000;
  let small: Express;
  beforeAll(() => {
    small = appWithImportLimit(LIMIT);
  });
  const overLimit = {
    csv: csv('key,n', ...Array.from({ length: 200 }, (_, i) => `key-${i},${i}`)),
    json: JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: { n: i } }))),
    ndjson: Array.from({ length: 100 }, (_, i) => JSON.stringify({ key: `k${i}`, value: { n: i } })).join('\n'),
  };

  test('a file under the limit imports normally on the small-limit app', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'fits', 'csv', csv('key,n', 'a,1', 'b,2'), { app: small });
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(2);
  });

  test.each(['csv', 'json', 'ndjson'] as const)('%s: a declared Content-Length over the limit is 413 payload_too_large; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    expect(Buffer.byteLength(overLimit[format])).toBeGreaterThan(LIMIT);
    const res = await importFile(org, 'toobig', format, overLimit[format], { app: small });
    expectError(res, 413, 'payload_too_large');
    expect(res.body.error.message).toMatch(/1000 bytes/);
    await expectNoTable(org, 'toobig');
  });

  // BUG (upload.ts): unhandled 'error' event; for NDJSON also a hung request (see the report).
  test.each(['csv', 'json', 'ndjson'] as const)('%s: a gzip body that inflates past the limit is 413; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    const compressed = gzipSync(overLimit[format]);
    expect(compressed.length).toBeLessThan(LIMIT);
    const res = await importFile(org, 'bomb', format, compressed, { app: small, headers: { 'Content-Encoding': 'gzip' }, timeoutMs: 3000 });
    expectError(res, 413, 'payload_too_large');
    await expectNoTable(org, 'bomb');
  });

  // BUG (upload.ts): unhandled 'error' event (see the report).
  test('a chunked upload without Content-Length is cut off at the limit with 413; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const body = Buffer.from(overLimit.csv);
    const res = await postChunked(small, '/data-stores/tables/chunked/import', { Authorization: `Bearer ${org.ownerToken}`, 'Content-Type': 'text/csv' }, [
      body.subarray(0, 700),
      body.subarray(700),
    ]);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    await expectNoTable(org, 'chunked');
  });

  test('an existing table is untouched by an oversized import', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 'limited', [{ key: 'key-1', value: { orig: true } }]);
    const before = await snapshot(org, 'limited');
    expectError(await importFile(org, 'limited', 'csv', overLimit.csv, { app: small }), 413, 'payload_too_large');
    expect(await snapshot(org, 'limited')).toEqual(before);
  });
});

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
      await new Promise((resolve) => setTimeout(resolve, 300));
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
