import { createTestOrg } from './factories';
import { expectError, type Harness, startHarness } from './harness';
import { bytewise, dataStoreApi, expectInvalid, expectRecordShape, type Json, type Query, tableUrl } from './data-store-api';

/** GET /data-stores/tables/{tableName}: order, prefix, where filters, paging and counts. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
const { owner, seed, read, keysOf, filtered } = dataStoreApi(() => h);

describe('GET /data-stores/tables/{tableName} (read)', () => {
  test('hides __meta__ and returns every key in bytewise (code point) order', async () => {
    const org = await createTestOrg(h.services);
    const keys = ['b', 'B', 'a', 'A', '_x', '10', '9', 'é', 'ﬀ', '😀', 'a b', 'a/b', 'Z', '~'];
    await seed(org, 't', Object.fromEntries(keys.map((k) => [k, { k }])));
    const page = await read(org, 't');
    expect(Object.keys(page).sort()).toEqual(['data', 'nextAfter']);
    expect(page.nextAfter).toBeNull();
    expect(page.data.map((r) => r.key)).toEqual([...keys].sort(bytewise));
    expect(page.data.map((r) => r.key).indexOf('B')).toBeLessThan(page.data.map((r) => r.key).indexOf('a'));
    for (const r of page.data) {
      expectRecordShape(r);
      expect(r.value).toEqual({ k: r.key });
    }
  });

  test('prefix: case-sensitive, unicode, LIKE wildcards taken literally, no match gives an empty page', async () => {
    const org = await createTestOrg(h.services);
    const keys = [
      'order:1',
      'order:2',
      'order:10',
      'orders',
      'Order:3',
      'refund:1',
      'ördér:1',
      'ördér:2',
      'ördéz',
      '😀a',
      '😀b',
      '😁',
      'a_b',
      'axb',
      'a%c',
      'abc',
    ];
    await seed(org, 't', Object.fromEntries(keys.map((k) => [k, {}])));
    const cases: Array<[string, string[]]> = [
      ['order:', ['order:1', 'order:10', 'order:2']],
      ['order', ['order:1', 'order:10', 'order:2', 'orders']],
      ['orders', ['orders']],
      ['Order', ['Order:3']],
      ['ORDER', []],
      ['zzz', []],
      ['ördér:', ['ördér:1', 'ördér:2']],
      ['ö', ['ördér:1', 'ördér:2', 'ördéz']],
      ['😀', ['😀a', '😀b']],
      ['a_', ['a_b']],
      ['a%', ['a%c']],
    ];
    for (const [prefix, expected] of cases) expect({ prefix, keys: await keysOf(org, 't', { prefix }) }).toEqual({ prefix, keys: expected });
    expect(await keysOf(org, 't', { prefix: '' })).toHaveLength(keys.length);
  });

  describe('where filters', () => {
    const ORDERS: Record<string, Json> = {
      o1: { status: 'paid', total: 120, customer: { country: 'FR', vip: true }, tags: ['a'], note: null },
      o2: { status: 'open', total: 80, customer: { country: 'DE', vip: false } },
      o3: { status: 'paid', total: '95', customer: { country: 'FR' } },
      o4: { status: 'void', total: 100, flag: true },
      o5: { total: 200.5, customer: { country: 'US' }, flag: false },
    };
    async function ordersOrg() {
      const org = await createTestOrg(h.services);
      await seed(org, 'orders', ORDERS);
      return org;
    }

    test('equality on strings, numbers, booleans, null, arrays and whole nested objects; dotted paths', async () => {
      const org = await ordersOrg();
      const cases: Array<[unknown, string[]]> = [
        [{ status: 'paid' }, ['o1', 'o3']],
        [{ total: 100 }, ['o4']],
        [{ total: 100.0 }, ['o4']],
        [{ total: '95' }, ['o3']],
        [{ total: 95 }, []],
        [{ flag: true }, ['o4']],
        [{ flag: false }, ['o5']],
        [{ note: null }, ['o1']],
        [{ tags: ['a'] }, ['o1']],
        [{ customer: { country: 'DE', vip: false } }, ['o2']],
        [{ customer: { country: 'FR' } }, ['o3']],
        [{ 'customer.country': 'FR' }, ['o1', 'o3']],
        [{ 'customer.vip': false }, ['o2']],
        [{ 'customer.country': 'FR', status: 'paid', total: 120 }, ['o1']],
        [{ 'customer.country.code': 'FR' }, []],
        [{ status: { $eq: 'open' } }, ['o2']],
        [{ missing: 'x' }, []],
      ];
      for (const [where, expected] of cases) expect({ where, keys: await filtered(org, 'orders', where) }).toEqual({ where, keys: expected });
    });

    test('$ne (a missing field is not equal), $gt/$gte/$lt/$lte (like types only), $in, $exists', async () => {
      const org = await ordersOrg();
      const cases: Array<[unknown, string[]]> = [
        [{ status: { $ne: 'paid' } }, ['o2', 'o4', 'o5']],
        [{ 'customer.vip': { $ne: true } }, ['o2', 'o3', 'o4', 'o5']],
        [{ total: { $gt: 100 } }, ['o1', 'o5']],
        [{ total: { $gte: 100 } }, ['o1', 'o4', 'o5']],
        [{ total: { $lt: 100 } }, ['o2']],
        [{ total: { $lte: 100 } }, ['o2', 'o4']],
        [{ total: { $gte: 80, $lt: 150 } }, ['o1', 'o2', 'o4']],
        [{ total: { $gt: 200.25 } }, ['o5']],
        [{ total: { $gt: -1e9 } }, ['o1', 'o2', 'o4', 'o5']],
        // Strings compare with strings only: '95' is the one string total.
        [{ total: { $gt: '9' } }, ['o3']],
        [{ total: { $lt: '9' } }, []],
        [{ status: { $lt: 'p' } }, ['o2']],
        [{ status: { $gte: 'paid' } }, ['o1', 'o3', 'o4']],
        [{ status: { $gt: 1 } }, []],
        [{ 'customer.vip': { $gte: 0 } }, []],
        [{ 'customer.country': { $in: ['DE', 'US'] } }, ['o2', 'o5']],
        [{ total: { $in: [100, 'paid', '95'] } }, ['o3', 'o4']],
        [{ status: { $in: ['nope'] } }, []],
        [{ status: { $exists: false } }, ['o5']],
        [{ status: { $exists: true } }, ['o1', 'o2', 'o3', 'o4']],
        [{ note: { $exists: true } }, ['o1']],
        [{ 'customer.vip': { $exists: true } }, ['o1', 'o2']],
        [{ 'customer.vip': { $exists: false }, customer: { $exists: true } }, ['o3', 'o5']],
      ];
      for (const [where, expected] of cases) expect({ where, keys: await filtered(org, 'orders', where) }).toEqual({ where, keys: expected });
    });

    test('prefix and where combine', async () => {
      const org = await ordersOrg();
      await seed(org, 'orders', { 'refund:1': { status: 'paid', total: 120 }, 'refund:2': { status: 'open' } });
      expect(await filtered(org, 'orders', { status: 'paid' })).toEqual(['o1', 'o3', 'refund:1']);
      expect(await filtered(org, 'orders', { status: 'paid' }, { prefix: 'refund:' })).toEqual(['refund:1']);
      expect(await filtered(org, 'orders', { status: 'paid' }, { prefix: 'o' })).toEqual(['o1', 'o3']);
      expect(await filtered(org, 'orders', { total: { $gte: 100 } }, { prefix: 'zzz' })).toEqual([]);
    });

    test('an invalid where is 400 with details on query.where', async () => {
      const org = await ordersOrg();
      const bad = [
        'not json',
        '{"status": ',
        '[{"status":"paid"}]',
        '"paid"',
        'null',
        '42',
        '{"status":{"$regex":"^p"}}',
        '{"total":{"$gt":{"n":1}}}',
        '{"total":{"$gt":null}}',
        '{"total":{"$gt":true}}',
        '{"status":{"$in":[]}}',
        '{"status":{"$in":"paid"}}',
        '{"status":{"$exists":"yes"}}',
        '{"a..b":1}',
        '{".a":1}',
        '{"":1}',
      ];
      for (const where of bad) {
        const res = await owner(org).get(tableUrl('orders')).query({ where });
        expect({ where, status: res.status }).toEqual({ where, status: 400 });
        expectInvalid(res, 'query.where');
      }
      const unknownOp = await owner(org).get(tableUrl('orders')).query({ where: '{"status":{"$regex":"^p"}}' });
      expect(unknownOp.body.error.details[0].message).toContain('$regex');
    });
  });

  test('pagination: limit with nextAfter/after visits every record exactly once, in order', async () => {
    const org = await createTestOrg(h.services);
    const keys = Array.from({ length: 21 }, (_, i) => `key-${String(i).padStart(2, '0')}`);
    await seed(org, 't', Object.fromEntries(keys.map((k, i) => [k, { i, even: i % 2 === 0 }])));

    const walk = async (query: Query) => {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page = await read(org, 't', { ...query, ...(after === null ? {} : { after }) });
        expect(page.data.length).toBeLessThanOrEqual(Number(query.limit));
        seen.push(...page.data.map((r) => r.key));
        after = page.nextAfter;
        if (after !== null) expect(after).toBe(page.data[page.data.length - 1].key);
        pages++;
      } while (after !== null && pages < 50);
      return { seen, pages };
    };
    // 21 = 3 × 7: the last full page already says there is nothing more.
    expect(await walk({ limit: 7 })).toEqual({ seen: keys, pages: 3 });
    expect(await walk({ limit: 5 })).toEqual({ seen: keys, pages: 5 });
    expect(await walk({ limit: 4, where: JSON.stringify({ even: true }) })).toEqual({ seen: keys.filter((_, i) => i % 2 === 0), pages: 3 });
    expect(await keysOf(org, 't', { after: 'key-19' })).toEqual(['key-20']);
    expect(await keysOf(org, 't', { after: 'key-20' })).toEqual([]);
    expect(await keysOf(org, 't', { after: 'key-05x', limit: 2 })).toEqual(['key-06', 'key-07']);
  });

  test('offset skips records; count=true adds the total of records matching the filter', async () => {
    const org = await createTestOrg(h.services);
    const keys = Array.from({ length: 12 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    await seed(org, 't', Object.fromEntries(keys.map((k, i) => [k, { i, big: i >= 5 }])));
    await seed(org, 't', { other: { big: true } });
    expect(await keysOf(org, 't', { limit: 3, offset: 4 })).toEqual(['k04', 'k05', 'k06']);
    expect(await keysOf(org, 't', { offset: 13 })).toEqual([]);

    const counted = await read(org, 't', { count: 'true', limit: 2, prefix: 'k', where: JSON.stringify({ big: true }) });
    expect(counted.total).toBe(7);
    expect(counted.data.map((r) => r.key)).toEqual(['k05', 'k06']);
    expect(counted.nextAfter).toBe('k06');
    expect((await read(org, 't', { count: 'true' })).total).toBe(13);
    expect((await read(org, 't', { count: 'true', prefix: 'nope' })).total).toBe(0);
    expect(await read(org, 't', { count: 'false', limit: 1 })).not.toHaveProperty('total');
  });

  test('unknown table is 404; bad query parameters are 400', async () => {
    const org = await createTestOrg(h.services);
    expectError(await owner(org).get(tableUrl('missing')), 404, 'not_found');
    await seed(org, 't', { a: {} });
    const get = (query: Query) => owner(org).get(tableUrl('t')).query(query);
    expectInvalid(await get({ limit: 0 }), 'query.limit');
    expectInvalid(await get({ limit: 1001 }), 'query.limit');
    expectInvalid(await get({ offset: -1 }), 'query.offset');
    expectInvalid(await get({ count: 'yes' }), 'query.count');
    expectInvalid(await get({ prefix: 'p'.repeat(256) }), 'query.prefix');
    expectInvalid(await get({ after: 'p'.repeat(256) }), 'query.after');
    expectInvalid(await get({ sort: 'key' }), 'query.sort');
    expectInvalid(await owner(org).get(tableUrl('9t')), 'params.tableName');
  });

  test('a NUL character in prefix, after or where is a 400, not a database error (500)', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { a: {} });
    const queries: Query[] = [
      { prefix: 'a\u0000' },
      { after: '\u0000' },
      { where: JSON.stringify({ 'a\u0000': 1 }) },
      { where: JSON.stringify({ a: '\u0000' }) },
    ];
    const statuses = [];
    for (const query of queries) statuses.push({ query, status: (await owner(org).get(tableUrl('t')).query(query)).status });
    expect(statuses).toEqual(queries.map((query) => ({ query, status: 400 })));
  });

  test('a number operand beyond double range (1e400 parses to Infinity) does not match every number', async () => {
    const org = await createTestOrg(h.services);
    await seed(org, 't', { small: { n: 1 }, nul: { n: null } });
    // Either refused (400), or compared as the number it stands for: 1 < Infinity, and nothing equals it.
    const cases: Array<[string, string[]]> = [
      ['{"n":{"$gt":1e400}}', []],
      ['{"n":{"$lt":1e400}}', ['small']],
      ['{"n":1e400}', []],
    ];
    const wrong = [];
    for (const [where, expected] of cases) {
      const res = await owner(org).get(tableUrl('t')).query({ where });
      const keys = res.status === 200 ? res.body.data.map((r: Json) => r.key) : undefined;
      if (res.status !== 400 && JSON.stringify(keys) !== JSON.stringify(expected)) wrong.push({ where, status: res.status, keys, expected });
    }
    expect(wrong).toEqual([]);
  });
});
