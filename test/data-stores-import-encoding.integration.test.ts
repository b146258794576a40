import { gzipSync } from 'node:zlib';
import type { Express } from 'express';
import { createTestOrg } from './factories';
import type request from 'supertest';
import { as, type Harness, startHarness } from './harness';
import { csv, dataStoreImports, postChunked } from './data-store-import';

/** The import's content types, gzip bodies, and its size limit (declared, inflated or chunked). */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importFile, valuesOf, tableEntry, expectNoTable, snapshot, seed, appWithImportLimit } = dataStoreImports(() => h);

/** The whole error body: its status, code and the message the caller reads. */
function expectRefused(res: request.Response | { status: number; body: Record<string, any> }, status: number, code: string, message: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { code, message, requestId: expect.any(String) } });
}
const NOT_GZIP = 'The body is not valid gzip';
const OVER_LIMIT = 'The upload is larger than the limit of 1000 bytes (after decompression)';

describe('content type and encoding', () => {
  test('text/plain is 415 naming the accepted types; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'ct', 'csv', csv('key', 'a'), { contentType: 'text/plain' });
    expectRefused(res, 415, 'unsupported_media_type', 'Send the file as one of: text/csv, application/json, application/x-ndjson, application/jsonl');
    await expectNoTable(org, 'ct');
  });

  test('a charset parameter on the content type is fine', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'cs', 'csv', csv('key', 'a'), { contentType: 'text/csv; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'cs', format: 'csv', records: 1, created: 1, updated: 0 });
    expect(await valuesOf(org, 'cs')).toEqual({ a: {} });
  });

  test('Content-Encoding br is 415; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'br', 'csv', csv('key', 'a'), { headers: { 'Content-Encoding': 'br' } });
    expectRefused(res, 415, 'unsupported_media_type', 'Content-Encoding "br" is not supported; send gzip or nothing');
    await expectNoTable(org, 'br');
  });

  test('gzip-compressed CSV, JSON and NDJSON import fine', async () => {
    const org = await createTestOrg(h.services);
    const rows = Array.from({ length: 1000 }, (_, i) => `k${i},${i},"name ${i}"`);
    const gz = { headers: { 'Content-Encoding': 'gzip' } };
    const res = await importFile(org, 'gz', 'csv', gzipSync(csv('key,n,name', ...rows)), gz);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'gz', format: 'csv', records: 1000, created: 1000, updated: 0 });
    expect(await tableEntry(org, 'gz')).toMatchObject({ recordCount: 1000 });
    expect((await as(h.app, org.ownerToken).get('/data-stores/tables/gz/records/k999')).body.value).toEqual({ n: 999, name: 'name 999' });

    const json = await importFile(org, 'gzj', 'json', gzipSync(JSON.stringify([{ key: 'a', value: { n: 1 } }])), gz);
    expect(json.body).toEqual({ tableName: 'gzj', format: 'json', records: 1, created: 1, updated: 0 });
    expect(await valuesOf(org, 'gzj')).toEqual({ a: { n: 1 } });
    const nd = await importFile(org, 'gzn', 'ndjson', gzipSync('{"key":"a","value":{}}\n{"key":"b","value":{}}\n'), gz);
    expect(nd.body).toEqual({ tableName: 'gzn', format: 'ndjson', records: 2, created: 2, updated: 0 });
    expect(await valuesOf(org, 'gzn')).toEqual({ a: {}, b: {} });
  });

  // BUG (upload.ts): the error reaches the body stream before the importer reads it → unhandled 'error' event.
  // BUG (import-formats.ts, NDJSON): readline never ends on an already-failed source → the request hangs.
  test.each(['csv', 'json', 'ndjson'] as const)('%s: bytes that are not gzip are 400 invalid_gzip; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    const res = await importFile(org, 'badgz', format, Buffer.from('this is not gzip'), { headers: { 'Content-Encoding': 'gzip' }, timeoutMs: 3000 });
    expectRefused(res, 400, 'invalid_gzip', NOT_GZIP);
    await expectNoTable(org, 'badgz');
  });

  test('truncated gzip is 400 invalid_gzip; nothing stored', async () => {
    const org = await createTestOrg(h.services);
    const full = gzipSync(csv('key,n', ...Array.from({ length: 500 }, (_, i) => `k${i},${i}`)));
    const res = await importFile(org, 'cutgz', 'csv', full.subarray(0, full.length - 12), { headers: { 'Content-Encoding': 'gzip' } });
    expectRefused(res, 400, 'invalid_gzip', NOT_GZIP);
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
    expect(res.body).toEqual({ tableName: 'fits', format: 'csv', records: 2, created: 2, updated: 0 });
    expect(await valuesOf(org, 'fits')).toEqual({ a: { n: 1 }, b: { n: 2 } });
  });

  test.each(['csv', 'json', 'ndjson'] as const)('%s: a declared Content-Length over the limit is 413 payload_too_large; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    expect(Buffer.byteLength(overLimit[format])).toBeGreaterThan(LIMIT);
    const res = await importFile(org, 'toobig', format, overLimit[format], { app: small });
    expectRefused(res, 413, 'payload_too_large', OVER_LIMIT);
    await expectNoTable(org, 'toobig');
  });

  // BUG (upload.ts): unhandled 'error' event; for NDJSON also a hung request (see the report).
  test.each(['csv', 'json', 'ndjson'] as const)('%s: a gzip body that inflates past the limit is 413; nothing stored', async (format) => {
    const org = await createTestOrg(h.services);
    const compressed = gzipSync(overLimit[format]);
    expect(compressed.length).toBeLessThan(LIMIT);
    const res = await importFile(org, 'bomb', format, compressed, { app: small, headers: { 'Content-Encoding': 'gzip' }, timeoutMs: 3000 });
    expectRefused(res, 413, 'payload_too_large', OVER_LIMIT);
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
    expectRefused(res, 413, 'payload_too_large', OVER_LIMIT);
    await expectNoTable(org, 'chunked');
  });

  test('an existing table is untouched by an oversized import', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 'limited', [{ key: 'key-1', value: { orig: true } }]);
    const before = await snapshot(org, 'limited');
    expectRefused(await importFile(org, 'limited', 'csv', overLimit.csv, { app: small }), 413, 'payload_too_large', OVER_LIMIT);
    expect(await snapshot(org, 'limited')).toEqual(before);
  });
});
