import { fromPortable } from '../dashboards/dashboard-import';
import type { DashboardExport } from '../dashboards/dashboard-export.schemas';
import type { WindowDimension } from '../data-sources/data-sources.schemas';
import { AppError, type FieldIssue, ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import type { InstallScope } from './install-scope';
import { PackageItem, type PackageItemKind } from './package-item.entity';
import type { PlannedInstall } from './package-resolution';
import { InstalledPackage } from './package.entity';
import type { Package, PackageDataSource } from './packages.schemas';

/**
 * Writing one package's content through an InstallScope: its data sources,
 * then its workflows, then its dashboards, each found again by its name in
 * the package (a reinstall updates in place, keeping ids), and the removal
 * of what a package no longer holds. Every 400 names its field in the upload.
 */

export interface Actor {
  organizationId: string;
  userId: string;
}

interface Named {
  id: string;
  name: string;
}
export interface RemovalReport {
  removed: { workflows: Named[]; dataSources: Named[]; dashboards: Named[] };
  kept: { workflows: Array<Named & { reason: string }>; dataSources: Array<Named & { reason: string }> };
}
export const emptyReport = (): RemovalReport => ({ removed: { workflows: [], dataSources: [], dashboards: [] }, kept: { workflows: [], dataSources: [] } });

/** Runs `work`, its 400s renamed to fields under `at` (`package.workflows.2` + `.steps.0.input.url`), with their code. */
export async function under<T>(at: string, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    const details = err.details?.length
      ? err.details.map((d) => ({ path: d.path === '(root)' ? at : `${at}.${d.path}`, message: d.message }))
      : [{ path: at, message: err.message }];
    throw new ValidationError(`${at}: ${err.message}`, details, err.code);
  }
}

/** JSON with object keys sorted: two definitions are the same when their canonical texts are. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

function item(pkg: InstalledPackage, kind: PackageItemKind, name: string, target: string, widgetIds: Record<string, string> = {}): PackageItem {
  return Object.assign(new PackageItem(), {
    packageId: pkg.id,
    organizationId: pkg.organizationId,
    kind,
    name,
    workflowId: kind === 'workflow' ? target : null,
    dataSourceId: kind === 'data_source' ? target : null,
    dashboardId: kind === 'dashboard' ? target : null,
    widgetIds,
  });
}

/**
 * Installs (or reinstalls) one planned package. Its dependencies are already
 * installed, in the same transaction, when this runs. Returns the package
 * row; `createdTables` collects the data store tables made for its sources.
 */
export async function installPackage(s: InstallScope, actor: Actor, plan: PlannedInstall<Package>, createdTables: string[]): Promise<InstalledPackage> {
  const { organizationId, userId } = actor;
  const { content: pkg, at } = plan.uploaded;
  const existing = await s.packages.findByName(organizationId, pkg.manifest.name);
  const row = await s.packages.save(
    Object.assign(existing ?? Object.assign(new InstalledPackage(), { id: newId(), suid: newSuid(), organizationId }), {
      name: pkg.manifest.name,
      version: pkg.manifest.version,
      description: pkg.manifest.description,
      dependencies: pkg.manifest.dependencies,
      installedAs: plan.installAs,
      installedBy: userId,
    }),
  );
  const items = existing ? await s.packages.itemsOf(organizationId, [row.id]) : [];
  const previous = (kind: PackageItemKind, name: string) => items.find((i) => i.kind === kind && i.name === name);

  const sourceIds = new Map<string, string>();
  for (const [i, def] of pkg.dataSources.entries()) {
    const id = await putDataSource(s, actor, def, previous('data_source', def.name), `${at}.dataSources.${i}`, createdTables);
    sourceIds.set(def.name, id);
    await s.packages.putItem(item(row, 'data_source', def.name, id));
  }

  for (const [i, { settings, ...definition }] of pkg.workflows.entries()) {
    const where = `${at}.workflows.${i}`;
    const before = previous('workflow', definition.name);
    let id = before?.workflowId;
    if (id) {
      const current = await s.workflows.get(organizationId, id);
      // A new version only when the definition changed: reinstalling the same package adds nothing to the history.
      if (canonical(current.version.definition) !== canonical(definition))
        await under(where, () => s.workflows.update(organizationId, userId, id!, definition, settings));
      else if (settings) await under(where, () => s.workflows.updateSettings(organizationId, id!, settings));
    } else {
      id = (await under(where, () => s.workflows.create(organizationId, userId, definition, settings))).workflow.id;
    }
    await s.packages.putItem(item(row, 'workflow', definition.name, id));
  }

  const fromDependencies = await dependencySources(s, organizationId, Object.keys(pkg.manifest.dependencies));
  for (const [i, payload] of pkg.dashboards.entries()) {
    const where = `${at}.dashboards.${i}`;
    const mapped = sourcesOfDashboard(payload, where, pkg.manifest.name, sourceIds, fromDependencies);
    const before = previous('dashboard', payload.dashboard.name);
    const built = await under(where, () =>
      fromPortable(payload, {
        organizationId,
        userId,
        sourceIds: mapped,
        // A package never takes over the organization's default dashboard; a reinstall keeps the flag as it is.
        isDefault: false,
        dashboardId: before?.dashboardId ?? undefined,
        widgetIds: before ? new Map(Object.entries(before.widgetIds)) : undefined,
      }),
    );
    const replaced = before ? await under(where, () => s.dashboards.replaceContent(built.dashboard, built.widgets)) : false;
    if (!replaced) await under(where, () => s.dashboards.create(built.dashboard, built.widgets));
    await s.packages.putItem(item(row, 'dashboard', payload.dashboard.name, built.dashboard.id, built.widgetIds));
  }

  // What the previous version installed and this one no longer holds goes as on uninstall.
  const holds = {
    data_source: new Set(pkg.dataSources.map((d) => d.name)),
    workflow: new Set(pkg.workflows.map((w) => w.name)),
    dashboard: new Set(pkg.dashboards.map((d) => d.dashboard.name)),
  };
  await removeItems(
    s,
    organizationId,
    items.filter((i) => !holds[i.kind].has(i.name)),
    emptyReport(),
  );
  return row;
}

