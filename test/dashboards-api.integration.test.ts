import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { createDashboard as createDashboardOf, createSalesSource } from './dashboard-fixtures';

/** Dashboards themselves (interface.md 4.3, 2.4): create, read, list, PATCH with defaults and filters, delete, tenancy. */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const MISSING = '00000000-0000-4000-8000-000000000000';
const DASHBOARD_FIELDS = [
  'createdAt',
  'description',
  'filterConfig',
  'filterDefaults',
  'id',
  'isDefault',
  'layout',
  'name',
  'organizationId',
  'suid',
  'timezone',
  'updatedAt',
  'userId',
];

const owner = (org: TestOrg) => as(h.app, org.ownerToken);

const createDashboard = (org: TestOrg, body: Json = {}) => createDashboardOf(h.app, org, body);

const createSource = (org: TestOrg) => createSalesSource(h.app, org);

async function addWidget(org: TestOrg, dashboardId: string, source: Json): Promise<Json> {
  const res = await owner(org)
    .post(`/dashboards/${dashboardId}/widgets`)
    .send({ title: 'Count', chartType: 'stat-card', dataSourceId: source.id, queryConfig: { measures: [`${source.servingRelation}.count`] } });
  expectStatus(res, 201);
  return res.body;
}

const defaultsOf = async (org: TestOrg) =>
  (await h.services.db.query(`SELECT id FROM dashboards WHERE organization_id = $1 AND is_default`, [org.organizationId])).map((r: Json) => r.id);

