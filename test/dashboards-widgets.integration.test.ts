import { CHART_TYPE_NAMES, CHART_TYPES } from '../src/dashboards/chart-types';
import { MAX_WIDGETS_PER_DASHBOARD } from '../src/dashboards/layout-rules';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg } from './factories';
import { createDashboard as createDashboardOf, createSalesSource } from './dashboard-fixtures';

/** Widgets (interface.md 4.3, 2.5) and the layout they sit on. */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const MISSING = '00000000-0000-4000-8000-000000000000';
const WIDGET_FIELDS = [
  'chartType',
  'createdAt',
  'dashboardId',
  'dataSourceId',
  'displayConfig',
  'id',
  'organizationId',
  'queryConfig',
  'suid',
  'title',
  'updatedAt',
];

const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const createSource = (org: TestOrg) => createSalesSource(h.app, org);

const createDashboard = (org: TestOrg) => createDashboardOf(h.app, org);

const widgetBody = (source: Json, extra: Json = {}) => ({
  title: 'Revenue by region',
  chartType: 'bar',
  dataSourceId: source.id,
  queryConfig: { measures: [`${source.servingRelation}.amount`], dimensions: [`${source.servingRelation}.region`] },
  ...extra,
});

async function addWidget(org: TestOrg, dashboardId: string, body: Json): Promise<Json> {
  const res = await owner(org).post(`/dashboards/${dashboardId}/widgets`).send(body);
  expectStatus(res, 201);
  return res.body;
}

const layoutOf = async (org: TestOrg, id: string) => (await owner(org).get(`/dashboards/${id}`)).body.layout as Json[];

/** An organization with a source and a dashboard. */
async function setup() {
  const org = await createTestOrg(h.services);
  const source = await createSource(org);
  const dashboard = await createDashboard(org);
  return { org, source, dashboard, ds: source.servingRelation as string };
}

