import request from 'supertest';
import { ResultSet } from '@cubejs-client/core';
import { parse } from 'csv-parse/sync';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, waitFor } from './factories';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Json = Record<string, any>;
type Fields = Record<string, Json>;

const owner = (org: TestOrg) => as(h.app, org.ownerToken);
const DAY = 86_400_000;
const FIELDS: Fields = {
  amount: { type: 'number', label: 'Amount', measure: true },
  city: { type: 'string', label: 'City' },
  qty: { type: 'number', label: 'Quantity' },
  at: { type: 'date', label: 'At', timeDimension: true },
};

const write = (org: TestOrg, table: string, records: Record<string, Json>) => seedRecords(h.app, org, table, records);

/** Writes the records, then makes a source over the table; returns its id and Cube name. */
async function makeSource(org: TestOrg, table: string, records: Record<string, Json>, fields: Fields = FIELDS, name = 'Sales') {
  await write(org, table, records);
  const res = await owner(org).post('/dashboards/data-sources').send({ name, dataStoreTableName: table, recordSchema: { name, fields } });
  expectStatus(res, 201);
  return { id: res.body.id as string, ds: res.body.servingRelation as string };
}

async function query(org: TestOrg, q: Json, token = org.ownerToken) {
  const res = await as(h.app, token).post('/dashboards/analytics/query').send({ query: q });
  expectStatus(res, 201);
  return res.body as { data: Json[]; annotation: Json; query: Json; unknownMembers?: string[] };
}

async function rows(org: TestOrg, q: Json) {
  return (await query(org, q)).data;
}

/** The base fixture: k4 has no city; k1 is late on 2026-03-09 in New York. */
const SALES = {
  k1: { amount: 10, city: 'Paris', qty: 1, at: '2026-03-10T03:30:00Z' },
  k2: { amount: 20, city: 'paris', qty: 5, at: '2026-03-11T12:00:00Z' },
  k3: { amount: 5, city: 'Berlin', qty: 3, at: '2026-03-11T13:00:00Z' },
  k4: { amount: 7, qty: 10, at: '2026-03-12T12:00:00Z' },
};

