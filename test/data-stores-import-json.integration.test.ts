import { createTestOrg } from './factories';
import { expectError, type Harness, startHarness } from './harness';
import { dataStoreImports, pathsOf } from './data-store-import';

/** POST /data-stores/tables/:tableName/import of JSON arrays and NDJSON lines. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importFile, importJson, importNdjson, recordsOf, valuesOf, tableEntry, expectNoTable } = dataStoreImports(() => h);

describe('JSON and NDJSON import', () => {
  test('JSON array of records: counts, values, expiresAt and ttlSeconds', async () => {
    const org = await createTestOrg(h.services);
    const before = Date.now();
    const res = await importJson(org, 'docs', [
      { key: 'a', value: { nested: { deep: [1, 2, { x: null }] }, s: 'text' } },
      { key: 'b', value: {}, expiresAt: '2099-06-01T12:00:00.000Z' },
      { key: 'c', value: { n: 1.25 }, ttlSeconds: 60, recordTimestamp: '2024-01-01T00:00:00Z' },
    ]);
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tableName: 'docs', format: 'json', records: 3, created: 3, updated: 0 });
    const recs = await recordsOf(org, 'docs');
    expect(recs.a).toMatchObject({ value: { nested: { deep: [1, 2, { x: null }] }, s: 'text' }, expiresAt: null });
    expect(recs.b).toMatchObject({ value: {}, expiresAt: '2099-06-01T12:00:00.000Z' });
    expect(recs.c).toMatchObject({ value: { n: 1.25 }, recordTimestamp: '2024-01-01T00:00:00.000Z' });
    expect(Date.parse(recs.c.expiresAt) - before).toBeGreaterThanOrEqual(59_000);
    // The request's own duration on top: a loaded machine may take seconds to answer.
    expect(Date.parse(recs.c.expiresAt) - before).toBeLessThanOrEqual(after - before + 61_000);

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
