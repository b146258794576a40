import { gzipSync } from 'node:zlib';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';

/**
 * GET /dashboards/{id}/export and POST /dashboards/import (interface.md 4.3):
 * the portable payload, the round trip into another organization, every 400
 * with its code, and that a refused import writes nothing.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const MISSING = '00000000-0000-4000-8000-000000000000';
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const FIELDS = {
  at: { type: 'date', label: 'At', timeDimension: true },
  amount: { type: 'number', label: 'Amount', measure: true },
  region: { type: 'string', label: 'Region' },
};

/** A data source named `name` over a fresh table holding two records, with a calculated field and a window dimension. */
async function createSource(org: TestOrg, name: string): Promise<Json> {
  const table = uniqueName(name.toLowerCase());
  await seedRecords(h.app, org, table, {
    k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
    k2: { at: '2026-03-11T03:30:00Z', amount: 5, region: 'US' },
  });
  const res = await owner(org)
    .post('/dashboards/data-sources')
    .send({ name, dataStoreTableName: table, recordSchema: { name, fields: FIELDS } });
  expectStatus(res, 201);
  const id = res.body.id;
  expectStatus(
    await owner(org)
      .post(`/dashboards/data-sources/${id}/calculated-fields`)
      .send({
        name: 'double',
        label: 'Double',
        type: 'number',
        measure: true,
        expression: { type: 'BinaryExpression', operator: '*', left: { type: 'Identifier', name: 'amount' }, right: { type: 'Literal', value: 2 } },
      }),
    201,
  );
  expectStatus(
    await owner(org)
      .post(`/dashboards/data-sources/${id}/window-dimensions`)
      .send({ name: 'seq', label: 'Seq', function: 'row_number', partitionBy: ['region'], orderBy: 'at' }),
    201,
  );
  return (await owner(org).get(`/dashboards/data-sources/${id}`)).body;
}

async function post(org: TestOrg, url: string, body: Json, status: number): Promise<Json> {
  const res = await owner(org).post(url).send(body);
  expectStatus(res, status);
  return res.body;
}

/**
 * A dashboard over two sources: three widgets (one naming the other source's
 * field, nested filters, segments, order), two filters (one qualified, one
 * not) with a default, a hand-made layout, a zone, the default flag.
 */
async function richDashboard(org: TestOrg, orders: Json, people: Json): Promise<Json> {
  const o = orders.servingRelation;
  const p = people.servingRelation;
  const d = await post(org, '/dashboards', { name: uniqueName('Sales'), description: 'Weekly numbers', timezone: 'Europe/Paris', isDefault: true }, 201);
  const w1 = await post(
    org,
    `/dashboards/${d.id}/widgets`,
    {
      title: 'Revenue by day',
      chartType: 'line',
      dataSourceId: orders.id,
      queryConfig: {
        measures: [`${o}.amount`, `${o}.double`],
        dimensions: [`${o}.region`, `${p}.region`],
        timeDimensions: [{ dimension: `${o}.at`, granularity: 'day', dateRange: 'last 7 days' }],
        filters: [
          { or: [{ member: `${o}.region`, operator: 'equals', values: ['EU'] }, { and: [{ dimension: `${o}.amount`, operator: 'gt', values: [3] }] }] },
        ],
        segments: [`${o}.big`],
        order: { [`${o}.amount`]: 'desc' },
        timeRange: { type: 'relative', value: 'last 30 days' },
        limit: 100,
      },
      displayConfig: { legend: { show: true }, colors: ['#123456'] },
    },
    201,
  );
  const w2 = await post(
    org,
    `/dashboards/${d.id}/widgets`,
    { title: 'People', chartType: 'stat-card', dataSourceId: people.id, queryConfig: { measures: [`${p}.count`], order: [[`${p}.count`, 'asc']] } },
    201,
  );
  const w3 = await post(
    org,
    `/dashboards/${d.id}/widgets`,
    { title: 'Table', chartType: 'table', dataSourceId: orders.id, queryConfig: { dimensions: [`${o}.region`, `${o}.seq`], measures: [`${o}.count`] } },
    201,
  );
  expectStatus(
    await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({
        filterConfig: [
          { id: 'region', dataSourceId: orders.id, dimension: `${o}.region`, label: 'Region' },
          { id: 'people-region', dataSourceId: people.id, dimension: 'region', label: 'People region' },
        ],
        filterDefaults: { region: ['EU', 'US'], 'people-region': [] },
      }),
    200,
  );
  expectStatus(
    await owner(org)
      .patch(`/dashboards/${d.id}/layout`)
      .send({
        layout: [
          { widgetId: w2.id, x: 0, y: 0, w: 3, h: 2 },
          { widgetId: w1.id, x: 3, y: 0, w: 9, h: 5 },
          { widgetId: w3.id, x: 0, y: 5, w: 12, h: 6 },
        ],
      }),
    200,
  );
  return (await owner(org).get(`/dashboards/${d.id}`)).body;
}

