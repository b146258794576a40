import { modelVersion, UNEXPLAINED_REFUSAL } from '../cube/semantic-layer';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';

/**
 * Every query Cube refuses is the caller's mistake: 400 `invalid_query` saying
 * what is wrong and where, the same on POST /dashboards/analytics/query, on
 * the CSV export and in a widget's data (its own call, and its entry in the
 * dashboard's). A failure that is not the query's stays a 500.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const FIELDS = {
  amount: { type: 'number', label: 'Amount', measure: true },
  city: { type: 'string', label: 'City' },
  qty: { type: 'number', label: 'Quantity' },
  at: { type: 'date', label: 'At', timeDimension: true },
};
const RECORDS = {
  k1: { amount: 10, city: 'Paris', qty: 1, at: '2026-03-10T03:30:00Z' },
  k2: { amount: 20, city: 'Berlin', qty: 5, at: '2026-03-11T12:00:00Z' },
};

async function makeSource(org: TestOrg, name = uniqueName('Sales')): Promise<{ id: string; ds: string }> {
  const table = uniqueName('sales');
  await seedRecords(h.app, org, table, RECORDS);
  const res = await owner(org)
    .post('/dashboards/data-sources')
    .send({ name, dataStoreTableName: table, recordSchema: { name, fields: FIELDS } });
  expectStatus(res, 201);
  return { id: res.body.id, ds: res.body.servingRelation };
}

async function addWidget(org: TestOrg, dashboardId: string, dataSourceId: string, queryConfig: Json): Promise<string> {
  const res = await owner(org)
    .post(`/dashboards/${dashboardId}/widgets`)
    .send({ title: uniqueName('W'), chartType: 'table', dataSourceId, queryConfig });
  expectStatus(res, 201);
  return res.body.id;
}

/**
 * A mistake: the query (given the member namer of the source and of a second
 * source), where the problem is in the query, what the message says, and the
 * name (member, value or group) the message must hold.
 */
type Member = (field: string) => string;
type Mistake = [name: string, query: (m: Member, other: Member) => Json, path: string, says: RegExp, names: (m: Member, other: Member) => string];

const counted = (m: Member, extra: Json) => ({ measures: [m('count')], ...extra });
const filtered = (m: Member, filter: Json) => counted(m, { filters: [filter] });