describe('create, read, list', () => {
  test('POST answers 201 with the whole dashboard: empty layout, no filters, not the default, no zone', async () => {
    const org = await createTestOrg(h.services);
    const d = await createDashboard(org, { name: 'Sales', description: 'Weekly numbers' });
    expect(Object.keys(d).sort()).toEqual(DASHBOARD_FIELDS);
    expect(d).toEqual(
      expect.objectContaining({
        organizationId: org.organizationId,
        userId: org.ownerId,
        name: 'Sales',
        description: 'Weekly numbers',
        isDefault: false,
        layout: [],
        filterConfig: [],
        filterDefaults: {},
        timezone: null,
      }),
    );
    expect(new Date(d.createdAt).toISOString()).toBe(d.createdAt);
    const read = await owner(org).get(`/dashboards/${d.id}`);
    expectStatus(read, 200);
    expect(read.body).toEqual({ ...d, widgets: [] });
  });

  test('POST takes isDefault and an IANA timezone; refuses what is not one, unknown fields and empty names', async () => {
    const org = await createTestOrg(h.services);
    expect(await createDashboard(org, { isDefault: true, timezone: 'America/New_York' })).toEqual(
      expect.objectContaining({ isDefault: true, timezone: 'America/New_York' }),
    );
    for (const timezone of ['Mars/Olympus', '+02:00', 'GMT+2', '', 5]) {
      const res = await owner(org)
        .post('/dashboards')
        .send({ name: uniqueName('Dash'), timezone });
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'timezone' })]);
    }
    const unknown = await owner(org)
      .post('/dashboards')
      .send({ name: uniqueName('Dash'), layout: [] });
    expectError(unknown, 400, 'validation_failed');
    expect(unknown.body.error.details).toEqual([{ path: 'layout', message: 'Unknown field' }]);
    expectError(await owner(org).post('/dashboards').send({ name: '   ' }), 400, 'validation_failed');
    expectError(await owner(org).post('/dashboards').send({}), 400, 'validation_failed');
    expectError(
      await owner(org)
        .post('/dashboards')
        .send({ name: 'x'.repeat(201) }),
      400,
      'validation_failed',
    );
  });

  test('names are unique per organization: 400 duplicate_name on create and on rename; another organization may reuse one', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    await createDashboard(org, { name: 'Sales' });
    const again = await owner(org).post('/dashboards').send({ name: 'Sales' });
    expectError(again, 400, 'duplicate_name');
    expect(again.body.error.details).toEqual([{ path: 'name', message: expect.any(String) }]);
    const second = await createDashboard(org, { name: 'Ops' });
    expectError(await owner(org).patch(`/dashboards/${second.id}`).send({ name: 'Sales' }), 400, 'duplicate_name');
    expect((await owner(org).get(`/dashboards/${second.id}`)).body.name).toBe('Ops');
    await createDashboard(other, { name: 'Sales' });
  });

  test('GET /dashboards lists newest first, without widgets, paged with X-Total-Count', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createDashboard(org, { name: `D${i}` }));
    await addWidget(org, made[0].id, source);
    const all = await owner(org).get('/dashboards');
    expectStatus(all, 200);
    expect(all.headers['x-total-count']).toBe('5');
    expect(all.body.map((d: Json) => d.name)).toEqual(['D4', 'D3', 'D2', 'D1', 'D0']);
    for (const d of all.body) expect(Object.keys(d).sort()).toEqual(DASHBOARD_FIELDS);
    const page = await owner(org).get('/dashboards?limit=2&offset=1');
    expect(page.body.map((d: Json) => d.name)).toEqual(['D3', 'D2']);
    expect(page.headers['x-total-count']).toBe('5');
    expectError(await owner(org).get('/dashboards?limit=1001'), 400, 'validation_failed');
    expectError(await owner(org).get('/dashboards?limit=0'), 400, 'validation_failed');
  });

  test('GET /dashboards/{id} inlines the widgets, oldest first', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await addWidget(org, d.id, source)).id);
    const read = await owner(org).get(`/dashboards/${d.id}`);
    expect(read.body.widgets.map((w: Json) => w.id)).toEqual(ids);
    expect(read.body.widgets[0]).toEqual(expect.objectContaining({ dashboardId: d.id, organizationId: org.organizationId, chartType: 'stat-card' }));
  });

  test('the routes of data sources and analytics are not taken by /dashboards/{id}', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    await createDashboard(org);
    const sources = await owner(org).get('/dashboards/data-sources');
    expectStatus(sources, 200);
    expect(sources.body.filter((s: Json) => !s.builtIn).map((s: Json) => s.id)).toEqual([source.id]);
    expectStatus(await owner(org).get('/dashboards/analytics/meta'), 200);
    expectStatus(await owner(org).get(`/dashboards/data-sources/${source.id}`), 200);
    const notAnId = await owner(org).get('/dashboards/not-a-uuid');
    expectError(notAnId, 400, 'validation_failed');
    expect(notAnId.body.error.details).toEqual([{ path: 'params.id', message: 'must be a UUID' }]);
  });
});

