import { WIDGETS_AT_ONCE } from '../src/dashboards/widget-data.service';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { createDashboard as createDashboardOf, createSalesSource } from './dashboard-fixtures';

/**
 * Widget data: POST /dashboards/widgets/{widgetId}/data and POST
 * /dashboards/{id}/data run widgets' queries through the analytics path with
 * the dashboard's filters, the widget's timeRange and the right time zone.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const DAY = 86_400_000;
/** k1 is late on 2026-03-09 in New York, early on the 10th in UTC. */
const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-11T12:00:00Z', amount: 20, region: 'US' },
  k3: { at: '2026-03-11T13:00:00Z', amount: 5, region: 'EU' },
};

const owner = (org: TestOrg) => as(h.app, org.ownerToken);

async function makeSource(org: TestOrg, records: Record<string, Json>): Promise<{ id: string; ds: string }> {
  const source = await createSalesSource(h.app, org, records, uniqueName('Sales'));
  return { id: source.id, ds: source.servingRelation };
}

const createDashboard = (org: TestOrg, body: Json = {}) => createDashboardOf(h.app, org, body);

async function addWidget(org: TestOrg, dashboardId: string, source: { id: string }, queryConfig: Json, extra: Json = {}): Promise<Json> {
  const res = await owner(org)
    .post(`/dashboards/${dashboardId}/widgets`)
    .send({ title: uniqueName('W'), chartType: 'table', dataSourceId: source.id, queryConfig, ...extra });
  expectStatus(res, 201);
  return res.body;
}

async function widgetData(org: TestOrg, widgetId: string, body: Json = {}, token = org.ownerToken) {
  const res = await as(h.app, token).post(`/dashboards/widgets/${widgetId}/data`).send(body);
  expectStatus(res, 201);
  return res.body as { data: Json[]; annotation: Json; query: Json; unknownMembers?: string[] };
}