describe('queries over one source', () => {
  let org: TestOrg;
  let ds: string;
  let id: string;
  const m = (field: string) => `${ds}.${field}`;
  const citiesWhere = async (filter: Json) =>
    (await rows(org, { measures: [m('count')], dimensions: [m('city')], filters: [filter], order: { [m('city')]: 'asc' } })).map((r) => [
      r[m('city')],
      r[m('count')],
    ]);

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    ({ id, ds } = await makeSource(org, 'sales', SALES));
  });

  test('meta lists the source with titles and types', async () => {
    const res = await owner(org).get('/dashboards/analytics/meta');
    expectStatus(res, 200);
    // After it, the organization's built-in run sources (Runs as data).
    expect(res.body.slice(0, 1)).toEqual([
      {
        name: ds,
        title: 'Sales',
        measures: expect.arrayContaining([
          { name: m('count'), title: 'Count', type: 'number' },
          { name: m('amount'), title: 'Amount', type: 'number' },
        ]),
        dimensions: expect.arrayContaining([
          { name: m('city'), title: 'City', type: 'string' },
          { name: m('qty'), title: 'Quantity', type: 'number' },
          { name: m('at'), title: 'At', type: 'time' },
        ]),
      },
    ]);
    expect(res.body[0].measures).toHaveLength(2);
    expect(res.body[0].dimensions).toHaveLength(3);
  });

  test('sums and counts by dimension, numbers as strings', async () => {
    const body = await query(org, { measures: [m('amount'), m('count')], dimensions: [m('city')], order: { [m('city')]: 'asc' } });
    expect(body.data).toEqual([
      { [m('city')]: 'Berlin', [m('amount')]: '5', [m('count')]: '1' },
      { [m('city')]: 'Paris', [m('amount')]: '10', [m('count')]: '1' },
      { [m('city')]: 'paris', [m('amount')]: '20', [m('count')]: '1' },
      { [m('city')]: null, [m('amount')]: '7', [m('count')]: '1' },
    ]);
    expect(body.annotation.measures[m('amount')]).toEqual(expect.objectContaining({ title: expect.any(String), type: 'number' }));
    expect(body.query.measures).toEqual([m('amount'), m('count')]);
  });

  test('day buckets in UTC and in America/New_York', async () => {
    const q = (timezone: string) => ({
      measures: [m('count')],
      timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: ['2026-03-01', '2026-03-31'] }],
      order: { [m('at')]: 'asc' },
      timezone,
    });
    const byDay = (data: Json[]) => data.map((r) => [r[`${ds}.at.day`], r[m('count')]]);
    expect(byDay(await rows(org, q('UTC')))).toEqual([
      ['2026-03-10T00:00:00.000', '1'],
      ['2026-03-11T00:00:00.000', '2'],
      ['2026-03-12T00:00:00.000', '1'],
    ]);
    expect(byDay(await rows(org, q('America/New_York')))).toEqual([
      ['2026-03-09T00:00:00.000', '1'],
      ['2026-03-11T00:00:00.000', '2'],
      ['2026-03-12T00:00:00.000', '1'],
    ]);
  });

  test('filters: equals, notEquals, contains, set, notSet', async () => {
    expect(await citiesWhere({ member: m('city'), operator: 'equals', values: ['Paris'] })).toEqual([['Paris', '1']]);
    expect(await citiesWhere({ member: m('city'), operator: 'equals', values: ['Paris', 'Berlin'] })).toEqual([
      ['Berlin', '1'],
      ['Paris', '1'],
    ]);
    // notEquals keeps rows whose value is NULL (Cube writes `<> OR IS NULL`).
    expect(await citiesWhere({ dimension: m('city'), operator: 'notEquals', values: ['Paris'] })).toEqual([
      ['Berlin', '1'],
      ['paris', '1'],
      [null, '1'],
    ]);
    // contains is ILIKE: case-insensitive.
    expect(await citiesWhere({ member: m('city'), operator: 'contains', values: ['PAR'] })).toEqual([
      ['Paris', '1'],
      ['paris', '1'],
    ]);
    expect(await citiesWhere({ member: m('city'), operator: 'set' })).toEqual([
      ['Berlin', '1'],
      ['Paris', '1'],
      ['paris', '1'],
    ]);
    expect(await citiesWhere({ member: m('city'), operator: 'notSet' })).toEqual([[null, '1']]);
  });

  test('gt / lt / gte on a number dimension', async () => {
    const qtys = async (operator: string, value: number) =>
      (await rows(org, { dimensions: [m('qty')], filters: [{ member: m('qty'), operator, values: [value] }], order: { [m('qty')]: 'asc' } })).map(
        (r) => r[m('qty')],
      );
    expect(await qtys('gt', 3)).toEqual(['5', '10']);
    expect(await qtys('lt', 5)).toEqual(['1', '3']);
    expect(await qtys('gte', 5)).toEqual(['5', '10']);
  });

  test('and/or filters and a measure filter', async () => {
    const or = {
      or: [
        { member: m('city'), operator: 'equals', values: ['Berlin'] },
        { member: m('qty'), operator: 'gt', values: [4] },
      ],
    };
    expect(await citiesWhere(or)).toEqual([
      ['Berlin', '1'],
      ['paris', '1'],
      [null, '1'],
    ]);
    expect(await citiesWhere({ member: m('amount'), operator: 'gt', values: ['9'] })).toEqual([
      ['Paris', '1'],
      ['paris', '1'],
    ]);
  });

  test('a typo member gives no rows and names it; a mix with a real member too', async () => {
    const body = await query(org, { measures: [m('count')], dimensions: [m('ciyt')] });
    expect(body.data).toEqual([]);
    expect(body.unknownMembers).toEqual([m('ciyt')]);
    const inFilter = await query(org, {
      measures: [m('amount')],
      filters: [{ member: m('amount2'), operator: 'gt', values: [1] }],
      order: { [m('cty')]: 'asc' },
    });
    expect(inFilter).toEqual(expect.objectContaining({ data: [], unknownMembers: [m('amount2'), m('cty')] }));
  });

  test('a time zone that does not exist is a validation error', async () => {
    const res = await owner(org)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [m('count')], timezone: 'Mars/Olympus' } });
    expectError(res, 400, 'validation_failed');
  });

  test('filters nested thousands of levels deep are a validation error, not a stack overflow; ten levels still run', async () => {
    // Written as text: a client serializing 5,000 levels would overflow its own stack first.
    const nested = (levels: number) => '{"and":['.repeat(levels) + JSON.stringify({ member: m('city'), operator: 'set' }) + ']}'.repeat(levels);
    const body = (levels: number) => `{"query":{"measures":${JSON.stringify([m('count')])},"filters":[${nested(levels)}]}}`;
    const res = await owner(org).post('/dashboards/analytics/query').set('Content-Type', 'application/json').send(body(5000));
    expectError(res, 400, 'validation_failed');
    // Past the bound of every body (64 levels), the input guard answers, naming where it went too deep.
    expect(res.body.error.details).toEqual([{ path: expect.stringMatching(/^query\.filters(\.0\.and)+/), message: 'nests deeper than 64 levels' }]);
    // Within it, the query's own bound on and/or.
    const fifteen = await owner(org).post('/dashboards/analytics/query').set('Content-Type', 'application/json').send(body(15));
    expectError(fifteen, 400, 'validation_failed');
    expect(fifteen.body.error.details).toEqual([{ path: 'query.filters', message: expect.stringContaining('nest at most 10') }]);
    const ten = await owner(org).post('/dashboards/analytics/query').set('Content-Type', 'application/json').send(body(10));
    expectStatus(ten, 201);
    expect(ten.body.data).toHaveLength(1);
  });

  test("Cube's own errors are 400 invalid_query; an unknown operator is refused first, naming the operators", async () => {
    const bad = async (q: Json) => expectError(await owner(org).post('/dashboards/analytics/query').send({ query: q }), 400, 'invalid_query');
    await bad({ measures: [m('count')], timeDimensions: [{ dimension: m('at'), granularity: 'fortnight' }] });
    await bad({ measures: [m('count')], filters: [{ member: m('city'), operator: 'equals' }] });
    const res = await owner(org)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [m('count')], filters: [{ member: m('city'), operator: 'resembles', values: ['x'] }] } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual([{ path: 'query.filters.0.operator', message: expect.stringContaining('notEquals') }]);
  });

  test('the viewer may query; no token is 401', async () => {
    const body = await query(org, { measures: [m('amount')], filters: [{ member: m('city'), operator: 'equals', values: ['Berlin'] }] }, org.tokens.viewer);
    expect(body.data).toEqual([{ [m('amount')]: '5' }]);
    expectError(await request(h.app).get('/dashboards/analytics/meta'), 401);
    expectError(
      await request(h.app)
        .post('/dashboards/analytics/query')
        .send({ query: { measures: [m('count')] } }),
      401,
    );
    expectError(
      await request(h.app)
        .post('/dashboards/analytics/export-csv')
        .send({ query: { measures: [m('count')] } }),
      401,
    );
    expectError(await request(h.app).post('/dashboards/analytics/distinct-values').send({ dataSourceId: id, dimension: 'city' }), 401);
  });

  test('@cubejs-client/core ResultSet reads the answer', async () => {
    const body = await query(org, {
      measures: [m('amount')],
      dimensions: [m('city')],
      filters: [{ member: m('city'), operator: 'set' }],
      order: { [m('city')]: 'asc' },
    });
    const rs = ResultSet.deserialize({ loadResponse: body });
    expect(rs.rawData()).toEqual(body.data);
    // tablePivot keeps the values as the API sent them; chartPivot makes measures numbers.
    expect(rs.tablePivot()).toEqual([
      { [m('city')]: 'Berlin', [m('amount')]: '5' },
      { [m('city')]: 'Paris', [m('amount')]: '10' },
      { [m('city')]: 'paris', [m('amount')]: '20' },
    ]);
    expect(rs.seriesNames()).toEqual([expect.objectContaining({ key: m('amount'), yValues: [m('amount')] })]);
    expect(rs.chartPivot().map((p) => [p.x, p[m('amount')]])).toEqual([
      ['Berlin', 5],
      ['Paris', 10],
      ['paris', 20],
    ]);
    // The same through the client's own multi-result shape.
    const wrapped = ResultSet.deserialize({
      loadResponse: { queryType: 'regularQuery', results: [body], pivotQuery: { ...body.query, queryType: 'regularQuery' } },
    });
    expect(wrapped.tablePivot()).toEqual(rs.tablePivot());
    const series = await query(org, {
      measures: [m('count')],
      timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: ['2026-03-10', '2026-03-12'] }],
    });
    const days = ResultSet.deserialize({ loadResponse: series }).chartPivot();
    expect(days.map((p) => [p.x, p[m('count')]])).toEqual([
      ['2026-03-10T00:00:00.000', 1],
      ['2026-03-11T00:00:00.000', 2],
      ['2026-03-12T00:00:00.000', 1],
    ]);
  });

  test('distinct values: sorted, nulls excluded, search, limit, unknown and disabled sources', async () => {
    const distinct = async (body: Json) => {
      const res = await owner(org)
        .post('/dashboards/analytics/distinct-values')
        .send({ dataSourceId: id, ...body });
      expectStatus(res, 201);
      return res.body.values as string[];
    };
    expect(await distinct({ dimension: 'city' })).toEqual(['Berlin', 'Paris', 'paris']);
    expect(await distinct({ dimension: m('city'), limit: 2 })).toEqual(['Berlin', 'Paris']);
    expect(await distinct({ dimension: 'city', search: 'ARI' })).toEqual(['Paris', 'paris']);
    expect(await distinct({ dimension: 'city', dateRange: ['2026-03-11', '2026-03-11'] })).toEqual(['Berlin', 'paris']);
    expect(await distinct({ dimension: 'qty' })).toEqual([]);
    expect(await distinct({ dimension: 'nope' })).toEqual([]);
    expect(await distinct({ dataSourceId: '00000000-0000-4000-8000-000000000000', dimension: 'city' })).toEqual([]);
    expectStatus(await owner(org).patch(`/dashboards/data-sources/${id}`).send({ enabled: false }), 200);
    try {
      expect(await distinct({ dimension: 'city' })).toEqual([]);
    } finally {
      expectStatus(await owner(org).patch(`/dashboards/data-sources/${id}`).send({ enabled: true }), 200);
    }
  });
});