describe('PATCH', () => {
  test('changes the fields sent and nothing else; timezone null means each viewer’s own zone', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org, { timezone: 'Europe/Paris' });
    const widget = await addWidget(org, d.id, source);
    const res = await owner(org).patch(`/dashboards/${d.id}`).send({ description: 'New' });
    expectStatus(res, 200);
    expect(res.body).toEqual(
      expect.objectContaining({ name: d.name, description: 'New', timezone: 'Europe/Paris', layout: [expect.objectContaining({ widgetId: widget.id })] }),
    );
    expect(res.body.widgets).toBeUndefined();
    expect((await owner(org).patch(`/dashboards/${d.id}`).send({ timezone: null })).body.timezone).toBeNull();
    expect((await owner(org).patch(`/dashboards/${d.id}`).send({ timezone: 'Asia/Tokyo', name: 'Renamed' })).body).toEqual(
      expect.objectContaining({ timezone: 'Asia/Tokyo', name: 'Renamed' }),
    );
    expectError(await owner(org).patch(`/dashboards/${d.id}`).send({ timezone: 'Nowhere/City' }), 400, 'validation_failed');
    expectError(await owner(org).patch(`/dashboards/${d.id}`).send({ layout: [] }), 400, 'validation_failed');
    const read = await owner(org).get(`/dashboards/${d.id}`);
    expect(read.body.widgets).toEqual([widget]);
  });

  test('isDefault: true clears the previous default; false just unsets it', async () => {
    const org = await createTestOrg(h.services);
    const a = await createDashboard(org, { isDefault: true });
    const b = await createDashboard(org);
    const res = await owner(org).patch(`/dashboards/${b.id}`).send({ isDefault: true });
    expectStatus(res, 200);
    expect(res.body.isDefault).toBe(true);
    expect((await owner(org).get(`/dashboards/${a.id}`)).body.isDefault).toBe(false);
    expect(await defaultsOf(org)).toEqual([b.id]);
    // Again on the default itself: it stays the only one.
    expectStatus(await owner(org).patch(`/dashboards/${b.id}`).send({ isDefault: true }), 200);
    expect(await defaultsOf(org)).toEqual([b.id]);
    // A new default on create takes the place too.
    const c = await createDashboard(org, { isDefault: true });
    expect(await defaultsOf(org)).toEqual([c.id]);
    expect((await owner(org).patch(`/dashboards/${c.id}`).send({ isDefault: false })).body.isDefault).toBe(false);
    expect(await defaultsOf(org)).toEqual([]);
  });

  test('one default per organization: each organization keeps its own', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const mine = await createDashboard(org, { isDefault: true });
    const theirs = await createDashboard(other, { isDefault: true });
    expect(await defaultsOf(org)).toEqual([mine.id]);
    expect(await defaultsOf(other)).toEqual([theirs.id]);
  });

  test('racing PATCHes end with exactly one default, every time, and no error', async () => {
    const org = await createTestOrg(h.services);
    const dashboards = [];
    for (let i = 0; i < 4; i++) dashboards.push(await createDashboard(org));
    for (let round = 0; round < 25; round++) {
      const a = dashboards[round % 4];
      const b = dashboards[(round + 1 + (round % 3)) % 4];
      const [ra, rb] = await Promise.all([
        owner(org).patch(`/dashboards/${a.id}`).send({ isDefault: true }),
        owner(org).patch(`/dashboards/${b.id}`).send({ isDefault: true }),
      ]);
      expectStatus(ra, 200);
      expectStatus(rb, 200);
      const defaults = await defaultsOf(org);
      expect(defaults).toHaveLength(1);
      expect([a.id, b.id]).toContain(defaults[0]);
    }
  });

  test('a create and PATCHes racing for the default also end with exactly one', async () => {
    const org = await createTestOrg(h.services);
    const a = await createDashboard(org);
    const b = await createDashboard(org);
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all([
        owner(org).patch(`/dashboards/${a.id}`).send({ isDefault: true }),
        owner(org)
          .post('/dashboards')
          .send({ name: uniqueName('Race'), isDefault: true }),
        owner(org).patch(`/dashboards/${b.id}`).send({ isDefault: true }),
      ]);
      expect(results.map((r) => r.status)).toEqual([200, 201, 200]);
      expect(await defaultsOf(org)).toHaveLength(1);
    }
  });

  test('the database itself refuses a second default', async () => {
    const org = await createTestOrg(h.services);
    const a = await createDashboard(org, { isDefault: true });
    const b = await createDashboard(org);
    await expect(h.services.db.query(`UPDATE dashboards SET is_default = true WHERE id = $1`, [b.id])).rejects.toThrow(/dashboards_one_default_key/);
    expect(await defaultsOf(org)).toEqual([a.id]);
  });
});