const exportOf = async (org: TestOrg, id: string) => {
  const res = await owner(org).get(`/dashboards/${id}/export`);
  expectStatus(res, 200);
  return res.body as Json;
};

const importing = (org: TestOrg, body: unknown) => owner(org).post('/dashboards/import').set('Content-Type', 'application/json').send(JSON.stringify(body));

async function rowsOf(org: TestOrg) {
  const [d] = await h.services.db.query(`SELECT count(*)::int AS n FROM dashboards WHERE organization_id = $1`, [org.organizationId]);
  const [w] = await h.services.db.query(`SELECT count(*)::int AS n FROM dashboard_widgets WHERE organization_id = $1`, [org.organizationId]);
  const defaults = await h.services.db.query(`SELECT id FROM dashboards WHERE organization_id = $1 AND is_default`, [org.organizationId]);
  return { dashboards: d.n, widgets: w.n, defaults: defaults.map((r: Json) => r.id) };
}

/**
 * What must survive a round trip: the dashboard and its widgets without ids,
 * owners and timestamps, each source alias and id replaced by a name for the
 * source, and the layout naming widgets by their position.
 */
function comparable(d: Json, sourceNames: Record<string, string>): Json {
  let text = JSON.stringify(d);
  for (const [id, name] of Object.entries(sourceNames)) {
    text = text.replaceAll(`ds_${id.replace(/-/g, '_')}`, `<${name}>`).replaceAll(id, `<${name}>`);
  }
  const out = JSON.parse(text);
  const position = new Map(out.widgets.map((w: Json, i: number) => [w.id, i]));
  return {
    name: out.name,
    description: out.description,
    isDefault: out.isDefault,
    timezone: out.timezone,
    filterConfig: out.filterConfig,
    filterDefaults: out.filterDefaults,
    layout: out.layout.map((item: Json) => ({ ...item, widgetId: position.get(item.widgetId) })),
    widgets: out.widgets.map(({ title, chartType, dataSourceId, queryConfig, displayConfig }: Json) => ({
      title,
      chartType,
      dataSourceId,
      queryConfig,
      displayConfig,
    })),
  };
}