const MISTAKES: Mistake[] = [
  [
    'measureFilter on a dimension',
    (m) => filtered(m, { member: m('city'), operator: 'measureFilter' }),
    'filters.0.member',
    /measureFilter applies to measures only/,
    (m) => m('city'),
  ],
  [
    'measureFilter on a dimension, named by `dimension`',
    (m) => filtered(m, { dimension: m('qty'), operator: 'measureFilter' }),
    'filters.0.dimension',
    /measureFilter applies to measures only/,
    (m) => m('qty'),
  ],
  ['a measure under dimensions', (m) => ({ dimensions: [m('city'), m('amount')] }), 'dimensions.1', /is a measure, not a dimension/, (m) => m('amount')],
  ['a dimension under measures', (m) => ({ measures: [m('city')] }), 'measures.0', /is a string dimension, not a measure/, (m) => m('city')],
  [
    'a text operator on a number dimension',
    (m) => filtered(m, { member: m('qty'), operator: 'contains', values: ['1'] }),
    'filters.0.member',
    /"contains" matches text/,
    (m) => m('qty'),
  ],
  [
    'a text operator on a measure',
    (m) => filtered(m, { member: m('amount'), operator: 'endsWith', values: ['0'] }),
    'filters.0.member',
    /"endsWith" matches text/,
    (m) => m('amount'),
  ],
  [
    'a text operator on the time dimension',
    (m) => filtered(m, { member: m('at'), operator: 'startsWith', values: ['2026'] }),
    'filters.0.member',
    /"startsWith" matches text/,
    (m) => m('at'),
  ],
  [
    'a date operator on a string dimension',
    (m) => filtered(m, { member: m('city'), operator: 'inDateRange', values: ['2026-01-01', '2026-12-31'] }),
    'filters.0.member',
    /date operator "inDateRange"/,
    (m) => m('city'),
  ],
  [
    'a date operator on a measure',
    (m) => filtered(m, { member: m('amount'), operator: 'beforeDate', values: ['2026-01-01'] }),
    'filters.0.member',
    /not a time dimension/,
    (m) => m('amount'),
  ],
  [
    'a word compared with a number dimension',
    (m) => filtered(m, { member: m('qty'), operator: 'gt', values: ['many'] }),
    'filters.0.values.0',
    /"many" is not a number/,
    (m) => m('qty'),
  ],
  [
    'a word compared with a measure',
    (m) => filtered(m, { member: m('amount'), operator: 'equals', values: ['lots'] }),
    'filters.0.values.0',
    /"lots" is not a number/,
    (m) => m('amount'),
  ],
  [
    'a fraction compared with count',
    (m) => filtered(m, { member: m('count'), operator: 'gte', values: ['1.5'] }),
    'filters.0.values.0',
    /"1.5" is not a whole number/,
    (m) => m('count'),
  ],
  [
    'a word compared with the time dimension',
    (m) => filtered(m, { member: m('at'), operator: 'lt', values: ['soon'] }),
    'filters.0.values.0',
    /"soon" is not a date/,
    (m) => m('at'),
  ],
  [
    'a date operator with words',
    (m) => filtered(m, { member: m('at'), operator: 'inDateRange', values: ['2026-01-01', 'later'] }),
    'filters.0.values.1',
    /"later" is not a date/,
    (m) => m('at'),
  ],
  [
    'an operator without values',
    (m) => filtered(m, { member: m('city'), operator: 'notEquals' }),
    'filters.0.values',
    /needs at least one value/,
    (m) => m('city'),
  ],
  [
    'a granularity on a string dimension',
    (m) => counted(m, { timeDimensions: [{ dimension: m('city'), granularity: 'month' }] }),
    'timeDimensions.0.dimension',
    /not a time dimension: only a date field can be grouped/,
    (m) => m('city'),
  ],
  [
    'a date range on a number dimension',
    (m) => counted(m, { timeDimensions: [{ dimension: m('qty'), dateRange: 'last 7 days' }] }),
    'timeDimensions.0.dimension',
    /not a time dimension/,
    (m) => m('qty'),
  ],
  [
    'a measure as the time dimension',
    (m) => counted(m, { timeDimensions: [{ dimension: m('amount'), granularity: 'day' }] }),
    'timeDimensions.0.dimension',
    /is a measure, not a time dimension/,
    (m) => m('amount'),
  ],
  [
    'an unknown granularity',
    (m) => counted(m, { timeDimensions: [{ dimension: m('at'), granularity: 'fortnight' }] }),
    'timeDimensions.0.granularity',
    /Unknown granularity "fortnight"/,
    (m) => m('at'),
  ],
  [
    'a date range phrase Cube cannot read',
    (m) => counted(m, { timeDimensions: [{ dimension: m('at'), dateRange: 'last fortnight' }] }),
    'timeDimensions.0.dateRange',
    /is not a date range/,
    () => 'last fortnight',
  ],
  [
    'a date range pair with a non-date',
    (m) => counted(m, { timeDimensions: [{ dimension: m('at'), dateRange: ['2026-01-01', '2026-02-30'] }] }),
    'timeDimensions.0.dateRange.1',
    /is not a date/,
    () => '2026-02-30',
  ],
  [
    'a timeRange Cube cannot read',
    (m) => counted(m, { timeRange: { type: 'relative', value: 'whenever' } }),
    'timeRange.value',
    /is not a date range/,
    () => 'whenever',
  ],
  ['a segment', (m) => counted(m, { segments: [m('city')] }), 'segments.0', /not a segment: data sources define no segments/, (m) => m('city')],
  [
    'an or group mixing a measure and a dimension',
    (m) =>
      filtered(m, {
        or: [
          { member: m('amount'), operator: 'gt', values: [1] },
          { member: m('city'), operator: 'equals', values: ['Paris'] },
        ],
      }),
    'filters.0',
    /"or" group mixes the measure .* and the dimension/,
    (m) => m('amount'),
  ],
  [
    'an and group mixing them one level down',
    (m) =>
      counted(m, {
        filters: [
          { member: m('city'), operator: 'set' },
          { and: [{ member: m('city'), operator: 'set' }, { or: [{ member: m('count'), operator: 'gt', values: [0] }] }] },
        ],
      }),
    'filters.1',
    /"and" group mixes/,
    (m) => m('count'),
  ],
  ['members of two sources', (m, other) => ({ measures: [m('count'), other('count')] }), 'measures.1', /another data source/, (_m, other) => other('count')],
  ['a query that asks for nothing', (m) => ({ filters: [{ member: m('city'), operator: 'set' }] }), '', /asks for nothing/, () => 'measure'],
];