describe('freshness', () => {
  // Contract: results are cached at most 1 s (refreshKey every 1 second), so the same query sees a write once that second has passed.
  test("records written reach a cached query once its 1 s cache expires (polled up to 3 s: not Cube's default 10 s)", async () => {
    const org = await createTestOrg(h.services);
    const { ds } = await makeSource(org, 'fresh', { f0: { amount: 1, city: 'Rome', qty: 1, at: '2026-03-01T00:00:00Z' } });
    const q = { measures: [`${ds}.count`, `${ds}.amount`] };
    for (let round = 1; round <= 3; round++) {
      expect(await rows(org, q)).toEqual([{ [`${ds}.count`]: String(round), [`${ds}.amount`]: String(round) }]);
      await write(org, 'fresh', { [`f${round}`]: { amount: 1, city: 'Rome', qty: 1, at: '2026-03-01T00:00:00Z' } });
      // Polled: the 1 s bound plus what the queries themselves take on a loaded 2-core machine, still well under
      // the 10 s Cube would cache by default.
      await waitFor(async () => (await rows(org, q))[0]?.[`${ds}.count`] === String(round + 1), { timeoutMs: 3000, what: `round ${round}: the write seen` });
      expect({ round, rows: await rows(org, q) }).toEqual({ round, rows: [{ [`${ds}.count`]: String(round + 1), [`${ds}.amount`]: String(round + 1) }] });
    }
  });
});

