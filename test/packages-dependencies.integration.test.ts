import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { dashboardDef, footprint, install, packageDef, sourceDef, workflowDef } from './package-fixtures';

/**
 * Package dependencies (README "Packages"): resolution (supplied, already
 * installed, missing, cyclic, ranges not satisfied), the hiding of the
 * dashboards of packages installed only as dependencies, and uninstalling
 * with dependents and orphaned dependencies.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

/** core: the Orders source over `table`, a workflow and an overview dashboard. */
const core = (version: string, table: string, dependencies: Record<string, string> = {}) =>
  packageDef('core', version, {
    dependencies,
    dataSources: [sourceDef('Orders', table)],
    workflows: [workflowDef('core-sync')],
    dashboards: [dashboardDef('Core overview', 'Orders')],
  });
/** app: a dashboard over core's Orders source, named by name. */
const app = (version: string, range: string, extra: Record<string, string> = {}) =>
  packageDef('app', version, { dependencies: { core: range, ...extra }, dashboards: [dashboardDef('Sales', 'Orders')] });

async function installed(org: TestOrg, body: unknown): Promise<Json> {
  const res = await install(h.app, org, body);
  expectStatus(res, 201);
  return res.body;
}

async function listedNames(org: TestOrg): Promise<{ names: string[]; total: string }> {
  const res = await owner(org).get('/dashboards');
  expectStatus(res, 200);
  return { names: res.body.map((d: Json) => d.name).sort(), total: res.headers['x-total-count'] };
}