/** A widget reads its own source only: a member of another one matches nothing (201, unknownMembers), as the README says. */
const WIDGET_MISTAKES = MISTAKES.filter(([name]) => name !== 'members of two sources');

describe('queries Cube refuses: 400 invalid_query naming what is wrong, on every path', () => {
  let org: TestOrg;
  let sales: { id: string; ds: string };
  let other: { id: string; ds: string };
  let dashboardId: string;
  const widgets = new Map<string, string>();
  const m = (f: string) => `${sales.ds}.${f}`;
  const o = (f: string) => `${other.ds}.${f}`;
  const inQuery = (path: string) => (path ? `query.${path}` : 'query');
  const inWidget = (path: string) => (path ? `queryConfig.${path}` : 'queryConfig');

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    [sales, other] = await Promise.all([makeSource(org), makeSource(org)]);
    const dashboard = await owner(org)
      .post('/dashboards')
      .send({ name: uniqueName('Refusals') });
    expectStatus(dashboard, 201);
    dashboardId = dashboard.body.id;
    // Widgets save any query of the analytics schema: what the model refuses shows when their data is read.
    for (const [name, query] of WIDGET_MISTAKES) widgets.set(name, await addWidget(org, dashboardId, sales.id, query(m, o)));
  });

  /** The refusal names the place and the member (or value, or group) at fault, in the message as in its details. */
  const expectRefusal = (res: { status: number; body: Json }, path: string, says: RegExp, names: string) => {
    expectError(res as never, 400, 'invalid_query');
    expect(res.body.error.details).toContainEqual({ path, message: expect.stringMatching(says) });
    const detail = res.body.error.details.find((d: Json) => d.path === path);
    expect(detail.message).toContain(names);
    expect(res.body.error.message).toContain(path);
    expect(res.body.error.message).toContain(names);
  };

  test.each(MISTAKES)('%s: the query route', async (_name, query, path, says, names) => {
    const res = await owner(org)
      .post('/dashboards/analytics/query')
      .send({ query: query(m, o) });
    expectRefusal(res, inQuery(path), says, names(m, o));
  });

  test.each(MISTAKES)('%s: the CSV export', async (_name, query, path, says, names) => {
    const res = await owner(org)
      .post('/dashboards/analytics/export-csv')
      .send({ title: 'x', query: query(m, o) });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectRefusal(res, inQuery(path), says, names(m, o));
  });

  test.each(WIDGET_MISTAKES)("%s: the widget's data", async (name, _query, path, says, names) => {
    const res = await owner(org)
      .post(`/dashboards/widgets/${widgets.get(name)}/data`)
      .send({});
    expectRefusal(res, inWidget(path), says, names(m, o));
  });

  test("each widget's entry in the dashboard's data is that refusal, not internal_error", async () => {
    const res = await owner(org).post(`/dashboards/${dashboardId}/data`).send({});
    expectStatus(res, 201);
    const entries = new Map<string, Json>(res.body.widgets.map((e: Json) => [e.widgetId, e]));
    for (const [name, , path, says, names] of WIDGET_MISTAKES) {
      const entry = entries.get(widgets.get(name)!)!;
      expect({ name, error: entry.error }).toEqual({ name, error: { code: 'invalid_query', message: expect.stringMatching(says) } });
      expect(entry.error.message).toContain(inWidget(path));
      expect(entry.error.message).toContain(names(m, o));
    }
  });

  test('a limit out of range is refused by the schema, naming it; a stored widget holding one too', async () => {
    for (const limit of [0, 50_001]) {
      for (const route of ['/dashboards/analytics/query', '/dashboards/analytics/export-csv']) {
        const res = await owner(org)
          .post(route)
          .send({ query: { measures: [m('count')], limit } });
        expectError(res, 400, 'validation_failed');
        expect(res.body.error.details).toEqual([{ path: 'query.limit', message: expect.any(String) }]);
      }
    }
    const widgetId = await addWidget(org, dashboardId, sales.id, { measures: [m('count')] });
    await h.services.db.query(`UPDATE dashboard_widgets SET query_config = query_config || '{"limit": 60000}' WHERE id = $1`, [widgetId]);
    const res = await owner(org).post(`/dashboards/widgets/${widgetId}/data`).send({});
    expectError(res, 400, 'invalid_query');
    expect(res.body.error.details).toEqual([{ path: 'queryConfig.limit', message: expect.any(String) }]);
  });

  test("a dashboard filter's value that does not fit its field is named as the caller's filter, or the dashboard's default", async () => {
    const dashboard = await owner(org)
      .post('/dashboards')
      .send({ name: uniqueName('Filtered') });
    await owner(org)
      .patch(`/dashboards/${dashboard.body.id}`)
      .send({ filterConfig: [{ id: 'qty', dataSourceId: sales.id, dimension: 'qty', label: 'Quantity' }], filterDefaults: { qty: ['one'] } });
    const widgetId = await addWidget(org, dashboard.body.id, sales.id, { measures: [m('count')] });
    const byDefault = await owner(org).post(`/dashboards/widgets/${widgetId}/data`).send({});
    expectRefusal(byDefault, 'dashboard.filterDefaults.qty.0', /"one" is not a number/, m('qty'));
    const chosen = await owner(org)
      .post(`/dashboards/widgets/${widgetId}/data`)
      .send({ filters: { qty: ['5', 'five'] } });
    expectRefusal(chosen, 'filters.qty.1', /"five" is not a number/, m('qty'));
    const fits = await owner(org)
      .post(`/dashboards/widgets/${widgetId}/data`)
      .send({ filters: { qty: ['5'] } });
    expectStatus(fits, 201);
    expect(fits.body.data).toEqual([{ [m('count')]: '1' }]);
  });
});