describe('one widget', () => {
  let org: TestOrg;
  let sales: { id: string; ds: string };
  let recent: { id: string; ds: string };
  let dashboard: Json;
  const m = (field: string) => `${sales.ds}.${field}`;
  const byRegion = () => ({ measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } });
  const regions = (data: Json[]) => data.map((r) => [r[m('region')], r[m('amount')]]);

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    sales = await makeSource(org, SALES);
    const now = Date.now();
    recent = await makeSource(org, {
      d2: { at: new Date(now - 2 * DAY).toISOString(), amount: 1, region: 'EU' },
      d10: { at: new Date(now - 10 * DAY).toISOString(), amount: 100, region: 'APAC' },
    });
    dashboard = await createDashboard(org);
  });

  test('answers as POST /dashboards/analytics/query does, for the same query', async () => {
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    const body = await widgetData(org, widget.id);
    const direct = await owner(org)
      .post('/dashboards/analytics/query')
      .send({ query: { ...byRegion(), timezone: 'UTC' } });
    expectStatus(direct, 201);
    expect(Object.keys(body).sort()).toEqual(['annotation', 'data', 'query']);
    expect(body.data).toEqual(direct.body.data);
    expect(body.annotation).toEqual(direct.body.annotation);
    expect(regions(body.data)).toEqual([
      ['EU', '15'],
      ['US', '20'],
    ]);
    expect(body.query.timezone).toBe('UTC');
  });

  test('any member may read widget data with dashboards:view', async () => {
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    expect((await widgetData(org, widget.id, {}, org.tokens.viewer)).data).toHaveLength(2);
  });

  test("the widget's timeRange bounds its source's time dimension", async () => {
    const week = await addWidget(org, dashboard.id, recent, { measures: [`${recent.ds}.count`], timeRange: { type: 'relative', value: 'last 7 days' } });
    const month = await addWidget(org, dashboard.id, recent, { measures: [`${recent.ds}.count`], timeRange: { type: 'relative', value: 'last 30 days' } });
    expect((await widgetData(org, week.id)).data).toEqual([{ [`${recent.ds}.count`]: '1' }]);
    expect((await widgetData(org, month.id)).data).toEqual([{ [`${recent.ds}.count`]: '2' }]);
  });

  test('a mistyped field answers zero rows, naming it; so does a field of another source or of none', async () => {
    const typo = await addWidget(org, dashboard.id, sales, { measures: [m('amuont')], dimensions: [m('region')] });
    expect(await widgetData(org, typo.id)).toEqual(expect.objectContaining({ data: [], unknownMembers: [m('amuont')] }));
    const otherSource = await addWidget(org, dashboard.id, sales, { measures: [`${recent.ds}.count`] });
    expect(await widgetData(org, otherSource.id)).toEqual(expect.objectContaining({ data: [], unknownMembers: [`${recent.ds}.count`] }));
    const noSource = await addWidget(org, dashboard.id, sales, { measures: ['ds_nope.count'] });
    expect(await widgetData(org, noSource.id)).toEqual(expect.objectContaining({ data: [], unknownMembers: ['ds_nope.count'] }));
  });

  test('a query Cube refuses is 400 invalid_query; one that names nothing is 400 no_data_source', async () => {
    const badGranularity = await addWidget(org, dashboard.id, sales, {
      measures: [m('count')],
      timeDimensions: [{ dimension: m('at'), granularity: 'fortnight' }],
    });
    expectError(await owner(org).post(`/dashboards/widgets/${badGranularity.id}/data`).send({}), 400, 'invalid_query');
    const empty = await addWidget(org, dashboard.id, sales, {});
    expectError(await owner(org).post(`/dashboards/widgets/${empty.id}/data`).send({}), 400, 'no_data_source');
  });

  test('a widget whose source was deleted stays on its dashboard, and its data call fails clearly', async () => {
    const doomed = await makeSource(org, SALES);
    const widget = await addWidget(org, dashboard.id, doomed, { measures: [`${doomed.ds}.count`] }, { title: 'Orphan count' });
    expect((await widgetData(org, widget.id)).data).toEqual([{ [`${doomed.ds}.count`]: '3' }]);
    expectStatus(await owner(org).delete(`/dashboards/data-sources/${doomed.id}`), 200);
    const res = await owner(org).post(`/dashboards/widgets/${widget.id}/data`).send({});
    expectError(res, 400, 'widget_source_unavailable');
    expect(res.body.error.message).toBe(
      `Widget "Orphan count" (${widget.id}) cannot be read: its data source ${doomed.id} no longer exists; point it at another data source`,
    );
    const read = await owner(org).get(`/dashboards/${dashboard.id}`);
    expect(read.body.widgets.find((w: Json) => w.id === widget.id)).toEqual(widget);
    // Pointing it at a live source brings it back.
    expectStatus(
      await owner(org)
        .patch(`/dashboards/widgets/${widget.id}`)
        .send({ dataSourceId: sales.id, queryConfig: { measures: [m('count')] } }),
      200,
    );
    expect((await widgetData(org, widget.id)).data).toEqual([{ [m('count')]: '3' }]);
  });

  test('bad bodies and ids: 400 naming the field, 404 for unknown widgets', async () => {
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    for (const [body, path] of [
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ filters: { region: 'EU' } }, 'filters.region'],
      [{ filters: { region: [1] } }, 'filters.region.0'],
      [{ extra: true }, 'extra'],
    ] as Array<[Json, string]>) {
      const res = await owner(org).post(`/dashboards/widgets/${widget.id}/data`).send(body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((i: Json) => i.path)).toContain(path);
    }
    expectError(await owner(org).post('/dashboards/widgets/00000000-0000-4000-8000-000000000000/data').send({}), 404, 'not_found');
    expectError(await owner(org).post('/dashboards/widgets/nope/data').send({}), 400, 'validation_failed');
  });
});