/**
 * Creates the source (and its table, empty, when the organization has none
 * by that name), or updates the one the package installed before: its name,
 * record schema (calculated fields keep their ids by name; the time
 * dimension may change, re-keying the serving relation) and window
 * dimensions. A source cannot move to another table: 400 package_conflict.
 */
async function putDataSource(
  s: InstallScope,
  { organizationId, userId }: Actor,
  def: PackageDataSource,
  before: PackageItem | undefined,
  at: string,
  createdTables: string[],
): Promise<string> {
  const calculated = (ids: Map<string, string>) => (def.recordSchema.calculatedFields ?? []).map(({ id: _id, ...c }) => ({ ...c, id: ids.get(c.name) }));
  if (!before) {
    if (!(await s.dataStores.tableExists(organizationId, def.dataStoreTableName))) {
      await s.dataStores.createTable(organizationId, def.dataStoreTableName);
      createdTables.push(def.dataStoreTableName);
    }
    const created = await under(at, () =>
      s.dataSources.create(organizationId, userId, {
        name: def.name,
        type: 'custom',
        dataStoreTableName: def.dataStoreTableName,
        recordSchema: { ...def.recordSchema, calculatedFields: calculated(new Map()) },
        hotPathMode: 'retain',
        enabled: true,
      }),
    );
    for (const [j, w] of def.windowDimensions.entries())
      await under(`${at}.windowDimensions.${j}`, () => s.sourceMembers.addWindowDimension(organizationId, created.id, w));
    return created.id;
  }

  const current = await s.dataSources.get(organizationId, before.dataSourceId!);
  if (current.dataStoreTableName !== def.dataStoreTableName) {
    const message = `the installed source "${current.name}" reads table ${current.dataStoreTableName}; a source cannot move to another table (uninstall the package first, or give the source another name)`;
    throw new ValidationError(`${at}.dataStoreTableName: ${message}`, [{ path: `${at}.dataStoreTableName`, message }], 'package_conflict');
  }
  const wanted = new Map(def.windowDimensions.map((w) => [w.name, w]));
  const unchanged = (w: WindowDimension) => wanted.has(w.name) && canonical({ ...w, id: undefined }) === canonical(wanted.get(w.name));
  // Windows that go or change are dropped before the schema changes (they may name fields it removes) and added back after it.
  for (const w of current.windowDimensions.filter((w) => !unchanged(w)))
    await under(at, () => s.sourceMembers.deleteWindowDimension(organizationId, current.id, w.id));
  await under(at, () =>
    s.dataSources.update(organizationId, current.id, {
      name: def.name,
      recordSchema: { ...def.recordSchema, calculatedFields: calculated(new Map(current.recordSchema.calculatedFields.map((c) => [c.name, c.id]))) },
      confirmTimeFieldRekey: true,
    }),
  );
  const kept = new Set(current.windowDimensions.filter(unchanged).map((w) => w.name));
  for (const [j, w] of def.windowDimensions.entries()) {
    if (!kept.has(w.name)) await under(`${at}.windowDimensions.${j}`, () => s.sourceMembers.addWindowDimension(organizationId, current.id, w));
  }
  return current.id;
}