describe("what only Cube knows: its refusals reach the classifier as refusals, the database's failures do not", () => {
  test('Cube, asked directly, marks what it refuses while reading or building a query; its builder’s own errors get a fixed sentence', async () => {
    const org = await createTestOrg(h.services);
    const { ds } = await makeSource(org);
    const context = { organizationId: org.organizationId, modelVersion: modelVersion(await h.services.dataSources.list(org.organizationId)) };
    // What the service's checks keep from Cube: here Cube sees them, as it would any mistake those checks miss.
    const measureFilterOnDimension = { measures: [`${ds}.count`], filters: [{ member: `${ds}.city`, operator: 'measureFilter' }] };
    const mixedGroup = {
      measures: [`${ds}.count`],
      filters: [
        {
          or: [
            { member: `${ds}.amount`, operator: 'gt', values: ['1'] },
            { member: `${ds}.city`, operator: 'set' },
          ],
        },
      ],
    };
    for (const ask of [(q: Json) => h.services.cube.load(context, q), (q: Json) => h.services.cube.sql(context, q)]) {
      await expect(ask(measureFilterOnDimension)).rejects.toMatchObject({ refused: true, message: UNEXPLAINED_REFUSAL });
      await expect(ask(mixedGroup)).rejects.toMatchObject({
        refused: true,
        message: expect.stringContaining('You cannot use dimension and measure in same condition'),
      });
      await expect(ask({ measures: [`${ds}.count`], timeDimensions: [{ dimension: `${ds}.at`, dateRange: 'whenever' }] })).rejects.toMatchObject({
        refused: true,
        message: "Can't parse date: 'whenever'",
      });
    }
  });

  test('a failure of the database (the serving relation gone) stays a 500 everywhere, never a 400, and leaks nothing', async () => {
    const org = await createTestOrg(h.services);
    const { id, ds } = await makeSource(org);
    const query = { measures: [`${ds}.count`], dimensions: [`${ds}.city`] };
    const dashboard = await owner(org)
      .post('/dashboards')
      .send({ name: uniqueName('Broken') });
    const widgetId = await addWidget(org, dashboard.body.id, id, query);
    // Another query than the ones below: Cube would answer those from its cache for up to a second.
    expectStatus(
      await owner(org)
        .post('/dashboards/analytics/query')
        .send({ query: { measures: [`${ds}.count`] } }),
      201,
    );
    // A defect of ours, not of the query: the relation Cube reads is gone.
    await h.services.db.query(`DROP TABLE analytics."${ds}"`);
    const answers = [
      await owner(org).post('/dashboards/analytics/query').send({ query }),
      await owner(org).post('/dashboards/analytics/export-csv').send({ query }),
      await owner(org).post(`/dashboards/widgets/${widgetId}/data`).send({}),
    ];
    for (const res of answers) {
      expectError(res, 500, 'internal_error');
      expect(JSON.stringify(res.body)).not.toContain(ds);
    }
    const all = await owner(org).post(`/dashboards/${dashboard.body.id}/data`).send({});
    expectStatus(all, 201);
    expect(all.body.widgets).toEqual([{ widgetId, error: { code: 'internal_error', message: 'Internal server error' } }]);
  });
});