describe('tenant isolation', () => {
  test("another org's source is invisible and indistinguishable from a made-up one", async () => {
    const [a, b] = await Promise.all([createTestOrg(h.services), createTestOrg(h.services)]);
    const { ds } = await makeSource(a, 'secret', { s1: { amount: 99, city: 'X', qty: 1, at: '2026-01-01T00:00:00Z' } });
    const { ds: mine } = await makeSource(b, 'mine', { m1: { amount: 1, city: 'Y', qty: 1, at: '2026-01-01T00:00:00Z' } }, FIELDS, 'Mine');
    const meta = await owner(b).get('/dashboards/analytics/meta');
    expect(meta.body.filter((e: Json) => !['Runs', 'Run steps'].includes(e.title)).map((e: Json) => e.name)).toEqual([mine]);
    const theirs = await owner(b)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [`${ds}.amount`] } });
    const madeUp = await owner(b)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: ['ds_nothing.amount'] } });
    expectError(theirs, 400, 'no_data_source');
    const withoutRequestId = (body: Json) => ({ ...body.error, requestId: undefined });
    expect(withoutRequestId(theirs.body)).toEqual(withoutRequestId(madeUp.body));
    const csv = await owner(b)
      .post('/dashboards/analytics/export-csv')
      .send({ query: { measures: [`${ds}.amount`] } });
    expectError(csv, 400, 'no_data_source');
    // A query mixing the caller's source with another org's member: that member is unknown, nothing leaks.
    const mixed = await query(b, { measures: [`${mine}.amount`, `${ds}.amount`] });
    expect(mixed.data).toEqual([]);
    expect(mixed.unknownMembers).toEqual([`${ds}.amount`]);
    // An org without sources of its own gets only its built-in run sources' entries.
    const c = await createTestOrg(h.services);
    expect((await owner(c).get('/dashboards/analytics/meta')).body.map((m: { title: string }) => m.title)).toEqual(['Run steps', 'Runs']);
  });
});

