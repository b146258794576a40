import { createTestOrg } from './factories';
import { expectError, type Harness, startHarness } from './harness';
import { csv, dataStoreImports, detailsOf, pathsOf } from './data-store-import';

/** All or nothing: an import with bad rows or repeated keys is refused whole, naming each problem, and stores nothing. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importCsv, importJson, importNdjson, rowCount, expectNoTable, snapshot, seed } = dataStoreImports(() => h);

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
