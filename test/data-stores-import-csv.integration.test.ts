import { createTestOrg } from './factories';
import { as, expectError, type Harness, startHarness } from './harness';
import { csv, dataStoreImports, type Rec } from './data-store-import';

/**
 * POST /data-stores/tables/:tableName/import of CSV files: parsing, typing of
 * cells, the key and record-field columns, and re-importing over existing keys.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { importCsv, recordsOf, valuesOf, tableEntry, rowCount, expectNoTable } = dataStoreImports(() => h);

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