describe('resolution', () => {
  test('dependencies in the upload install first; their dashboards are hidden from the list, read by id, and the dependent uses their sources by name', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('orders');
    const body = await installed(org, { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.2.0', table)] });
    expect(body.package).toEqual(expect.objectContaining({ name: 'app', installedAs: 'direct', dependencies: { core: '^1.0.0' } }));
    expect(body.dependencies).toEqual([expect.objectContaining({ name: 'core', version: '1.2.0', installedAs: 'dependency', previousVersion: null })]);
    const [dep] = body.dependencies;

    expect(await listedNames(org)).toEqual({ names: ['Sales'], total: '1' });
    const hidden = await owner(org).get(`/dashboards/${dep.dashboards[0].id}`);
    expectStatus(hidden, 200);
    expect(hidden.body.name).toBe('Core overview');
    const sales = (await owner(org).get(`/dashboards/${body.package.dashboards[0].id}`)).body;
    expect(sales.widgets[0].dataSourceId).toBe(dep.dataSources[0].id);
    expect(sales.filterConfig[0].dataSourceId).toBe(dep.dataSources[0].id);

    // Asked for by name later, core becomes a direct install, for good: its dashboards are listed.
    const direct = await installed(org, core('1.2.0', table));
    expect(direct.package).toEqual(expect.objectContaining({ id: dep.id, installedAs: 'direct', previousVersion: '1.2.0' }));
    expect(await listedNames(org)).toEqual({ names: ['Core overview', 'Sales'], total: '2' });
    const packages = (await owner(org).get('/packages')).body;
    expect(packages.data.map((p: Json) => [p.name, p.installedAs])).toEqual([
      ['app', 'direct'],
      ['core', 'direct'],
    ]);
  });

  test('a dependency installed at a satisfying version is used as it is, and stays listed', async () => {
    const org = await createTestOrg(h.services);
    const first = (await installed(org, core('1.4.0', uniqueName('orders')))).package;
    const body = await installed(org, app('1.0.0', '~1.4.0'));
    expect(body.dependencies).toEqual([]);
    expect((await owner(org).get(`/dashboards/${body.package.dashboards[0].id}`)).body.widgets[0].dataSourceId).toBe(first.dataSources[0].id);
    expect(await listedNames(org)).toEqual({ names: ['Core overview', 'Sales'], total: '2' });
    expect((await owner(org).get(`/packages/${first.id}`)).body).toEqual(expect.objectContaining({ version: '1.4.0', installedAs: 'direct' }));
  });

  test('missing, cyclic and unsatisfied dependencies are 400 naming them, and nothing is installed', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('orders');
    const before = await footprint(h.services.db, org);
    const refused = async (body: unknown, code: string, path: string, message: string) => {
      const res = await install(h.app, org, body);
      expectError(res, 400, code);
      expect(res.body.error.details).toEqual(expect.arrayContaining([{ path, message: expect.stringContaining(message) }]));
      if (code.startsWith('dependency_')) expect(res.body.error.message).toContain(message);
    };
    await refused(app('1.0.0', '^1.0.0'), 'dependency_missing', 'package.manifest.dependencies.core', 'app needs core ^1.0.0');
    await refused(
      { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.0.0', table, { app: '*' })] },
      'dependency_cycle',
      'dependencies.0.manifest.dependencies.app',
      'app → core → app',
    );
    await refused(
      packageDef('selfish', '1.0.0', { dependencies: { selfish: '^1.0.0' } }),
      'dependency_cycle',
      'package.manifest.dependencies.selfish',
      'selfish → selfish',
    );
    await refused(
      { package: app('1.0.0', '^2.0.0'), dependencies: [core('1.9.0', table)] },
      'dependency_unsatisfied',
      'package.manifest.dependencies.core',
      'the upload has core 1.9.0',
    );
    await refused(
      { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.0.0', table), packageDef('extra', '1.0.0')] },
      'validation_failed',
      'dependencies.1',
      'not a dependency',
    );
    await refused(
      { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.0.0', table), core('1.0.1', table)] },
      'validation_failed',
      'dependencies.1.manifest.name',
      'twice',
    );
    // A valid dependency with a refused dependent: the dependency is not installed either.
    const broken = app('1.0.0', '^1.0.0');
    broken.dashboards[0].dataSources[0].name = 'Nowhere';
    await refused({ package: broken, dependencies: [core('1.0.0', table)] }, 'unknown_data_source', 'package.dashboards.0.dataSources.0.name', 'Nowhere');
    expect(await footprint(h.services.db, org)).toEqual(before);
  });

  test('an installed version outside the range is refused until a satisfying one is supplied; an upgrade an installed package does not accept is refused', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('orders');
    const old = (await installed(org, core('1.0.0', table))).package;
    const before = await footprint(h.services.db, org);
    const res = await install(h.app, org, app('1.0.0', '^2.0.0'));
    expectError(res, 400, 'dependency_unsatisfied');
    expect(res.body.error.details).toEqual([{ path: 'package.manifest.dependencies.core', message: expect.stringContaining('core 1.0.0 is installed') }]);
    expect(await footprint(h.services.db, org)).toEqual(before);

    const upgraded = await installed(org, { package: app('1.0.0', '^2.0.0'), dependencies: [core('2.0.0', table)] });
    // core was installed directly: it stays direct; it is the same package, updated in place.
    expect(upgraded.dependencies).toEqual([expect.objectContaining({ id: old.id, version: '2.0.0', previousVersion: '1.0.0', installedAs: 'direct' })]);

    const rollback = await install(h.app, org, {
      package: packageDef('reports', '1.0.0', { dependencies: { core: '^1.0.0' } }),
      dependencies: [core('1.5.0', table)],
    });
    expectError(rollback, 400, 'dependency_unsatisfied');
    expect(rollback.body.error.details).toEqual([
      { path: 'dependencies.0.manifest.version', message: expect.stringContaining('installed package app needs core ^2.0.0') },
    ]);
    expect((await owner(org).get(`/packages/${old.id}`)).body.version).toBe('2.0.0');
  });

  test("another organization's packages are not dependencies here", async () => {
    const org = await createTestOrg(h.services);
    const other = await createTestOrg(h.services);
    await installed(other, core('1.0.0', uniqueName('orders')));
    expectError(await install(h.app, org, app('1.0.0', '^1.0.0')), 400, 'dependency_missing');
  });
});

describe('uninstall with dependencies', () => {
  test('refused while another package depends on it (naming it); uninstalling the dependent takes the dependency installed only for it along', async () => {
    const org = await createTestOrg(h.services);
    const body = await installed(org, { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.0.0', uniqueName('orders'))] });
    const [dep] = body.dependencies;
    const before = await footprint(h.services.db, org);
    const refused = await owner(org).delete(`/packages/${dep.id}`);
    expectError(refused, 400, 'package_in_use');
    expect(refused.body.error.message).toContain('core is needed by app 1.0.0');
    expect(refused.body.error.details).toEqual([{ path: 'id', message: 'app 1.0.0 depends on core ^1.0.0' }]);
    expect(await footprint(h.services.db, org)).toEqual(before);

    const res = await owner(org).delete(`/packages/${body.package.id}`);
    expectStatus(res, 200);
    expect(res.body.uninstalled.map((p: Json) => p.name)).toEqual(['app', 'core']);
    expect(res.body.removed.dashboards.map((d: Json) => d.name).sort()).toEqual(['Core overview', 'Sales']);
    expect(res.body.removed.dataSources).toEqual(dep.dataSources);
    expect(res.body.removed.workflows).toEqual(dep.workflows);
    expect(res.body.kept).toEqual({ workflows: [], dataSources: [] });
    expect(await footprint(h.services.db, org)).toEqual(
      expect.objectContaining({ packages: 0, items: 0, workflows: 0, sources: 0, dashboards: 0, widgets: 0 }),
    );
  });

  test('a dependency installed directly stays when its dependent goes; one still needed by another package stays too', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('orders');
    await installed(org, core('1.0.0', table));
    const first = (await installed(org, app('1.0.0', '^1.0.0'))).package;
    expect((await owner(org).delete(`/packages/${first.id}`)).body.uninstalled.map((p: Json) => p.name)).toEqual(['app']);
    expect((await owner(org).get('/packages')).body.data.map((p: Json) => p.name)).toEqual(['core']);

    const other = await createTestOrg(h.services);
    const both = await installed(other, { package: app('1.0.0', '^1.0.0'), dependencies: [core('1.0.0', table)] });
    const second = (await installed(other, packageDef('reports', '1.0.0', { dependencies: { core: '^1.0.0' }, workflows: [workflowDef('report')] }))).package;
    expect((await owner(other).delete(`/packages/${both.package.id}`)).body.uninstalled.map((p: Json) => p.name)).toEqual(['app']);
    expect(await listedNames(other)).toEqual({ names: [], total: '0' });
    expect((await owner(other).delete(`/packages/${second.id}`)).body.uninstalled.map((p: Json) => p.name)).toEqual(['reports', 'core']);
  });
});