describe('relative date ranges', () => {
  let org: TestOrg;
  let ds: string;
  beforeAll(async () => {
    org = await createTestOrg(h.services);
    const now = Date.now();
    const at = (days: number) => new Date(now - days * DAY).toISOString();
    ({ ds } = await makeSource(org, 'recent', {
      d2: { amount: 1, city: 'A', qty: 1, at: at(2) },
      d10: { amount: 10, city: 'B', qty: 1, at: at(10) },
      d40: { amount: 100, city: 'C', qty: 1, at: at(40) },
    }));
  });

  test('dateRange last 7 / last 30 days', async () => {
    const count = async (dateRange: string) =>
      (await rows(org, { measures: [`${ds}.count`, `${ds}.amount`], timeDimensions: [{ dimension: `${ds}.at`, dateRange }] }))[0];
    expect(await count('last 7 days')).toEqual({ [`${ds}.count`]: '1', [`${ds}.amount`]: '1' });
    expect(await count('last 30 days')).toEqual({ [`${ds}.count`]: '2', [`${ds}.amount`]: '11' });
    expect(await count('last 365 days')).toEqual({ [`${ds}.count`]: '3', [`${ds}.amount`]: '111' });
  });

  test("timeRange without timeDimensions applies to the source's time dimension", async () => {
    const body = await query(org, { measures: [`${ds}.count`], timeRange: { type: 'relative', value: 'last 7 days' } });
    expect(body.data).toEqual([{ [`${ds}.count`]: '1' }]);
    expect(body.query.timeDimensions).toEqual([expect.objectContaining({ dimension: `${ds}.at` })]);
    const month = await rows(org, {
      measures: [`${ds}.count`],
      dimensions: [`${ds}.city`],
      order: { [`${ds}.city`]: 'asc' },
      timeRange: { type: 'relative', value: 'last 30 days' },
    });
    expect(month.map((r) => r[`${ds}.city`])).toEqual(['A', 'B']);
  });
});