describe('filters', () => {
  const filter = (source: Json, extra: Json = {}) => ({ id: 'region', dataSourceId: source.id, dimension: 'region', label: 'Region', ...extra });

  test('filterConfig over the organization’s sources and filterDefaults keyed by its ids are kept', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    const filterConfig = [filter(source), filter(source, { id: 'amount-band', dimension: `${source.servingRelation}.amount`, label: 'Amount' })];
    const res = await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig, filterDefaults: { region: ['EU', 'US'] } });
    expectStatus(res, 200);
    expect(res.body.filterConfig).toEqual(filterConfig);
    expect(res.body.filterDefaults).toEqual({ region: ['EU', 'US'] });
    // Defaults alone, against the filters saved before.
    expect(
      (
        await owner(org)
          .patch(`/dashboards/${d.id}`)
          .send({ filterDefaults: { 'amount-band': ['10'] } })
      ).body.filterDefaults,
    ).toEqual({ 'amount-band': ['10'] });
  });

  test('a filter over another organization’s source is 400 saying so; an unknown source is 400 too', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const theirs = await createSource(other);
    const d = await createDashboard(org);
    const foreign = await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig: [filter(theirs)] });
    expectError(foreign, 400, 'foreign_data_source');
    expect(foreign.body.error.details).toEqual([{ path: 'filterConfig.0.dataSourceId', message: `data source ${theirs.id} belongs to another organization` }]);
    const unknown = await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig: [filter({ id: MISSING })] });
    expectError(unknown, 400, 'unknown_data_source');
    expect(unknown.body.error.details).toEqual([{ path: 'filterConfig.0.dataSourceId', message: `no data source ${MISSING} exists in this organization` }]);
    expect(unknown.body.error.message).not.toContain('another organization');
    expect((await owner(org).get(`/dashboards/${d.id}`)).body.filterConfig).toEqual([]);
  });

  test('filterDefaults naming an unknown filter id is 400 naming the key; nothing is saved', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    const res = await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig: [filter(source)], filterDefaults: { region: ['EU'], regoin: ['US'] } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual([{ path: 'filterDefaults.regoin', message: expect.stringContaining('"regoin" is not the id of a filter') }]);
    expect((await owner(org).get(`/dashboards/${d.id}`)).body.filterConfig).toEqual([]);
    expectError(
      await owner(org)
        .patch(`/dashboards/${d.id}`)
        .send({ filterDefaults: { region: ['EU'] } }),
      400,
      'validation_failed',
    );
  });

  test('malformed filters: ids repeated, values not strings, too many values, another source’s field, unknown keys', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    const cases: Array<[Json, string]> = [
      [{ filterConfig: [filter(source), filter(source)] }, 'filterConfig.1.id'],
      [{ filterConfig: [filter(source, { id: 'has space' })] }, 'filterConfig.0.id'],
      [{ filterConfig: [filter(source, { dimension: 'ds_00000000_0000_4000_8000_000000000000.region' })] }, 'filterConfig.0.dimension'],
      [{ filterConfig: [filter(source, { dimension: 'not a field' })] }, 'filterConfig.0.dimension'],
      [{ filterConfig: [filter(source, { dataSourceId: 'nope' })] }, 'filterConfig.0.dataSourceId'],
      [{ filterConfig: [filter(source, { extra: 1 })] }, 'filterConfig.0.extra'],
      [{ filterConfig: Array.from({ length: 51 }, (_, i) => filter(source, { id: `f${i}` })) }, 'filterConfig'],
      [{ filterDefaults: { region: [1] } }, 'filterDefaults.region.0'],
      [{ filterDefaults: { region: 'EU' } }, 'filterDefaults.region'],
      [{ filterDefaults: { region: Array.from({ length: 101 }, (_, i) => `v${i}`) } }, 'filterDefaults.region'],
    ];
    for (const [body, path] of cases) {
      const res = await owner(org).patch(`/dashboards/${d.id}`).send(body);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((i: Json) => i.path)).toContain(path);
    }
  });

  test('replacing the filters drops the defaults of filters left out', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig: [filter(source), filter(source, { id: 'b' })], filterDefaults: { region: ['EU'], b: ['x'] } });
    const res = await owner(org)
      .patch(`/dashboards/${d.id}`)
      .send({ filterConfig: [filter(source, { id: 'b' })] });
    expect(res.body.filterDefaults).toEqual({ b: ['x'] });
  });
});