describe('GET /dashboards/{id}/export', () => {
  test('a versioned payload: sources by exportId with their model, members as $exportId.field, widgets by key, no ids at all', async () => {
    const org = await createTestOrg(h.services);
    const orders = await createSource(org, 'Orders');
    const people = await createSource(org, 'People');
    const d = await richDashboard(org, orders, people);
    const res = await owner(org).get(`/dashboards/${d.id}/export`);
    expectStatus(res, 200);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?sales_[a-z0-9_]+\.dashboard\.json"?$/);
    const payload = res.body;
    expect(Object.keys(payload).sort()).toEqual(['dashboard', 'dataSources', 'format', 'version', 'widgets']);
    expect(payload).toEqual(expect.objectContaining({ format: 'flowbase.dashboard', version: 1 }));
    expect(payload.dashboard).toEqual({
      name: d.name,
      description: 'Weekly numbers',
      timezone: 'Europe/Paris',
      isDefault: true,
      layout: [
        { widget: 'w2', x: 0, y: 0, w: 3, h: 2 },
        { widget: 'w1', x: 3, y: 0, w: 9, h: 5 },
        { widget: 'w3', x: 0, y: 5, w: 12, h: 6 },
      ],
      filterConfig: [
        { id: 'region', dataSource: 'orders', dimension: '$orders.region', label: 'Region' },
        { id: 'people-region', dataSource: 'people', dimension: 'region', label: 'People region' },
      ],
      filterDefaults: { region: ['EU', 'US'], 'people-region': [] },
    });
    expect(payload.widgets.map((w: Json) => [w.key, w.title, w.chartType, w.dataSource])).toEqual([
      ['w1', 'Revenue by day', 'line', 'orders'],
      ['w2', 'People', 'stat-card', 'people'],
      ['w3', 'Table', 'table', 'orders'],
    ]);
    expect(payload.widgets[0].queryConfig).toEqual(
      expect.objectContaining({
        measures: ['$orders.amount', '$orders.double'],
        dimensions: ['$orders.region', '$people.region'],
        timeDimensions: [{ dimension: '$orders.at', granularity: 'day', dateRange: 'last 7 days' }],
        filters: [
          { or: [{ member: '$orders.region', operator: 'equals', values: ['EU'] }, { and: [{ dimension: '$orders.amount', operator: 'gt', values: ['3'] }] }] },
        ],
        segments: ['$orders.big'],
        order: { '$orders.amount': 'desc' },
      }),
    );
    expect(payload.widgets[1].queryConfig.order).toEqual([['$people.count', 'asc']]);
    expect(payload.dataSources).toEqual([
      {
        exportId: 'orders',
        alias: '$orders',
        name: 'Orders',
        type: 'custom',
        dataStoreTableName: orders.dataStoreTableName,
        recordSchema: {
          name: 'Orders',
          fields: FIELDS,
          calculatedFields: [expect.objectContaining({ name: 'double', measure: true, expression: expect.objectContaining({ type: 'BinaryExpression' }) })],
        },
        windowDimensions: [
          { name: 'seq', label: 'Seq', function: 'row_number', partitionBy: ['region'], orderBy: 'at', direction: 'asc', semantic: 'lifetime' },
        ],
      },
      expect.objectContaining({ exportId: 'people', alias: '$people', name: 'People' }),
    ]);
    const text = JSON.stringify(payload);
    const ids = [org.organizationId, org.ownerId, d.id, d.suid, ...d.widgets.flatMap((w: Json) => [w.id, w.suid])];
    for (const s of [orders, people])
      ids.push(s.id, s.suid, s.servingRelation, ...s.recordSchema.calculatedFields.map((c: Json) => c.id), ...s.windowDimensions.map((w: Json) => w.id));
    expect(ids.filter((id) => text.includes(id))).toEqual([]);
    // The OpenAPI document describes the same payload.
    const doc = (await owner(org).get('/openapi.json')).body;
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['DashboardExport', 'DashboardImport', 'PortableWidget', 'PortableDataSource']));
  });

  test("another organization's dashboard, or none, is 404; a viewer may export", async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const d = await post(org, '/dashboards', { name: uniqueName('D') }, 201);
    expectError(await owner(other).get(`/dashboards/${d.id}/export`), 404, 'not_found');
    expectError(await owner(org).get(`/dashboards/${MISSING}/export`), 404, 'not_found');
    const viewer = await as(h.app, org.tokens.viewer).get(`/dashboards/${d.id}/export`);
    expectStatus(viewer, 200);
    expect(viewer.body).toEqual(expect.objectContaining({ widgets: [], dataSources: [] }));
  });

  test('a widget or a filter whose source was deleted cannot be described: 400 naming it', async () => {
    const org = await createTestOrg(h.services);
    const kept = await createSource(org, 'Kept');
    const gone = await createSource(org, 'Gone');
    const d = await post(org, '/dashboards', { name: uniqueName('D') }, 201);
    const widget = await post(
      org,
      `/dashboards/${d.id}/widgets`,
      { title: 'Broken', chartType: 'stat-card', dataSourceId: gone.id, queryConfig: { measures: [`${gone.servingRelation}.count`] } },
      201,
    );
    expectStatus(
      await owner(org)
        .patch(`/dashboards/${d.id}`)
        .send({ filterConfig: [{ id: 'f', dataSourceId: gone.id, dimension: 'region', label: 'R' }] }),
      200,
    );
    expectStatus(await owner(org).delete(`/dashboards/data-sources/${gone.id}`), 200);
    const res = await owner(org).get(`/dashboards/${d.id}/export`);
    expectError(res, 400, 'widget_source_unavailable');
    expect(res.body.error.message).toContain(widget.id);
    expectStatus(await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ dataSourceId: kept.id }), 200);
    const filter = await owner(org).get(`/dashboards/${d.id}/export`);
    expectError(filter, 400, 'filter_source_unavailable');
    expect(filter.body.error.details).toEqual([{ path: 'filterConfig.0.dataSourceId', message: expect.stringContaining(gone.id) }]);
  });
});