describe('adding widgets', () => {
  test('201 with the whole widget; appended at the bottom, at the left edge, at its chart type’s default size', async () => {
    const { org, source, dashboard } = await setup();
    const first = await addWidget(org, dashboard.id, widgetBody(source, { displayConfig: { legend: { show: true } } }));
    expect(Object.keys(first).sort()).toEqual(WIDGET_FIELDS);
    expect(first).toEqual(
      expect.objectContaining({
        organizationId: org.organizationId,
        dashboardId: dashboard.id,
        title: 'Revenue by region',
        chartType: 'bar',
        dataSourceId: source.id,
        displayConfig: { legend: { show: true } },
      }),
    );
    // The query as the analytics schema reads it: the lists it leaves out are empty.
    expect(first.queryConfig).toEqual({ ...widgetBody(source).queryConfig, timeDimensions: [], filters: [] });
    expect(await layoutOf(org, dashboard.id)).toEqual([{ widgetId: first.id, x: 0, y: 0, w: 6, h: 4 }]);
    const second = await addWidget(org, dashboard.id, widgetBody(source, { chartType: 'stat-card', displayConfig: undefined }));
    expect(second.displayConfig).toEqual({});
    const third = await addWidget(org, dashboard.id, widgetBody(source, { chartType: 'table' }));
    expect(await layoutOf(org, dashboard.id)).toEqual([
      { widgetId: first.id, x: 0, y: 0, w: 6, h: 4 },
      { widgetId: second.id, x: 0, y: 4, w: 3, h: 2 },
      { widgetId: third.id, x: 0, y: 6, w: 12, h: 6 },
    ]);
  });

  test('every chart type lands at its default size', async () => {
    const { org, source, dashboard } = await setup();
    for (const chartType of CHART_TYPE_NAMES) {
      // A text widget has no source and no query (dashboards-text-tiles.integration.test.ts).
      const body = chartType === 'text' ? { title: 'Note', chartType, displayConfig: { markdown: '# Note' } } : widgetBody(source, { chartType });
      const widget = await addWidget(org, dashboard.id, body);
      const item = (await layoutOf(org, dashboard.id)).find((i) => i.widgetId === widget.id);
      expect({ chartType, w: item!.w, h: item!.h }).toEqual({ chartType, ...CHART_TYPES[chartType].defaultSize });
      expect(item!.x).toBe(0);
    }
    expect(CHART_TYPE_NAMES).toEqual(expect.arrayContaining(['line', 'bar', 'stat-card', 'table', 'area', 'pie']));
  });

  test('below the lowest widget, wherever the layout put them', async () => {
    const { org, source, dashboard } = await setup();
    const a = await addWidget(org, dashboard.id, widgetBody(source));
    const b = await addWidget(org, dashboard.id, widgetBody(source));
    expectStatus(
      await owner(org)
        .patch(`/dashboards/${dashboard.id}/layout`)
        .send({ layout: [{ widgetId: a.id, x: 6, y: 10, w: 6, h: 5 }] }),
      200,
    );
    const c = await addWidget(org, dashboard.id, widgetBody(source, { chartType: 'pie' }));
    expect(await layoutOf(org, dashboard.id)).toEqual([
      { widgetId: a.id, x: 6, y: 10, w: 6, h: 5 },
      { widgetId: c.id, x: 0, y: 15, w: 4, h: 4 },
    ]);
    // b is off the grid but still a widget of the dashboard.
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body.widgets.map((w: Json) => w.id)).toEqual([a.id, b.id, c.id]);
  });

  test('widgets added at once never share cells', async () => {
    const { org, source, dashboard } = await setup();
    await Promise.all(Array.from({ length: 8 }, () => addWidget(org, dashboard.id, widgetBody(source, { chartType: 'stat-card' }))));
    const layout = await layoutOf(org, dashboard.id);
    expect(layout.map((i) => i.y).sort((x, y) => x - y)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });

  test('a bad field reference saves (it matches nothing later)', async () => {
    const { org, source, dashboard, ds } = await setup();
    const widget = await addWidget(org, dashboard.id, widgetBody(source, { queryConfig: { measures: [`${ds}.amuont`], dimensions: ['ds_nope.region'] } }));
    expect(widget.queryConfig.measures).toEqual([`${ds}.amuont`]);
  });

  test('400 for a chart type, a query or a body the contract does not allow', async () => {
    const { org, source, dashboard, ds } = await setup();
    const cases: Array<[Json, string]> = [
      [widgetBody(source, { chartType: 'donut' }), 'chartType'],
      [widgetBody(source, { chartType: undefined }), 'chartType'],
      [widgetBody(source, { title: '' }), 'title'],
      [widgetBody(source, { dataSourceId: 'abc' }), 'dataSourceId'],
      [widgetBody(source, { queryConfig: { measures: `${ds}.amount` } }), 'queryConfig.measures'],
      [widgetBody(source, { queryConfig: { measures: [`${ds}.amount`], colour: 'red' } }), 'queryConfig.colour'],
      [widgetBody(source, { queryConfig: { filters: [{ member: `${ds}.region`, operator: 'like', values: ['x'] }] } }), 'queryConfig.filters.0.operator'],
      [widgetBody(source, { queryConfig: { timeRange: { type: 'absolute', value: 'x' } } }), 'queryConfig.timeRange.type'],
      [widgetBody(source, { queryConfig: { limit: 50_001 } }), 'queryConfig.limit'],
      [widgetBody(source, { displayConfig: 'legend' }), 'displayConfig'],
      [widgetBody(source, { displayConfig: { blob: 'x'.repeat(20_000) } }), 'displayConfig'],
      [widgetBody(source, { layout: {} }), 'layout'],
      // Valid member by member, but 64 KB of query: a dashboard of such widgets would be too large to read whole.
      [
        widgetBody(source, {
          queryConfig: { measures: [`${ds}.amount`], order: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`${ds}.f${i}`, 'asc'])) },
        }),
        'queryConfig',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await owner(org).post(`/dashboards/${dashboard.id}/widgets`).send(body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((i: Json) => i.path)).toContain(path);
    }
    const donut = await owner(org)
      .post(`/dashboards/${dashboard.id}/widgets`)
      .send(widgetBody(source, { chartType: 'donut' }));
    expect(donut.body.error.details[0].message).toBe(`must be one of ${CHART_TYPE_NAMES.join(', ')}`);
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body.widgets).toEqual([]);
  });

  test('another organization’s source is 400 saying so; an unknown one 400; the dashboard stays empty', async () => {
    const { org, dashboard } = await setup();
    const other = await createTestOrg(h.services);
    const theirs = await createSource(other);
    const foreign = await owner(org).post(`/dashboards/${dashboard.id}/widgets`).send(widgetBody(theirs));
    expectError(foreign, 400, 'foreign_data_source');
    expect(foreign.body.error.details).toEqual([{ path: 'dataSourceId', message: `data source ${theirs.id} belongs to another organization` }]);
    const unknown = await owner(org)
      .post(`/dashboards/${dashboard.id}/widgets`)
      .send(widgetBody({ id: MISSING, servingRelation: 'ds_x' }));
    expectError(unknown, 400, 'unknown_data_source');
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body).toEqual(expect.objectContaining({ widgets: [], layout: [] }));
  });

  test('404 for a dashboard that is not the organization’s, before the source is looked at', async () => {
    const { org, source } = await setup();
    const other = await createTestOrg(h.services);
    const theirs = await createDashboard(other);
    expectError(await owner(org).post(`/dashboards/${theirs.id}/widgets`).send(widgetBody(source)), 404, 'not_found');
    expectError(await owner(org).post(`/dashboards/${MISSING}/widgets`).send(widgetBody(source)), 404, 'not_found');
    expectError(
      await owner(org)
        .post(`/dashboards/${MISSING}/widgets`)
        .send(widgetBody({ id: MISSING })),
      404,
      'not_found',
    );
  });

  test(`at most ${MAX_WIDGETS_PER_DASHBOARD} widgets on a dashboard`, async () => {
    const { org, source, dashboard } = await setup();
    const body = widgetBody(source, { chartType: 'stat-card' });
    for (let i = 0; i < MAX_WIDGETS_PER_DASHBOARD; i += 20) {
      await Promise.all(Array.from({ length: 20 }, () => addWidget(org, dashboard.id, body)));
    }
    expectError(await owner(org).post(`/dashboards/${dashboard.id}/widgets`).send(body), 400, 'too_many_widgets');
    const read = await owner(org).get(`/dashboards/${dashboard.id}`);
    expect(read.body.widgets).toHaveLength(MAX_WIDGETS_PER_DASHBOARD);
    expect(read.body.layout).toHaveLength(MAX_WIDGETS_PER_DASHBOARD);
  });
});