describe('DELETE', () => {
  test('removes the dashboard and its widgets; the data sources stay', async () => {
    const org = await createTestOrg(h.services);
    const source = await createSource(org);
    const d = await createDashboard(org);
    const widget = await addWidget(org, d.id, source);
    const res = await owner(org).delete(`/dashboards/${d.id}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({ deleted: true });
    expectError(await owner(org).get(`/dashboards/${d.id}`), 404, 'not_found');
    expectError(await owner(org).patch(`/dashboards/widgets/${widget.id}`).send({ title: 'x' }), 404, 'not_found');
    expect(await h.services.db.query(`SELECT id FROM dashboard_widgets WHERE dashboard_id = $1`, [d.id])).toEqual([]);
    expectStatus(await owner(org).get(`/dashboards/data-sources/${source.id}`), 200);
    expectError(await owner(org).delete(`/dashboards/${d.id}`), 404, 'not_found');
  });
});

describe('tenant isolation', () => {
  test('another organization’s dashboard is 404 on every route, and unchanged', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const source = await createSource(org);
    const theirSource = await createSource(other);
    const d = await createDashboard(org, { isDefault: true });
    const widget = await addWidget(org, d.id, source);
    const them = owner(other);
    const calls = [
      them.get(`/dashboards/${d.id}`),
      them.patch(`/dashboards/${d.id}`).send({ name: 'Taken over', isDefault: true }),
      them.patch(`/dashboards/${d.id}`).send({ filterConfig: [{ id: 'f', dataSourceId: theirSource.id, dimension: 'region', label: 'R' }] }),
      them.patch(`/dashboards/${d.id}/layout`).send({ layout: [] }),
      them.post(`/dashboards/${d.id}/widgets`).send({ title: 'x', chartType: 'table', dataSourceId: theirSource.id, queryConfig: {} }),
      them.post(`/dashboards/${d.id}/widgets`).send({ title: 'x', chartType: 'table', dataSourceId: source.id, queryConfig: {} }),
      them.post(`/dashboards/${d.id}/data`).send({}),
      them.patch(`/dashboards/widgets/${widget.id}`).send({ title: 'x' }),
      them.post(`/dashboards/widgets/${widget.id}/data`).send({}),
      them.delete(`/dashboards/widgets/${widget.id}`),
      them.delete(`/dashboards/${d.id}`),
    ];
    for (const res of await Promise.all(calls)) expectError(res, 404, 'not_found');
    expect((await them.get('/dashboards')).body).toEqual([]);
    const read = await owner(org).get(`/dashboards/${d.id}`);
    expect(read.body).toEqual(expect.objectContaining({ name: d.name, isDefault: true, layout: [expect.objectContaining({ widgetId: widget.id })] }));
    expect(read.body.widgets).toEqual([widget]);
  });

  test('unknown ids are 404 like another organization’s', async () => {
    const org = await createTestOrg(h.services);
    for (const res of await Promise.all([
      owner(org).get(`/dashboards/${MISSING}`),
      owner(org).patch(`/dashboards/${MISSING}`).send({ name: 'x' }),
      owner(org).delete(`/dashboards/${MISSING}`),
      owner(org).patch(`/dashboards/${MISSING}/layout`).send({ layout: [] }),
      owner(org).post(`/dashboards/${MISSING}/data`).send({}),
    ])) {
      expectError(res, 404, 'not_found');
    }
  });

  test('viewers read, analysts change, viewers may not change', async () => {
    const org = await createTestOrg(h.services);
    const d = await createDashboard(org);
    expectStatus(await as(h.app, org.tokens.viewer).get(`/dashboards/${d.id}`), 200);
    expectError(await as(h.app, org.tokens.viewer).patch(`/dashboards/${d.id}`).send({ name: 'v' }), 403, 'missing_permission');
    expectStatus(
      await as(h.app, org.tokens.analyst)
        .patch(`/dashboards/${d.id}`)
        .send({ name: uniqueName('a') }),
      200,
    );
  });
});