describe('calculated fields', () => {
  let org: TestOrg;
  let ds: string;
  const num = { type: 'number', label: 'N' };
  const id = (name: string) => ({ type: 'Identifier', name });
  const lit = (value: number) => ({ type: 'Literal', value, raw: String(value) });
  const bin = (operator: string, left: Json, right: Json) => ({ type: 'BinaryExpression', operator, left, right });

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    const source = await makeSource(
      org,
      'calc',
      { r1: { a: 7, b: 2, at: '2026-01-01T00:00:00Z' }, r2: { a: 5, b: 0, at: '2026-01-02T00:00:00Z' }, r3: { a: 4, at: '2026-01-03T00:00:00Z' } },
      { a: { ...num, label: 'A' }, b: { ...num, label: 'B' }, at: { type: 'date', label: 'At', timeDimension: true } },
      'Calc',
    );
    ds = source.ds;
    const fields: Array<[string, Json, boolean]> = [
      ['plus', bin('+', id('a'), id('b')), false],
      ['minus', bin('-', id('a'), id('b')), false],
      ['times', bin('*', id('a'), id('b')), false],
      ['ratio', bin('/', id('a'), id('b')), false],
      ['rest', bin('%', id('a'), id('b')), false],
      ['doubled', bin('*', id('a'), lit(2)), true],
    ];
    for (const [name, expression, measure] of fields) {
      const res = await owner(org)
        .post(`/dashboards/data-sources/${source.id}/calculated-fields`)
        .send({ name, label: `L ${name}`, type: 'number', expression, formula: name, measure });
      expectStatus(res, 201);
    }
  });

  test('meta marks calculated fields', async () => {
    const [entry] = (await owner(org).get('/dashboards/analytics/meta')).body;
    expect(entry.dimensions).toEqual(
      expect.arrayContaining([
        { name: `${ds}.plus`, title: 'L plus', type: 'number', calculated: true },
        { name: `${ds}.a`, title: 'A', type: 'number' },
      ]),
    );
    expect(entry.dimensions.find((d: Json) => d.name === `${ds}.ratio`)).toEqual({ name: `${ds}.ratio`, title: 'L ratio', type: 'number', calculated: true });
    expect(entry.measures).toEqual(expect.arrayContaining([{ name: `${ds}.doubled`, title: 'L doubled', type: 'number', calculated: true }]));
  });

  test('each operator, division by zero and null operands', async () => {
    const names = ['a', 'b', 'plus', 'minus', 'times', 'ratio', 'rest'];
    const data = await rows(org, { dimensions: names.map((n) => `${ds}.${n}`), order: { [`${ds}.a`]: 'desc' } });
    const asNumbers = data.map((r) => names.map((n) => (r[`${ds}.${n}`] === null ? null : Number(r[`${ds}.${n}`]))));
    expect(asNumbers).toEqual([
      [7, 2, 9, 5, 14, 3.5, 1],
      [5, 0, 5, 5, 0, null, null],
      [4, null, null, null, null, null, null],
    ]);
  });

  test('a calculated measure sums the per-row value', async () => {
    expect(await rows(org, { measures: [`${ds}.doubled`] })).toEqual([{ [`${ds}.doubled`]: '32' }]);
    const filtered = await rows(org, { measures: [`${ds}.doubled`], filters: [{ member: `${ds}.ratio`, operator: 'set' }] });
    expect(filtered).toEqual([{ [`${ds}.doubled`]: '14' }]);
  });
});