describe('POST /dashboards/import', () => {
  test('a round trip into another organization, mapped to its own sources, reads back the same dashboard apart from ids and aliases', async () => {
    const a = await createTestOrg(h.services);
    const b = await createTestOrg(h.services);
    const [ordersA, peopleA] = [await createSource(a, 'Orders'), await createSource(a, 'People')];
    const [ordersB, peopleB] = [await createSource(b, 'Orders'), await createSource(b, 'People')];
    const original = await richDashboard(a, ordersA, peopleA);
    const payload = await exportOf(a, original.id);

    const res = await importing(b, { ...payload, dataSourceMappings: { orders: ordersB.id, people: peopleB.id } });
    expectStatus(res, 201);
    const read = await owner(b).get(`/dashboards/${res.body.id}`);
    expectStatus(read, 200);
    expect(res.body).toEqual(read.body);
    expect(read.body).toEqual(expect.objectContaining({ organizationId: b.organizationId, userId: b.ownerId }));
    for (const w of read.body.widgets) expect(w).toEqual(expect.objectContaining({ organizationId: b.organizationId, dashboardId: read.body.id }));
    expect(comparable(read.body, { [ordersB.id]: 'orders', [peopleB.id]: 'people' })).toEqual(
      comparable(original, { [ordersA.id]: 'orders', [peopleA.id]: 'people' }),
    );
    // The rewrite reached the filters and the layout: B's own sources and widgets, nothing of A's.
    expect(read.body.filterConfig.map((f: Json) => [f.dataSourceId, f.dimension])).toEqual([
      [ordersB.id, `${ordersB.servingRelation}.region`],
      [peopleB.id, 'region'],
    ]);
    expect(read.body.layout.map((item: Json) => item.widgetId).sort()).toEqual(read.body.widgets.map((w: Json) => w.id).sort());
    expect(JSON.stringify(read.body)).not.toContain(ordersA.servingRelation);
    // The imported dashboard is B's default; its widgets run over B's records.
    expect((await rowsOf(b)).defaults).toEqual([read.body.id]);
    const data = await owner(b).post(`/dashboards/widgets/${read.body.widgets[2].id}/data`).send({});
    expectStatus(data, 201);
    expect(data.body.data).toHaveLength(2);
    // And the export of the import is the export of the original (but for the tables, which are B's own).
    const again = await exportOf(b, read.body.id);
    expect(again.dataSources.map((s: Json) => s.dataStoreTableName)).toEqual([ordersB.dataStoreTableName, peopleB.dataStoreTableName]);
    const tablesOf = (p: Json) => ({ ...p, dataSources: p.dataSources.map((s: Json) => ({ ...s, dataStoreTableName: undefined })) });
    expect(tablesOf(again)).toEqual(tablesOf(payload));
  });

  test('name overrides the payload name; a taken name is 400 duplicate_name and writes nothing, not even the default swap', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org, 'Orders');
    const original = await richDashboard(org, source, source);
    const payload = await exportOf(org, original.id);
    const before = await rowsOf(org);
    const taken = await importing(org, { ...payload, dataSourceMappings: { orders: source.id } });
    expectError(taken, 400, 'duplicate_name');
    expect(await rowsOf(org)).toEqual(before);
    const renamed = await importing(org, { ...payload, name: 'Sales copy', dataSourceMappings: { orders: source.id } });
    expectStatus(renamed, 201);
    expect(renamed.body).toEqual(expect.objectContaining({ name: 'Sales copy', isDefault: true }));
    expect(renamed.body.widgets).toHaveLength(3);
    expect((await rowsOf(org)).defaults).toEqual([renamed.body.id]);
  });

  test('each refusal has its own code, names the field, and writes nothing', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const orders = await createSource(org, 'Orders');
    const people = await createSource(org, 'People');
    const theirs = await createSource(other, 'Orders');
    const payload = await exportOf(org, (await richDashboard(org, orders, people)).id);
    const mapped = { orders: orders.id, people: people.id };
    const named = (extra: Json) => ({ ...payload, name: uniqueName('Copy'), dataSourceMappings: mapped, ...extra });
    const before = await rowsOf(org);

    const cases: Array<[string, unknown, number, string, string[]]> = [
      ['an exportId with no mapping', named({ dataSourceMappings: { orders: orders.id } }), 400, 'unmapped_data_source', ['dataSourceMappings.people']],
      ['a mapping for no exportId', named({ dataSourceMappings: { ...mapped, extra: orders.id } }), 400, 'validation_failed', ['dataSourceMappings.extra']],
      [
        'a mapped source that does not exist',
        named({ dataSourceMappings: { ...mapped, people: MISSING } }),
        400,
        'unknown_data_source',
        ['dataSourceMappings.people'],
      ],
      [
        "another organization's source",
        named({ dataSourceMappings: { ...mapped, orders: theirs.id } }),
        400,
        'foreign_data_source',
        ['dataSourceMappings.orders'],
      ],
      ['a mapping that is not a UUID', named({ dataSourceMappings: { ...mapped, orders: 'orders' } }), 400, 'validation_failed', ['dataSourceMappings.orders']],
      ['another format', named({ format: 'grafana.dashboard' }), 400, 'unsupported_format', ['format']],
      ['another version', { ...named({}), version: 2, widgets: 'v2 shape' }, 400, 'unsupported_format', ['version']],
      ['no format at all', { dashboard: {} }, 400, 'unsupported_format', ['format', 'version']],
      [
        'an unknown chart type',
        named({ widgets: [{ ...payload.widgets[0], chartType: 'donut' }, ...payload.widgets.slice(1)] }),
        400,
        'validation_failed',
        ['widgets.0.chartType'],
      ],
      ['no dashboard name', named({ dashboard: { ...payload.dashboard, name: undefined } }), 400, 'validation_failed', ['dashboard.name']],
      ['an unknown field', named({ dashboard: { ...payload.dashboard, owner: 'x' } }), 400, 'validation_failed', ['dashboard.owner']],
      [
        'a layout naming no widget',
        named({ dashboard: { ...payload.dashboard, layout: [{ widget: 'w9', x: 0, y: 0, w: 1, h: 1 }] } }),
        400,
        'validation_failed',
        ['dashboard.layout.0.widget'],
      ],
      [
        'overlapping widgets',
        named({
          dashboard: {
            ...payload.dashboard,
            layout: [
              { widget: 'w1', x: 0, y: 0, w: 6, h: 4 },
              { widget: 'w2', x: 5, y: 3, w: 2, h: 2 },
            ],
          },
        }),
        400,
        'invalid_layout',
        ['dashboard.layout.1'],
      ],
      [
        'a widget over no source of the payload',
        named({ widgets: [{ ...payload.widgets[0], dataSource: 'ghost' }, ...payload.widgets.slice(1)] }),
        400,
        'validation_failed',
        ['widgets.0.dataSource'],
      ],
      [
        'a default for no filter',
        named({ dashboard: { ...payload.dashboard, filterDefaults: { nope: ['x'] } } }),
        400,
        'validation_failed',
        ['dashboard.filterDefaults.nope'],
      ],
      [
        'a filter on another source’s field',
        named({
          dashboard: {
            ...payload.dashboard,
            filterConfig: [{ ...payload.dashboard.filterConfig[0], dimension: '$people.region' }, payload.dashboard.filterConfig[1]],
          },
        }),
        400,
        'validation_failed',
        ['dashboard.filterConfig.0.dimension'],
      ],
      [
        'too many widgets',
        named({ widgets: Array.from({ length: 201 }, (_, i) => ({ ...payload.widgets[1], key: `k${i}` })) }),
        400,
        'validation_failed',
        ['widgets'],
      ],
      ['not an object', [payload], 400, 'validation_failed', ['(root)']],
    ];
    for (const [what, body, status, code, paths] of cases) {
      const res = await importing(org, body);
      expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status, code });
      expect({ what, paths: res.body.error.details.map((d: Json) => d.path) }).toEqual({ what, paths });
    }
    expect(await rowsOf(org)).toEqual(before);
  });

  test('the body: gzip is read, JSON only, bounded in size and depth', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org, 'Orders');
    const payload = await exportOf(org, (await richDashboard(org, source, source)).id);
    const body = JSON.stringify({ ...payload, name: 'Zipped', dataSourceMappings: { orders: source.id } });
    const zipped = await owner(org)
      .post('/dashboards/import')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      // superagent would JSON-encode a Buffer sent as application/json; send the bytes as they are.
      .serialize((bytes: any) => bytes)
      .send(gzipSync(body));
    expectStatus(zipped, 201);
    expect(zipped.body.widgets).toHaveLength(3);
    const before = await rowsOf(org);
    expectError(await owner(org).post('/dashboards/import').set('Content-Type', 'text/csv').send('a,b'), 415, 'unsupported_media_type');
    expectError(await owner(org).post('/dashboards/import').set('Content-Type', 'application/json').send('{"format": '), 400, 'invalid_json');
    expectError(await owner(org).post('/dashboards/import'), 415, 'unsupported_media_type');
    expectError(await owner(org).post('/dashboards/import').set('Content-Type', 'application/json'), 400, 'invalid_json');
    const huge = await owner(org)
      .post('/dashboards/import')
      .set('Content-Type', 'application/json')
      .send(' '.repeat(8 * 1024 * 1024 + 1));
    expectError(huge, 413, 'payload_too_large');
    const deep = {
      ...payload,
      dataSourceMappings: { orders: source.id },
      widgets: [{ ...payload.widgets[0], displayConfig: { x: JSON.parse('['.repeat(100) + ']'.repeat(100)) } }],
    };
    const tooDeep = await importing(org, deep);
    expectError(tooDeep, 400, 'validation_failed');
    expect(tooDeep.body.error.details[0].path).toMatch(/^widgets\.0\.displayConfig\.x(\.0)+$/);
    expect(await rowsOf(org)).toEqual(before);
  });

  test('an import needs dashboards:admin: a viewer gets 403 and nothing is written', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org, 'Orders');
    const payload = await exportOf(org, (await richDashboard(org, source, source)).id);
    const before = await rowsOf(org);
    const res = await as(h.app, org.tokens.viewer)
      .post('/dashboards/import')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...payload, name: 'x', dataSourceMappings: { orders: source.id } }));
    expectError(res, 403, 'missing_permission');
    expect(await rowsOf(org)).toEqual(before);
  });
});