describe('changing and deleting widgets', () => {
  test('PATCH changes the fields sent; queryConfig is replaced, never merged; the widget keeps its cells', async () => {
    const { org, source, dashboard, ds } = await setup();
    const widget = await addWidget(
      org,
      dashboard.id,
      widgetBody(source, {
        queryConfig: { measures: [`${ds}.amount`], dimensions: [`${ds}.region`], filters: [{ member: `${ds}.region`, operator: 'set' }], limit: 10 },
        displayConfig: { legend: { show: true }, colour: 'red' },
      }),
    );
    const before = await layoutOf(org, dashboard.id);
    const res = await owner(org)
      .patch(`/dashboards/widgets/${widget.id}`)
      .send({ title: 'Count', chartType: 'stat-card', queryConfig: { measures: [`${ds}.count`] }, displayConfig: { legend: { show: false } } });
    expectStatus(res, 200);
    expect(res.body).toEqual(
      expect.objectContaining({
        id: widget.id,
        title: 'Count',
        chartType: 'stat-card',
        dataSourceId: source.id,
        queryConfig: { measures: [`${ds}.count`], dimensions: [], timeDimensions: [], filters: [] },
        displayConfig: { legend: { show: false } },
      }),
    );
    expect(await layoutOf(org, dashboard.id)).toEqual(before);
    // A title alone leaves the query as it is.
    const renamed = await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ title: 'Total' });
    expect(renamed.body.queryConfig).toEqual(res.body.queryConfig);
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body.widgets).toEqual([renamed.body]);
  });

  test('PATCH to another source of the organization works; to another organization’s is 400; to an unknown one 400', async () => {
    const { org, source, dashboard } = await setup();
    const second = await createSource(org);
    const other = await createTestOrg(h.services);
    const theirs = await createSource(other);
    const widget = await addWidget(org, dashboard.id, widgetBody(source));
    expect((await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ dataSourceId: second.id })).body.dataSourceId).toBe(second.id);
    const foreign = await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ dataSourceId: theirs.id });
    expectError(foreign, 400, 'foreign_data_source');
    expect(foreign.body.error.message).toContain('belongs to another organization');
    expectError(await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ dataSourceId: MISSING }), 400, 'unknown_data_source');
    expectError(await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ chartType: 'gauge' }), 400, 'validation_failed');
    expectError(await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ dashboardId: dashboard.id }), 400, 'validation_failed');
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body.widgets[0].dataSourceId).toBe(second.id);
  });

  test('DELETE removes the widget and its place in the layout, in one go', async () => {
    const { org, source, dashboard } = await setup();
    const a = await addWidget(org, dashboard.id, widgetBody(source));
    const b = await addWidget(org, dashboard.id, widgetBody(source));
    const res = await owner(org).delete(`/dashboards/widgets/${a.id}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ deleted: true });
    const read = await owner(org).get(`/dashboards/${dashboard.id}`);
    expect(read.body.widgets.map((w: Json) => w.id)).toEqual([b.id]);
    expect(read.body.layout).toEqual([{ widgetId: b.id, x: 0, y: 4, w: 6, h: 4 }]);
    expectError(await owner(org).delete(`/dashboards/widgets/${a.id}`), 404, 'not_found');
    expectError(await owner(org).patch(`/dashboards/widgets/${a.id}`).send({ title: 'x' }), 404, 'not_found');
    // A widget off the grid is deleted as well.
    await owner(org).patch(`/dashboards/${dashboard.id}/layout`).send({ layout: [] });
    expectStatus(await owner(org).delete(`/dashboards/widgets/${b.id}`), 200);
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body).toEqual(expect.objectContaining({ widgets: [], layout: [] }));
  });

  test('another organization’s widget is 404, and unchanged', async () => {
    const { org, source, dashboard } = await setup();
    const other = await createTestOrg(h.services);
    const theirSource = await createSource(other);
    const widget = await addWidget(org, dashboard.id, widgetBody(source));
    expectError(await owner(other).patch(`/dashboards/widgets/${widget.id}`).send({ title: 'x' }), 404, 'not_found');
    expectError(await owner(other).patch(`/dashboards/widgets/${widget.id}`).send({ dataSourceId: theirSource.id }), 404, 'not_found');
    expectError(await owner(other).delete(`/dashboards/widgets/${widget.id}`), 404, 'not_found');
    expectError(await owner(org).patch(`/dashboards/widgets/not-a-uuid`).send({ title: 'x' }), 400, 'validation_failed');
    expect((await owner(org).get(`/dashboards/${dashboard.id}`)).body.widgets).toEqual([widget]);
  });
});

describe('PATCH …/layout', () => {
  const item = (widgetId: string, x: number, y: number, w: number, h: number) => ({ widgetId, x, y, w, h });

  async function withWidgets(n: number) {
    const s = await setup();
    const widgets = [];
    for (let i = 0; i < n; i++) widgets.push(await addWidget(s.org, s.dashboard.id, widgetBody(s.source, { title: `W${i}` })));
    return { ...s, widgets, patch: (layout: unknown) => owner(s.org).patch(`/dashboards/${s.dashboard.id}/layout`).send({ layout }) };
  }

  test('replaces the layout wholesale; a widget left out vanishes from the grid but still exists', async () => {
    const { org, dashboard, widgets, patch } = await withWidgets(3);
    const layout = [item(widgets[2].id, 0, 0, 12, 3), item(widgets[0].id, 0, 3, 6, 4)];
    const res = await patch(layout);
    expectStatus(res, 200);
    expect(res.body.layout).toEqual(layout);
    expect(res.body.widgets).toBeUndefined();
    const read = await owner(org).get(`/dashboards/${dashboard.id}`);
    expect(read.body.layout).toEqual(layout);
    expect(read.body.widgets.map((w: Json) => w.id)).toEqual(widgets.map((w) => w.id));
    expectStatus(await patch([]), 200);
    expect(await layoutOf(org, dashboard.id)).toEqual([]);
  });

  test('refuses cells that are not integers or fall outside the 12-column grid, naming the field', async () => {
    const { org, dashboard, widgets, patch } = await withWidgets(1);
    const id = widgets[0].id;
    const cases: Array<[unknown, string]> = [
      [[item(id, 0.5, 0, 6, 4)], 'layout.0.x'],
      [[item(id, 0, 0, 6, 1.5)], 'layout.0.h'],
      [[item(id, -1, 0, 6, 4)], 'layout.0.x'],
      [[item(id, 0, -1, 6, 4)], 'layout.0.y'],
      [[item(id, 0, 0, 0, 4)], 'layout.0.w'],
      [[item(id, 0, 0, 6, 0)], 'layout.0.h'],
      [[item(id, 0, 0, 13, 4)], 'layout.0.w'],
      [[item(id, 12, 0, 1, 4)], 'layout.0.x'],
      [[item(id, 0, 0, 6, 51)], 'layout.0.h'],
      [[item(id, 0, 1_000_000, 6, 4)], 'layout.0.y'],
      [[{ ...item(id, 0, 0, 6, 4), x: '0' }], 'layout.0.x'],
      [[{ widgetId: id, x: 0, y: 0, w: 6 }], 'layout.0.h'],
      [[{ ...item(id, 0, 0, 6, 4), z: 1 }], 'layout.0.z'],
      [{ widgetId: id }, 'layout'],
    ];
    for (const [layout, path] of cases) {
      const res = await patch(layout);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((i: Json) => i.path)).toContain(path);
    }
    const wide = await patch([item(id, 8, 0, 6, 4)]);
    expectError(wide, 400, 'invalid_layout');
    expect(wide.body.error.details).toEqual([{ path: 'layout.0.w', message: expect.stringContaining('x + w must be at most 12') }]);
    expect(await layoutOf(org, dashboard.id)).toEqual([item(id, 0, 0, 6, 4)]);
  });

  test('refuses two overlapping widgets, naming both', async () => {
    const { widgets, patch } = await withWidgets(2);
    const res = await patch([item(widgets[0].id, 0, 0, 6, 4), item(widgets[1].id, 4, 2, 6, 4)]);
    expectError(res, 400, 'invalid_layout');
    expect(res.body.error.details).toEqual([
      {
        path: 'layout.1',
        message: `widget "W1" (${widgets[1].id}) at x=4, y=2, w=6, h=4 overlaps widget "W0" (${widgets[0].id}) at x=0, y=0, w=6, h=4 (layout.0)`,
      },
    ]);
    expect(res.body.error.message).toContain('overlaps');
    // Edge to edge is fine.
    expectStatus(await patch([item(widgets[0].id, 0, 0, 6, 4), item(widgets[1].id, 6, 0, 6, 4)]), 200);
  });

  test('refuses a widget placed twice, and one that is not of this dashboard (another dashboard’s, another organization’s, unknown)', async () => {
    const { org, source, widgets, patch } = await withWidgets(1);
    const otherDashboard = await createDashboard(org);
    const elsewhere = await addWidget(org, otherDashboard.id, widgetBody(source));
    const stranger = await createTestOrg(h.services);
    const strangerWidget = await addWidget(stranger, (await createDashboard(stranger)).id, widgetBody(await createSource(stranger)));
    const twice = await patch([item(widgets[0].id, 0, 0, 6, 4), item(widgets[0].id, 6, 0, 6, 4)]);
    expectError(twice, 400, 'invalid_layout');
    expect(twice.body.error.details).toEqual([{ path: 'layout.1.widgetId', message: expect.stringContaining('a second time (already at layout.0)') }]);
    for (const id of [elsewhere.id, strangerWidget.id, MISSING]) {
      const res = await patch([item(id, 0, 0, 6, 4)]);
      expectError(res, 400, 'invalid_layout');
      expect(res.body.error.details).toEqual([{ path: 'layout.0.widgetId', message: `${id} is not a widget of this dashboard` }]);
    }
  });

  test('a layout racing a widget delete never keeps the deleted widget', async () => {
    const { org, dashboard, widgets, patch } = await withWidgets(6);
    const layout = widgets.map((w, i) => item(w.id, (i % 2) * 6, Math.floor(i / 2) * 4, 6, 4));
    const results = await Promise.all([patch(layout), owner(org).delete(`/dashboards/widgets/${widgets[3].id}`)]);
    expect(results[1].status).toBe(200);
    // The layout either went first (then lost the widget with its delete) or came second and was refused.
    expect([200, 400]).toContain(results[0].status);
    const after = await layoutOf(org, dashboard.id);
    expect(after.map((i) => i.widgetId)).not.toContain(widgets[3].id);
  });
});