describe('filters and time zones', () => {
  let org: TestOrg;
  let sales: { id: string; ds: string };
  let other: { id: string; ds: string };
  const m = (field: string) => `${sales.ds}.${field}`;
  const byRegion = () => ({ measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } });
  const regions = (data: Json[]) => data.map((r) => [r[m('region')], r[m('amount')]]);

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    sales = await makeSource(org, SALES);
    other = await makeSource(org, { o1: { at: '2026-03-10T00:00:00Z', amount: 7, region: 'US' } });
  });

  async function filtered(filterConfig: Json[], filterDefaults: Json) {
    const dashboard = await createDashboard(org);
    expectStatus(await owner(org).patch(`/dashboards/${dashboard.id}`).send({ filterConfig, filterDefaults }), 200);
    return dashboard;
  }

  test("the dashboard's defaults apply; the caller's values replace them; [] clears one", async () => {
    const dashboard = await filtered([{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }], { region: ['EU'] });
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    expect(regions((await widgetData(org, widget.id)).data)).toEqual([['EU', '15']]);
    expect(regions((await widgetData(org, widget.id, { filters: { region: ['US'] } })).data)).toEqual([['US', '20']]);
    expect(regions((await widgetData(org, widget.id, { filters: { region: ['US', 'EU'] } })).data)).toEqual([
      ['EU', '15'],
      ['US', '20'],
    ]);
    expect(regions((await widgetData(org, widget.id, { filters: { region: [] } })).data)).toEqual([
      ['EU', '15'],
      ['US', '20'],
    ]);
    expect((await widgetData(org, widget.id)).query.filters).toEqual([{ member: m('region'), operator: 'equals', values: ['EU'] }]);
  });

  test("filters apply only to widgets over their source, alongside the widget's own filters; qualified dimensions work too", async () => {
    const dashboard = await filtered(
      [
        { id: 'region', dataSourceId: sales.id, dimension: m('region'), label: 'Region' },
        { id: 'other-region', dataSourceId: other.id, dimension: 'region', label: 'Region (other)' },
      ],
      { region: ['EU'] },
    );
    const own = await addWidget(org, dashboard.id, sales, {
      ...byRegion(),
      filters: [{ member: m('at'), operator: 'inDateRange', values: ['2026-03-11', '2026-03-11'] }],
    });
    const elsewhere = await addWidget(org, dashboard.id, other, { measures: [`${other.ds}.amount`] });
    expect(regions((await widgetData(org, own.id)).data)).toEqual([['EU', '5']]);
    expect((await widgetData(org, elsewhere.id)).data).toEqual([{ [`${other.ds}.amount`]: '7' }]);
    expect((await widgetData(org, elsewhere.id, { filters: { 'other-region': ['EU'] } })).data).toEqual([{ [`${other.ds}.amount`]: null }]);
  });

  test('a filter on a mistyped field matches nothing, as a widget with one would', async () => {
    const dashboard = await filtered([{ id: 'r', dataSourceId: sales.id, dimension: 'regoin', label: 'R' }], { r: ['EU'] });
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    expect(await widgetData(org, widget.id)).toEqual(expect.objectContaining({ data: [], unknownMembers: [m('regoin')] }));
    // Without a value the filter is not applied at all.
    expect((await widgetData(org, widget.id, { filters: { r: [] } })).data).toHaveLength(2);
  });

  test("a widget's CSV export runs the query its data call runs: the same filter values, the same rows", async () => {
    const dashboard = await filtered([{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }], { region: ['EU'] });
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    const csv = async (body: Json) => {
      const res = await owner(org).post(`/dashboards/widgets/${widget.id}/export-csv`).send(body);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?.+-\d{4}-\d{2}-\d{2}\.csv"?$/);
      return res.text.trim().split(/\r?\n/);
    };
    expect(await csv({})).toEqual(['Region,Amount', 'EU,15']);
    expect(await csv({ filters: { region: ['US'] } })).toEqual(['Region,Amount', 'US,20']);
    expect(await csv({ filters: { region: [] } })).toEqual(['Region,Amount', 'EU,15', 'US,20']);
    const unknown = await owner(org)
      .post(`/dashboards/widgets/${widget.id}/export-csv`)
      .send({ filters: { city: ['Paris'] } });
    expectError(unknown, 400, 'validation_failed');
  });

  test('values for filters the dashboard does not have are 400 naming them', async () => {
    const dashboard = await filtered([{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }], {});
    const widget = await addWidget(org, dashboard.id, sales, byRegion());
    for (const url of [`/dashboards/widgets/${widget.id}/data`, `/dashboards/${dashboard.id}/data`]) {
      const res = await owner(org)
        .post(url)
        .send({ filters: { region: ['EU'], city: ['Paris'] } });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details).toEqual([{ path: 'filters.city', message: expect.stringContaining('"city" is not the id of a filter') }]);
    }
  });

  test("the zone: the dashboard's; when null, the viewer's; else UTC", async () => {
    const byDay = {
      measures: [m('count')],
      timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: ['2026-03-01', '2026-03-31'] }],
      order: { [m('at')]: 'asc' },
    };
    const days = (data: Json[]) => data.map((r) => [r[`${sales.ds}.at.day`], r[m('count')]]);
    const utc = [
      ['2026-03-10T00:00:00.000', '1'],
      ['2026-03-11T00:00:00.000', '2'],
    ];
    const newYork = [
      ['2026-03-09T00:00:00.000', '1'],
      ['2026-03-11T00:00:00.000', '2'],
    ];
    const everyone = await createDashboard(org);
    const viewerWidget = await addWidget(org, everyone.id, sales, byDay);
    expect(days((await widgetData(org, viewerWidget.id)).data)).toEqual(utc);
    const asNewYorker = await widgetData(org, viewerWidget.id, { timezone: 'America/New_York' });
    expect(days(asNewYorker.data)).toEqual(newYork);
    expect(asNewYorker.query.timezone).toBe('America/New_York');

    const fixed = await createDashboard(org, { timezone: 'America/New_York' });
    const fixedWidget = await addWidget(org, fixed.id, sales, byDay);
    expect(days((await widgetData(org, fixedWidget.id)).data)).toEqual(newYork);
    expect(days((await widgetData(org, fixedWidget.id, { timezone: 'UTC' })).data)).toEqual(newYork);
    const batch = await owner(org).post(`/dashboards/${fixed.id}/data`).send({ timezone: 'Asia/Tokyo' });
    expect(batch.body.timezone).toBe('America/New_York');
    expect(days(batch.body.widgets[0].data)).toEqual(newYork);

    // Set to null later: each viewer's own again.
    await owner(org).patch(`/dashboards/${fixed.id}`).send({ timezone: null });
    expect(days((await widgetData(org, fixedWidget.id, { timezone: 'UTC' })).data)).toEqual(utc);
  });
});