describe('window dimensions', () => {
  let org: TestOrg;
  let ds: string;
  beforeAll(async () => {
    org = await createTestOrg(h.services);
    const source = await makeSource(
      org,
      'players',
      {
        a: { name: 'a', team: 'X', score: 30, at: '2026-01-01T00:00:00Z' },
        b: { name: 'b', team: 'Y', score: 10, at: '2026-01-01T00:00:00Z' },
        c: { name: 'c', team: 'X', score: 20, at: '2026-01-01T00:00:00Z' },
        d: { name: 'd', team: 'Y', score: 20, at: '2026-01-01T00:00:00Z' },
        e: { name: 'e', team: 'X', at: '2026-01-01T00:00:00Z' },
      },
      {
        name: { type: 'string', label: 'Name' },
        team: { type: 'string', label: 'Team' },
        score: { type: 'number', label: 'Score' },
        at: { type: 'date', label: 'At', timeDimension: true },
      },
      'Players',
    );
    ds = source.ds;
    const windows = [
      { name: 'upRank', partitionBy: [], orderBy: 'score', direction: 'asc' },
      { name: 'downRank', partitionBy: [], orderBy: 'score', direction: 'desc' },
      { name: 'teamRank', partitionBy: ['team'], orderBy: 'score', direction: 'asc' },
    ];
    for (const w of windows) {
      const res = await owner(org)
        .post(`/dashboards/data-sources/${source.id}/window-dimensions`)
        .send({ ...w, label: w.name, function: 'row_number', semantic: 'lifetime' });
      expectStatus(res, 201);
    }
  });

  const ranks = async (filters: Json[] = []) =>
    (await rows(org, { dimensions: ['name', 'upRank', 'downRank', 'teamRank'].map((n) => `${ds}.${n}`), filters, order: { [`${ds}.name`]: 'asc' } })).map((r) =>
      ['name', 'upRank', 'downRank', 'teamRank'].map((n) => r[`${ds}.${n}`]),
    );

  test('asc / desc order, ties by key, NULLs last, partitions', async () => {
    expect(await ranks()).toEqual([
      ['a', '4', '1', '2'],
      ['b', '1', '4', '1'],
      ['c', '2', '2', '1'],
      ['d', '3', '3', '2'],
      ['e', '5', '5', '3'],
    ]);
  });

  test('window dimensions are number dimensions in meta', async () => {
    const [entry] = (await owner(org).get('/dashboards/analytics/meta')).body;
    expect(entry.dimensions).toEqual(expect.arrayContaining([expect.objectContaining({ name: `${ds}.upRank`, title: 'upRank', type: 'number' })]));
  });

  test('a filter does not renumber (lifetime)', async () => {
    expect(await ranks([{ member: `${ds}.team`, operator: 'equals', values: ['Y'] }])).toEqual([
      ['b', '1', '4', '1'],
      ['d', '3', '3', '2'],
    ]);
    const top = await rows(org, {
      dimensions: [`${ds}.name`],
      filters: [{ member: `${ds}.upRank`, operator: 'lte', values: ['2'] }],
      order: { [`${ds}.name`]: 'asc' },
    });
    expect(top.map((r) => r[`${ds}.name`])).toEqual(['b', 'c']);
  });
});

