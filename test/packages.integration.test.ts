import { gzipSync } from 'node:zlib';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';
import { barWidget, dashboardDef, FIELDS, footprint, install, packageDef, sourceDef, workflowDef } from './package-fixtures';
import { workflowApi } from './workflow-api';

/**
 * Packages (README "Packages"): what an install creates, the upload and its
 * refusals, that a refused install writes nothing, reinstalling in place,
 * uninstalling, permissions and tenancy. Dependencies are in
 * packages-dependencies.integration.test.ts.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);
const MISSING = '00000000-0000-4000-8000-000000000000';
const alias = (id: string) => `ds_${id.replace(/-/g, '_')}`;

async function installed(org: TestOrg, body: unknown): Promise<Json> {
  const res = await install(h.app, org, body);
  expectStatus(res, 201);
  return res.body;
}

const get = async (org: TestOrg, url: string) => {
  const res = await owner(org).get(url);
  expectStatus(res, 200);
  return res.body;
};

const relationExists = async (relation: string) =>
  (await h.services.db.query(`SELECT 1 FROM pg_tables WHERE schemaname = 'analytics' AND tablename = $1`, [relation])).length === 1;

describe('install', () => {
  test('creates its data sources (and the tables they need), workflows and dashboards, and lists itself with them', async () => {
    const org = await createTestOrg(h.services);
    const people = uniqueName('people');
    await seedRecords(h.app, org, people, {
      p1: { at: '2026-01-02T00:00:00Z', amount: 4, region: 'EU' },
      p2: { at: '2026-01-03T00:00:00Z', amount: 6, region: 'US' },
    });
    const orders = uniqueName('orders');
    const pkg = packageDef('sales-kit', '1.0.0', {
      dataSources: [sourceDef('Orders', orders), sourceDef('People', people)],
      workflows: [workflowDef('sync-orders', { synced: true })],
      dashboards: [{ ...dashboardDef('Sales', 'Orders') }, dashboardDef('People', 'People')],
    });
    pkg.dashboards[0].dashboard.isDefault = true;
    const body = await installed(org, { package: pkg });

    expect(body.createdTables).toEqual([orders]);
    expect(body.dependencies).toEqual([]);
    const p = body.package;
    expect(p).toEqual(
      expect.objectContaining({
        organizationId: org.organizationId,
        name: 'sales-kit',
        version: '1.0.0',
        description: 'The sales-kit package',
        dependencies: {},
        installedAs: 'direct',
        installedBy: org.ownerId,
        previousVersion: null,
      }),
    );
    expect(p.workflows.map((w: Json) => w.name)).toEqual(['sync-orders']);
    expect(p.dataSources.map((s: Json) => s.name).sort()).toEqual(['Orders', 'People']);
    expect(p.dashboards.map((d: Json) => d.name).sort()).toEqual(['People', 'Sales']);

    const workflow = await get(org, `/workflows/${p.workflows[0].id}`);
    expect(workflow).toEqual(expect.objectContaining({ name: 'sync-orders', version: 1 }));
    expect(workflow.definition.steps[0].input.webhookResponse.body).toEqual({ synced: true });
    // As written in the package (stepId before stepType before input), as a definition POSTed is.
    expect(JSON.stringify(workflow.definition)).toBe(JSON.stringify({ ...workflowDef('sync-orders', { synced: true }), initial: {} }));

    const ordersId = p.dataSources.find((s: Json) => s.name === 'Orders').id;
    const source = await get(org, `/dashboards/data-sources/${ordersId}`);
    expect(source).toEqual(
      expect.objectContaining({ name: 'Orders', type: 'custom', dataStoreTableName: orders, enabled: true, servingRelation: alias(ordersId) }),
    );
    expect(source.recordSchema.fields).toEqual(FIELDS);
    expect(source.recordSchema.calculatedFields).toEqual([expect.objectContaining({ id: expect.any(String), name: 'double', measure: true })]);
    expect(source.windowDimensions).toEqual([expect.objectContaining({ name: 'seq', partitionBy: ['region'], orderBy: 'at' })]);
    expect(await relationExists(alias(ordersId))).toBe(true);

    // The dashboards name the package's sources by their new aliases; a package never takes the default.
    const salesId = p.dashboards.find((d: Json) => d.name === 'Sales').id;
    const sales = await get(org, `/dashboards/${salesId}`);
    expect(sales).toEqual(expect.objectContaining({ isDefault: false, filterDefaults: { region: ['EU'] } }));
    expect(sales.filterConfig).toEqual([{ id: 'region', dataSourceId: ordersId, dimension: `${alias(ordersId)}.region`, label: 'Region' }]);
    expect(sales.widgets.map((w: Json) => [w.dataSourceId, w.queryConfig.measures])).toEqual([
      [ordersId, [`${alias(ordersId)}.count`, `${alias(ordersId)}.double`]],
    ]);
    expect(sales.layout).toEqual([{ widgetId: sales.widgets[0].id, x: 0, y: 0, w: 6, h: 4 }]);
    const listed = await owner(org).get('/dashboards');
    expect(listed.body.map((d: Json) => d.name).sort()).toEqual(['People', 'Sales']);

    // A source over a table that had records serves them at once.
    const peopleDashboard = p.dashboards.find((d: Json) => d.name === 'People').id;
    const data = await owner(org)
      .post(`/dashboards/${peopleDashboard}/data`)
      .send({ filters: { region: [] } });
    expectStatus(data, 201);
    expect(data.body.widgets[0].data).toHaveLength(2);

    const list = await get(org, '/packages');
    expect(list).toEqual({ total: 1, data: [{ ...p, previousVersion: undefined }].map(({ previousVersion: _, ...rest }) => rest) });
    expect(await get(org, `/packages/${p.id}`)).toEqual(list.data[0]);
  });

  test('the upload: a bare package or {package}, gzip, JSON only, bounded; every malformed part named, nothing written', async () => {
    const org = await createTestOrg(h.services);
    expectStatus(await install(h.app, org, packageDef('bare-kit', '1.0.0', { workflows: [workflowDef('bare-wf')] })), 201);
    const zipped = await owner(org)
      .post('/packages')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((bytes: any) => bytes)
      .send(gzipSync(JSON.stringify({ package: packageDef('zipped-kit', '0.1.0') })));
    expectStatus(zipped, 201);
    const before = await footprint(h.services.db, org);

    expectError(await owner(org).post('/packages').set('Content-Type', 'text/plain').send('x'), 415, 'unsupported_media_type');
    expectError(await owner(org).post('/packages').set('Content-Type', 'application/json').send('{"manifest":'), 400, 'invalid_json');
    const huge = await owner(org)
      .post('/packages')
      .set('Content-Type', 'application/json')
      .send(' '.repeat(16 * 1024 * 1024 + 1));
    expectError(huge, 413, 'payload_too_large');

    const ok = () =>
      packageDef('bad-kit', '1.0.0', {
        dataSources: [sourceDef('Orders', uniqueName('t'))],
        workflows: [workflowDef('wf-a')],
        dashboards: [dashboardDef('D', 'Orders')],
      });
    const change = (edit: (p: Json) => void) => {
      const p = ok();
      edit(p);
      return p;
    };
    const cases: Array<[string, unknown, string, string[]]> = [
      ['a version that is not semver', change((p) => (p.manifest.version = 'v1.0')), 'validation_failed', ['package.manifest.version']],
      ['a range that is not one', change((p) => (p.manifest.dependencies = { core: 'banana' })), 'validation_failed', ['package.manifest.dependencies.core']],
      ['a name with capitals and spaces', change((p) => (p.manifest.name = 'Sales Kit')), 'validation_failed', ['package.manifest.name']],
      ['no manifest at all', { package: { workflows: [] } }, 'validation_failed', ['package.manifest']],
      ['an unknown field', change((p) => (p.extra = 1)), 'validation_failed', ['package.extra']],
      ['two workflows of one name', change((p) => p.workflows.push(workflowDef('wf-a'))), 'validation_failed', ['package.workflows.1.name']],
      ['a feed source', change((p) => (p.dataSources[0].type = 'shop:orders')), 'validation_failed', ['package.dataSources.0.type']],
      [
        'a bad field in a source',
        change((p) => (p.dataSources[0].recordSchema.fields.amount.measure = 'yes')),
        'validation_failed',
        ['package.dataSources.0.recordSchema.fields.amount.measure'],
      ],
      ['a dashboard of another format', change((p) => (p.dashboards[0].format = 'grafana')), 'unsupported_format', ['package.dashboards.0.format']],
      ['a dashboard of another version', change((p) => (p.dashboards[0].version = 3)), 'unsupported_format', ['package.dashboards.0.version']],
      ['a bad widget', change((p) => (p.dashboards[0].widgets[0].chartType = 'donut')), 'validation_failed', ['package.dashboards.0.widgets.0.chartType']],
      [
        'a dependency of another format',
        { package: ok(), dependencies: [change((p) => (p.dashboards[0].format = 'x'))] },
        'unsupported_format',
        ['dependencies.0.dashboards.0.format'],
      ],
      [
        'a template naming a step that does not run before it',
        change((p) => (p.workflows[0].steps[0].input.webhookResponse.body = '{{ later.body }}')),
        'invalid_definition',
        ['package.workflows.0.steps.0.input.webhookResponse.body'],
      ],
      [
        'a dashboard over a source the package does not have',
        change((p) => (p.dashboards[0].dataSources[0].name = 'Nope')),
        'unknown_data_source',
        ['package.dashboards.0.dataSources.0.name'],
      ],
      [
        'a calculated field over a missing field',
        change((p) => (p.dataSources[0].recordSchema.calculatedFields[0].expression = { type: 'Identifier', name: 'ghost' })),
        'validation_failed',
        ['package.dataSources.0.recordSchema.calculatedFields.0.expression'],
      ],
      [
        'a window over a missing field',
        change((p) => (p.dataSources[0].windowDimensions[0].orderBy = 'ghost')),
        'validation_failed',
        ['package.dataSources.0.windowDimensions.0.orderBy'],
      ],
      [
        'too many workflows',
        change((p) => (p.workflows = Array.from({ length: 101 }, (_, i) => workflowDef(`wf-${i}`)))),
        'validation_failed',
        ['package.workflows'],
      ],
    ];
    for (const [what, body, code, paths] of cases) {
      const res = await install(h.app, org, body);
      expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status: 400, code });
      expect({ what, paths: res.body.error.details.map((d: Json) => d.path) }).toEqual({ what, paths });
    }
    expect(await footprint(h.services.db, org)).toEqual(before);
  });

  test('atomic: a package refused after its sources, tables and workflows were written leaves nothing behind', async () => {
    const org = await createTestOrg(h.services);
    await workflowApi(h.app, org).createWorkflow([{ stepId: 'a', stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }], {
      name: 'taken',
    });
    const before = await footprint(h.services.db, org);
    const table = uniqueName('orders');
    const overlapping = dashboardDef('Sales', 'Orders', [barWidget('w1', 'One'), barWidget('w2', 'Two')]);
    overlapping.dashboard.layout = [
      { widget: 'w1', x: 0, y: 0, w: 6, h: 4 },
      { widget: 'w2', x: 3, y: 2, w: 6, h: 4 },
    ];
    const late = await install(
      h.app,
      org,
      packageDef('late-kit', '1.0.0', { dataSources: [sourceDef('Orders', table)], workflows: [workflowDef('fine')], dashboards: [overlapping] }),
    );
    expectError(late, 400, 'invalid_layout');
    expect(late.body.error.details).toEqual([{ path: 'package.dashboards.0.dashboard.layout.1', message: expect.stringContaining('overlaps') }]);

    const clash = await install(
      h.app,
      org,
      packageDef('clash-kit', '1.0.0', { dataSources: [sourceDef('Orders', table)], workflows: [workflowDef('fine'), workflowDef('taken')] }),
    );
    expectError(clash, 400, 'duplicate_name');
    expect(clash.body.error.details).toEqual([{ path: 'package.workflows.1.name', message: expect.any(String) }]);

    expect(await footprint(h.services.db, org)).toEqual({ ...before, orphan_relations: 0 });
    // The built-in run sources every organization has (Runs as data) are not the package's.
    expect((await get(org, '/dashboards/data-sources')).filter((s: { builtIn: boolean }) => !s.builtIn).length).toBe(0);
    expectError(await owner(org).get(`/data-stores/tables/${table}`), 404);
  });
});

describe('reinstall', () => {
  const v1 = (table: string) =>
    packageDef('sales-kit', '1.0.0', {
      dataSources: [sourceDef('Orders', table)],
      workflows: [workflowDef('sync', { v: 1 }), workflowDef('old-job')],
      dashboards: [dashboardDef('Sales', 'Orders', [barWidget('w1', 'First'), barWidget('w2', 'Second')])],
    });

  test('a newer version updates in place by name: ids kept, a new workflow version, sources and dashboards changed, dropped items removed', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('orders');
    const first = (await installed(org, v1(table))).package;
    const sync = first.workflows.find((w: Json) => w.name === 'sync').id;
    const oldJob = first.workflows.find((w: Json) => w.name === 'old-job').id;
    const sourceId = first.dataSources[0].id;
    const dashboardId = first.dashboards[0].id;
    const before = await get(org, `/dashboards/${dashboardId}`);
    const calcId = (await get(org, `/dashboards/data-sources/${sourceId}`)).recordSchema.calculatedFields[0].id;
    // The organization made it its default meanwhile: a reinstall leaves that alone.
    expectStatus(await owner(org).patch(`/dashboards/${dashboardId}`).send({ isDefault: true }), 200);

    const source2 = sourceDef('Orders', table, {
      windowDimensions: [{ name: 'seq', label: 'Seq', function: 'row_number', partitionBy: ['channel'], orderBy: 'at' }],
    });
    source2.recordSchema.fields = { ...FIELDS, region: { type: 'string', label: 'Area' }, channel: { type: 'string', label: 'Channel' } };
    const dashboard2 = dashboardDef('Sales', 'Orders', [barWidget('w1', 'First, renamed'), barWidget('w3', 'Third')]);
    const v2 = packageDef('sales-kit', '1.1.0', { dataSources: [source2], workflows: [workflowDef('sync', { v: 2 })], dashboards: [dashboard2] });
    const second = (await installed(org, v2)).package;

    expect(second).toEqual(expect.objectContaining({ id: first.id, version: '1.1.0', previousVersion: '1.0.0' }));
    expect(second.workflows).toEqual([{ id: sync, name: 'sync' }]);
    expect(second.dataSources).toEqual([{ id: sourceId, name: 'Orders' }]);
    expect(second.dashboards).toEqual([{ id: dashboardId, name: 'Sales' }]);

    const workflow = await get(org, `/workflows/${sync}`);
    expect(workflow.version).toBe(2);
    expect(workflow.definition.steps[0].input.webhookResponse.body).toEqual({ v: 2 });
    expect((await get(org, `/workflows/${sync}/versions/1`)).definition.steps[0].input.webhookResponse.body).toEqual({ v: 1 });
    expectError(await owner(org).get(`/workflows/${oldJob}`), 404, 'not_found');

    const source = await get(org, `/dashboards/data-sources/${sourceId}`);
    expect(source.recordSchema.fields.channel).toEqual({ type: 'string', label: 'Channel' });
    expect(source.recordSchema.fields.region.label).toBe('Area');
    expect(source.recordSchema.calculatedFields).toEqual([expect.objectContaining({ id: calcId, name: 'double' })]);
    expect(source.windowDimensions).toEqual([expect.objectContaining({ name: 'seq', partitionBy: ['channel'] })]);

    const after = await get(org, `/dashboards/${dashboardId}`);
    expect(after.isDefault).toBe(true);
    expect(after.widgets.map((w: Json) => w.title)).toEqual(['First, renamed', 'Third']);
    expect(after.widgets[0].id).toBe(before.widgets[0].id);
    expect(after.widgets.map((w: Json) => w.id)).not.toContain(before.widgets[1].id);
    expect(after.layout.map((item: Json) => item.widgetId)).toEqual(after.widgets.map((w: Json) => w.id));

    // The same version again changes nothing: no new workflow version, the same widgets.
    const again = (await installed(org, v2)).package;
    expect(again).toEqual(expect.objectContaining({ id: first.id, version: '1.1.0', previousVersion: '1.1.0' }));
    expect((await get(org, `/workflows/${sync}`)).version).toBe(2);
    expect((await get(org, `/dashboards/${dashboardId}`)).widgets.map((w: Json) => w.id)).toEqual(after.widgets.map((w: Json) => w.id));
  });

  test('a source cannot move to another table: 400 package_conflict, and nothing of the new version is kept', async () => {
    const org = await createTestOrg(h.services);
    await installed(org, v1(uniqueName('orders')));
    const before = await footprint(h.services.db, org);
    const moved = v1(uniqueName('elsewhere'));
    moved.manifest.version = '2.0.0';
    moved.workflows[0] = workflowDef('sync', { v: 'moved' });
    const res = await install(h.app, org, moved);
    expectError(res, 400, 'package_conflict');
    expect(res.body.error.details).toEqual([{ path: 'package.dataSources.0.dataStoreTableName', message: expect.stringContaining('cannot move') }]);
    expect(await footprint(h.services.db, org)).toEqual(before);
    expect((await get(org, '/packages')).data[0].version).toBe('1.0.0');
  });
});

describe('uninstall', () => {
  test('removes its dashboards, workflows and sources, but keeps a workflow with a trigger and a source another dashboard uses', async () => {
    const org = await createTestOrg(h.services);
    const [orders, spare] = [uniqueName('orders'), uniqueName('spare')];
    const pkg = (
      await installed(
        org,
        packageDef('ops-kit', '1.0.0', {
          dataSources: [sourceDef('Orders', orders), sourceDef('Spare', spare)],
          workflows: [workflowDef('hooked'), workflowDef('plain')],
          dashboards: [dashboardDef('Ops', 'Orders')],
        }),
      )
    ).package;
    const id = (list: Json[], name: string) => list.find((i) => i.name === name)!.id;
    const hooked = id(pkg.workflows, 'hooked');
    const spareId = id(pkg.dataSources, 'Spare');
    const ordersId = id(pkg.dataSources, 'Orders');
    await workflowApi(h.app, org).createTrigger(hooked);
    const mine = await owner(org).post('/dashboards').send({ name: 'Mine' });
    expectStatus(
      await owner(org)
        .post(`/dashboards/${mine.body.id}/widgets`)
        .send({ title: 'Spare', chartType: 'stat-card', dataSourceId: spareId, queryConfig: { measures: [`${alias(spareId)}.count`] } }),
      201,
    );

    const res = await owner(org).delete(`/packages/${pkg.id}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      uninstalled: [{ id: pkg.id, name: 'ops-kit', version: '1.0.0' }],
      removed: { workflows: [{ id: id(pkg.workflows, 'plain'), name: 'plain' }], dataSources: [{ id: ordersId, name: 'Orders' }], dashboards: pkg.dashboards },
      kept: {
        workflows: [{ id: hooked, name: 'hooked', reason: expect.stringContaining('webhook triggers') }],
        dataSources: [{ id: spareId, name: 'Spare', reason: expect.stringContaining('dashboards that stay') }],
      },
    });
    expectError(await owner(org).get(`/packages/${pkg.id}`), 404, 'not_found');
    expectError(await owner(org).get(`/workflows/${id(pkg.workflows, 'plain')}`), 404);
    expectError(await owner(org).get(`/dashboards/${pkg.dashboards[0].id}`), 404);
    expectError(await owner(org).get(`/dashboards/data-sources/${ordersId}`), 404);
    expect(await relationExists(alias(ordersId))).toBe(false);
    expectStatus(await owner(org).get(`/workflows/${hooked}`), 200);
    expectStatus(await owner(org).get(`/dashboards/data-sources/${spareId}`), 200);
    // Records and tables are data: they stay.
    expectStatus(await owner(org).get(`/data-stores/tables/${orders}`), 200);
    // Reinstalling finds nothing of the old items and creates them anew: a kept workflow's name is taken, so it is refused.
    expectError(await install(h.app, org, packageDef('ops-kit', '1.0.0', { workflows: [workflowDef('hooked')] })), 400, 'duplicate_name');
    expectError(await owner(org).delete(`/packages/${pkg.id}`), 404, 'not_found');
  });
});

describe('permissions and tenancy', () => {
  test('packages:admin installs and uninstalls (owner, admin, developer); every role reads; another organization sees 404', async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    const before = await footprint(h.services.db, org);
    for (const role of ['analyst', 'viewer'] as const) {
      expectError(await install(h.app, org, packageDef('kit', '1.0.0'), org.tokens[role]), 403, 'missing_permission');
    }
    expect(await footprint(h.services.db, org)).toEqual(before);
    const pkg = (await install(h.app, org, packageDef('kit', '1.0.0', { workflows: [workflowDef('wf')] }), org.tokens.developer)).body.package;
    expect(pkg.installedBy).not.toBe(org.ownerId);
    for (const role of ['analyst', 'viewer'] as const) {
      expectStatus(await as(h.app, org.tokens[role]).get('/packages'), 200);
      expectStatus(await as(h.app, org.tokens[role]).get(`/packages/${pkg.id}`), 200);
      expectError(await as(h.app, org.tokens[role]).delete(`/packages/${pkg.id}`), 403, 'missing_permission');
    }

    expectError(await owner(other).get(`/packages/${pkg.id}`), 404, 'not_found');
    expectError(await owner(other).delete(`/packages/${pkg.id}`), 404, 'not_found');
    expect(await get(other, '/packages')).toEqual({ total: 0, data: [] });
    // The same package in another organization is its own.
    const theirs = (await installed(other, packageDef('kit', '1.0.0', { workflows: [workflowDef('wf')] }))).package;
    expect(theirs.id).not.toBe(pkg.id);
    expect(theirs.workflows[0].id).not.toBe(pkg.workflows[0].id);
    expectStatus(await as(h.app, org.tokens.admin).delete(`/packages/${pkg.id}`), 200);
    expect((await get(other, `/packages/${theirs.id}`)).workflows).toEqual(theirs.workflows);
    expectError(await owner(org).get(`/packages/${MISSING}`), 404, 'not_found');
    expectError(await owner(org).get('/packages/not-a-uuid'), 400, 'validation_failed');
  });

  test('GET /packages is paged by name with the total', async () => {
    const org = await createTestOrg(h.services);
    for (const name of ['c-kit', 'a-kit', 'b-kit']) await installed(org, packageDef(name, '1.0.0'));
    const page = await get(org, '/packages?limit=2&offset=1');
    expect(page.total).toBe(3);
    expect(page.data.map((p: Json) => p.name)).toEqual(['b-kit', 'c-kit']);
    expectError(await owner(org).get('/packages?limit=1001'), 400, 'validation_failed');
  });
});