/** Data source name → the sources of that name among the packages `names` (installed by now), with their package. */
async function dependencySources(s: InstallScope, organizationId: string, names: string[]): Promise<Map<string, Array<{ id: string; pkg: string }>>> {
  // One after another: these run on the install transaction's single connection.
  const packages: InstalledPackage[] = [];
  for (const name of names) {
    const found = await s.packages.findByName(organizationId, name);
    if (found) packages.push(found);
  }
  const byId = new Map(packages.map((p) => [p.id, p.name]));
  const found = new Map<string, Array<{ id: string; pkg: string }>>();
  for (const i of await s.packages.itemsOf(organizationId, [...byId.keys()])) {
    if (i.kind !== 'data_source') continue;
    found.set(i.name, [...(found.get(i.name) ?? []), { id: i.dataSourceId!, pkg: byId.get(i.packageId)! }]);
  }
  return found;
}

/**
 * exportId → source id for a dashboard of the package: each entry of its
 * dataSources is matched by name to a source of the package, else of a
 * package it depends on. 400 unknown_data_source naming the entry otherwise.
 */
function sourcesOfDashboard(
  payload: DashboardExport,
  at: string,
  pkg: string,
  own: ReadonlyMap<string, string>,
  fromDependencies: ReadonlyMap<string, Array<{ id: string; pkg: string }>>,
): Map<string, string> {
  const mapped = new Map<string, string>();
  const issues: FieldIssue[] = [];
  payload.dataSources.forEach((ds, j) => {
    const candidates = own.has(ds.name) ? [{ id: own.get(ds.name)!, pkg }] : (fromDependencies.get(ds.name) ?? []);
    if (candidates.length === 1) mapped.set(ds.exportId, candidates[0].id);
    else {
      issues.push({
        path: `${at}.dataSources.${j}.name`,
        message:
          candidates.length === 0
            ? `"${ds.name}" is not the name of a data source of ${pkg} or of a package it depends on`
            : `"${ds.name}" names a data source in several packages ${pkg} depends on (${candidates.map((c) => c.pkg).join(', ')})`,
      });
    }
  });
  if (issues.length > 0) throw new ValidationError(`${issues[0].path}: ${issues[0].message}`, issues, 'unknown_data_source');
  return mapped;
}

/**
 * Removes what items stand for, as uninstalling does: dashboards always;
 * workflows unless they have webhook triggers (callers outside may depend
 * on them); data sources unless a dashboard that stays uses them (a widget
 * or a filter). What is kept is left in place, no longer part of a package.
 * Dashboards go first: their widgets must not keep the package's own
 * sources in use. Adds to `report` and returns it.
 */
export async function removeItems(s: InstallScope, organizationId: string, items: PackageItem[], report: RemovalReport): Promise<RemovalReport> {
  const of = (kind: PackageItemKind) => items.filter((i) => i.kind === kind);
  const forget = async (kept: PackageItem[]) => {
    for (const i of kept) await s.packages.dropItems(organizationId, i.packageId, i.kind, [i.name]);
  };

  for (const i of of('dashboard')) {
    await s.dashboards.delete(organizationId, i.dashboardId!);
    report.removed.dashboards.push({ id: i.dashboardId!, name: i.name });
  }

  const workflows = of('workflow');
  const triggered = await s.packages.workflowsWithTriggers(
    organizationId,
    workflows.map((i) => i.workflowId!),
  );
  for (const i of workflows) {
    if (triggered.has(i.workflowId!)) {
      report.kept.workflows.push({ id: i.workflowId!, name: i.name, reason: 'it has webhook triggers, which callers outside may be using' });
    } else {
      await s.workflows.delete(organizationId, i.workflowId!);
      report.removed.workflows.push({ id: i.workflowId!, name: i.name });
    }
  }
  await forget(workflows.filter((i) => triggered.has(i.workflowId!)));

  const sources = of('data_source');
  const used = await s.packages.sourcesInUse(
    organizationId,
    sources.map((i) => i.dataSourceId!),
  );
  for (const i of sources) {
    if (used.has(i.dataSourceId!)) {
      report.kept.dataSources.push({ id: i.dataSourceId!, name: i.name, reason: 'widgets or filters of dashboards that stay use it' });
    } else {
      await s.dataSources.delete(organizationId, i.dataSourceId!);
      report.removed.dataSources.push({ id: i.dataSourceId!, name: i.name });
    }
  }
  await forget(sources.filter((i) => used.has(i.dataSourceId!)));
  return report;
}