describe('CSV export', () => {
  let org: TestOrg;
  let ds: string;
  const exportCsv = async (body: Json) => {
    const res = await owner(org)
      .post('/dashboards/analytics/export-csv')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (text += chunk));
        r.on('end', () => done(null, text));
      })
      .send(body);
    return { res, text: res.body as string };
  };

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    ({ ds } = await makeSource(org, 'tricky', {
      t1: { amount: 1.5, city: 'Comma, City', qty: 1, at: '2026-02-01T09:00:00Z' },
      t2: { amount: 2, city: 'Quote "Q"', qty: 1, at: '2026-02-02T10:00:00Z' },
      t3: { amount: 3, city: 'Line\nBreak', qty: 1, at: '2026-02-03T10:00:00Z' },
      t4: { amount: 4, qty: 1, at: '2026-02-03T11:00:00Z' },
    }));
  });

  test('header, filename, escaping of commas, quotes and newlines', async () => {
    const { res, text } = await exportCsv({
      title: 'Sales report',
      query: {
        measures: [`${ds}.amount`],
        dimensions: [`${ds}.city`],
        timeDimensions: [{ dimension: `${ds}.at`, granularity: 'day' }],
        order: { [`${ds}.amount`]: 'asc' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Sales report-${today}.csv"`);
    expect(text.split('\n')[0]).toBe('City,At (day),Amount');
    expect(text).toContain('"Comma, City"');
    expect(text).toContain('"Quote ""Q"""');
    expect(text).toContain('"Line\nBreak"');
    const parsed = parse(text) as string[][];
    expect(parsed).toEqual([
      ['City', 'At (day)', 'Amount'],
      ['Comma, City', '2026-02-01 00:00:00', '1.5'],
      ['Quote "Q"', '2026-02-02 00:00:00', '2'],
      ['Line\nBreak', '2026-02-03 00:00:00', '3'],
      ['', '2026-02-03 00:00:00', '4'],
    ]);
  });

  test('a query naming an unknown member exports the header alone', async () => {
    const { res, text } = await exportCsv({ title: 'x', query: { measures: [`${ds}.count`], dimensions: [`${ds}.nope`] } });
    expect(res.status).toBe(200);
    expect(text).toBe('nope,Count\n');
  });

  test('the viewer may export; time dimensions follow the time zone, as in the query answer', async () => {
    const q = {
      measures: [`${ds}.count`],
      timeDimensions: [{ dimension: `${ds}.at`, granularity: 'month' }],
      order: { [`${ds}.at`]: 'asc' },
      timezone: 'Pacific/Honolulu',
    };
    const answered = (await query(org, q, org.tokens.viewer)).data.map((r) => [r[`${ds}.at.month`], r[`${ds}.count`]]);
    expect(answered).toEqual([
      ['2026-01-01T00:00:00.000', '1'],
      ['2026-02-01T00:00:00.000', '3'],
    ]);
    const res = await as(h.app, org.tokens.viewer).post('/dashboards/analytics/export-csv').send({ title: 'tz', query: q });
    expect(res.status).toBe(200);
    // 2026-02-01T09:00Z is 23:00 on January 31 in Honolulu.
    expect(parse(res.text)).toEqual([
      ['At (month)', 'Count'],
      ['2026-01-01 00:00:00', '1'],
      ['2026-02-01 00:00:00', '3'],
    ]);
  });

  test('long and non-ASCII titles and labels are kept whole; ungrouped exports give one row per record', async () => {
    const label = `Montant encaissé, « net » de toutes les remises accordées aux clients fidèles (${'é'.repeat(40)})`;
    const { ds: longDs } = await makeSource(
      org,
      'labels',
      { a: { amount: 1, city: 'X', qty: 1, at: '2026-05-01T00:00:00Z' }, b: { amount: 1, city: 'X', qty: 2, at: '2026-05-02T00:00:00Z' } },
      { ...FIELDS, amount: { type: 'number', label, measure: true } },
      'Labels',
    );
    const { res, text } = await exportCsv({ title: 'Ventes été', query: { measures: [`${longDs}.amount`], dimensions: [`${longDs}.city`], ungrouped: true } });
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="Ventes ?t?-${today}.csv"; filename*=UTF-8''Ventes%20%C3%A9t%C3%A9-${today}.csv`);
    expect(parse(text)).toEqual([
      ['City', label],
      ['X', '1'],
      ['X', '1'],
    ]);
  });

  test('a big export has every row, with no limit', async () => {
    const big: Record<string, Json> = {};
    for (let i = 0; i < 3000; i++)
      big[`r${String(i).padStart(4, '0')}`] = { amount: i, city: `c${String(i).padStart(4, '0')}`, qty: 1, at: '2026-04-01T00:00:00Z' };
    const { ds: bigDs } = await makeSource(org, 'big', big, FIELDS, 'Big');
    const { res, text } = await exportCsv({
      title: 'big',
      query: { measures: [`${bigDs}.amount`], dimensions: [`${bigDs}.city`], order: { [`${bigDs}.city`]: 'asc' } },
    });
    expect(res.status).toBe(200);
    const parsed = parse(text) as string[][];
    expect(parsed).toHaveLength(3001);
    expect(parsed[0]).toEqual(['City', 'Amount']);
    expect(parsed[1]).toEqual(['c0000', '0']);
    expect(parsed[3000]).toEqual(['c2999', '2999']);
    expect(new Set(parsed.slice(1).map((r) => r[0])).size).toBe(3000);
    // The query endpoint answers every row too (under its ceiling), and honours a limit; so does the export.
    expect(await rows(org, { dimensions: [`${bigDs}.city`] })).toHaveLength(3000);
    expect(await rows(org, { dimensions: [`${bigDs}.city`], limit: 10 })).toHaveLength(10);
    const limited = await exportCsv({ title: 'big', query: { dimensions: [`${bigDs}.city`], order: { [`${bigDs}.city`]: 'desc' }, limit: 2 } });
    expect(parse(limited.text)).toEqual([['City'], ['c2999'], ['c2998']]);
  });
});