describe('all widgets at once', () => {
  test('one entry per widget, oldest first; a broken widget has an error entry and the others still answer', async () => {
    const org = await createTestOrg(h.services);
    const sales = await makeSource(org, SALES);
    const doomed = await makeSource(org, SALES);
    const dashboard = await createDashboard(org);
    await owner(org)
      .patch(`/dashboards/${dashboard.id}`)
      .send({ filterConfig: [{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }], filterDefaults: { region: ['EU'] } });
    const total = await addWidget(org, dashboard.id, sales, { measures: [`${sales.ds}.amount`] }, { chartType: 'stat-card' });
    const orphan = await addWidget(org, dashboard.id, doomed, { measures: [`${doomed.ds}.count`] }, { title: 'Orphan' });
    const typo = await addWidget(org, dashboard.id, sales, { measures: [`${sales.ds}.amuont`] });
    const refused = await addWidget(org, dashboard.id, sales, {
      measures: [`${sales.ds}.count`],
      timeDimensions: [{ dimension: `${sales.ds}.at`, granularity: 'fortnight' }],
    });
    const count = await addWidget(org, dashboard.id, sales, { measures: [`${sales.ds}.count`] });
    await owner(org).delete(`/dashboards/data-sources/${doomed.id}`);

    const res = await owner(org).post(`/dashboards/${dashboard.id}/data`).send({});
    expectStatus(res, 201);
    expect(res.body.timezone).toBe('UTC');
    expect(res.body.widgets.map((e: Json) => e.widgetId)).toEqual([total.id, orphan.id, typo.id, refused.id, count.id]);
    const [a, b, c, d, e] = res.body.widgets;
    expect(a).toEqual(expect.objectContaining({ widgetId: total.id, data: [{ [`${sales.ds}.amount`]: '15' }], annotation: expect.any(Object) }));
    expect(b).toEqual({ widgetId: orphan.id, error: { code: 'widget_source_unavailable', message: expect.stringContaining('Widget "Orphan"') } });
    expect(c).toEqual(expect.objectContaining({ widgetId: typo.id, data: [], unknownMembers: [`${sales.ds}.amuont`] }));
    expect(d).toEqual({ widgetId: refused.id, error: { code: 'invalid_query', message: expect.stringContaining('granularity') } });
    expect(e).toEqual(expect.objectContaining({ widgetId: count.id, data: [{ [`${sales.ds}.count`]: '2' }] }));

    // The caller's filter values and zone reach every widget.
    const us = await owner(org)
      .post(`/dashboards/${dashboard.id}/data`)
      .send({ filters: { region: ['US'] }, timezone: 'Europe/Paris' });
    expect(us.body.timezone).toBe('Europe/Paris');
    expect(us.body.widgets[0].data).toEqual([{ [`${sales.ds}.amount`]: '20' }]);
    expect(us.body.widgets[0].query.timezone).toBe('Europe/Paris');
    expect(us.body.widgets[4].data).toEqual([{ [`${sales.ds}.count`]: '1' }]);
  });

  test(`runs the widgets concurrently, at most ${WIDGETS_AT_ONCE} at a time, through AnalyticsService.query`, async () => {
    const org = await createTestOrg(h.services);
    const sales = await makeSource(org, SALES);
    const dashboard = await createDashboard(org);
    for (let i = 0; i < 10; i++) await addWidget(org, dashboard.id, sales, { measures: [`${sales.ds}.count`], limit: i + 1 });
    const analytics = h.services.analytics;
    const original = analytics.query.bind(analytics);
    let running = 0;
    let most = 0;
    let calls = 0;
    const spy = jest.spyOn(analytics, 'query').mockImplementation(async (organizationId, query) => {
      calls++;
      most = Math.max(most, ++running);
      try {
        return await original(organizationId, query);
      } finally {
        running--;
      }
    });
    try {
      const res = await owner(org).post(`/dashboards/${dashboard.id}/data`).send({});
      expectStatus(res, 201);
      expect(res.body.widgets).toHaveLength(10);
      for (const entry of res.body.widgets) expect(entry.data).toEqual([{ [`${sales.ds}.count`]: '3' }]);
    } finally {
      spy.mockRestore();
    }
    expect(calls).toBe(10);
    expect(most).toBe(WIDGETS_AT_ONCE);
  });

  test('an empty dashboard answers no entries; unknown and other organizations’ dashboards are 404', async () => {
    const org = await createTestOrg(h.services);
    const stranger = await createTestOrg(h.services);
    const dashboard = await createDashboard(org, { timezone: 'Asia/Tokyo' });
    const res = await owner(org).post(`/dashboards/${dashboard.id}/data`).send({});
    expectStatus(res, 201);
    expect(res.body).toEqual({ timezone: 'Asia/Tokyo', widgets: [] });
    expectError(await owner(stranger).post(`/dashboards/${dashboard.id}/data`).send({}), 404, 'not_found');
    expectError(await owner(org).post('/dashboards/00000000-0000-4000-8000-000000000000/data').send({}), 404, 'not_found');
  });
});
