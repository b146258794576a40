import { valid, validRange } from 'semver';
import { assertPortableFormat, DashboardExport } from '../dashboards/dashboard-export.schemas';
import { RecordSchemaInput, WindowDimensionBody } from '../data-sources/data-sources.schemas';
import { TableName } from '../data-stores/data-stores.schemas';
import { parseOrThrow } from '../http/validation';
import { z } from '../openapi/zod';
import { SaveWorkflowBody } from '../workflows/workflows.schemas';
import { inWrittenOrder } from '../workflows/written-order';

/**
 * A package (src/packages): a versioned bundle of workflow definitions, data
 * source definitions and dashboards, with a manifest naming the packages it
 * depends on by semver range. Uploaded as one JSON document, alone or with
 * the dependencies it needs: `{package, dependencies: [package, …]}`.
 */

/** The largest upload (after gzip). */
export const PACKAGE_MAX_BYTES = 16 * 1024 * 1024;
/** Packages in one upload: the package and its dependencies. */
export const MAX_PACKAGES_PER_UPLOAD = 20;
/** Packages one organization may have installed (installs read them all to resolve dependencies). */
export const MAX_INSTALLED_PACKAGES = 200;
const MAX_DEPENDENCIES = 50;
const MAX_WORKFLOWS = 100;
const MAX_DATA_SOURCES = 50;
const MAX_DASHBOARDS = 50;

export const PackageName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'must be 1 to 100 characters: lower-case letters, digits, ., _ or -, starting with a letter or digit')
  .openapi({ example: 'sales-kit' });

const Version = z
  .string()
  .max(64)
  .refine((v) => valid(v) === v, 'must be a semantic version such as 1.4.0 (no leading v)')
  .openapi({ example: '1.4.0' });

const Range = z
  .string()
  .max(200)
  .refine((r) => validRange(r) !== null, 'must be a semver range such as ^1.2.0, ~2.0.1, >=1.0.0 <3 or 1.x')
  .openapi({ example: '^1.2.0' });

export const Manifest = z
  .strictObject({
    name: PackageName,
    version: Version,
    description: z.string().max(2000).default(''),
    dependencies: z
      .record(PackageName, Range)
      .default({})
      .refine((d) => Object.keys(d).length <= MAX_DEPENDENCIES, `at most ${MAX_DEPENDENCIES} dependencies`)
      .openapi({ description: 'Package name → semver range of the versions that will do', example: { 'core-kit': '^1.0.0' } }),
  })
  .openapi('PackageManifest');
export type Manifest = z.output<typeof Manifest>;

/** A data source the package creates: POST /dashboards/data-sources's body (custom sources only), with its window dimensions. */
export const PackageDataSource = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ description: "The source's name; the package's dashboards name their sources by it" }),
    type: z.literal('custom', { error: 'a package creates custom sources only' }).default('custom'),
    dataStoreTableName: TableName.openapi({ description: 'Created, empty, when the organization has no such table yet' }),
    recordSchema: RecordSchemaInput,
    windowDimensions: z.array(WindowDimensionBody).max(20).default([]),
  })
  .openapi('PackageDataSource');
export type PackageDataSource = z.output<typeof PackageDataSource>;

/** Names must be unique within a package: a reinstall finds each item again by its name. */
function uniqueNames(items: Array<{ name: string }>, path: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.name))
      ctx.addIssue({ code: 'custom', path: [path, i, 'name'], message: `"${item.name}" is the name of an earlier one: names are unique in a package` });
    seen.add(item.name);
  });
}

export const Package = z
  .strictObject({
    manifest: Manifest,
    workflows: z.array(SaveWorkflowBody).max(MAX_WORKFLOWS).default([]).openapi({ description: 'Workflow definitions as POST /workflows takes them' }),
    dataSources: z.array(PackageDataSource).max(MAX_DATA_SOURCES).default([]),
    dashboards: z.array(DashboardExport).max(MAX_DASHBOARDS).default([]).openapi({
      description:
        "Dashboard export payloads; each entry of a payload's dataSources is matched by name to a data source of this package, else of a package it depends on",
    }),
  })
  .superRefine((p, ctx) => {
    uniqueNames(p.workflows, 'workflows', ctx);
    uniqueNames(p.dataSources, 'dataSources', ctx);
    uniqueNames(
      p.dashboards.map((d) => d.dashboard),
      'dashboards',
      ctx,
    );
  })
  .openapi('Package');
export type Package = z.output<typeof Package>;

export const PackageUpload = z
  .strictObject({
    package: Package,
    dependencies: z
      .array(Package)
      .max(MAX_PACKAGES_PER_UPLOAD - 1)
      .default([])
      .openapi({ description: 'Packages it needs that are not installed yet, or newer versions of installed ones' }),
  })
  .openapi('PackageUpload', { description: 'A package, or {package, dependencies}' });
export type PackageUpload = z.output<typeof PackageUpload>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The uploaded JSON as `{package, dependencies}` (a bare package, one with a
 * `manifest`, is read as `{package: …}`, so paths start with `package.`):
 * each dashboard's format and version first (400 unsupported_format), then
 * the whole shape (400 validation_failed naming every bad field).
 */
export function parsePackageUpload(json: unknown): PackageUpload {
  const upload = isObject(json) && 'manifest' in json ? { package: json } : json;
  if (isObject(upload)) {
    const packages = [['package', upload.package], ...(Array.isArray(upload.dependencies) ? upload.dependencies.map((d, i) => [`dependencies.${i}`, d]) : [])];
    for (const [at, pkg] of packages as Array<[string, unknown]>) {
      if (!isObject(pkg) || !Array.isArray(pkg.dashboards)) continue;
      pkg.dashboards.forEach((d, j) => assertPortableFormat(d, `${at}.dashboards.${j}`));
    }
  }
  // Workflow definitions come back as written (src/workflows/written-order.ts): zod rebuilt them in schema order.
  return inWrittenOrder(parseOrThrow(PackageUpload, upload, 'body'), upload);
}

export const PackageParams = z.strictObject({ id: z.uuid({ error: 'must be a UUID' }) });

const Item = z.object({ id: z.uuid(), name: z.string() });
export const PackageSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    name: z.string(),
    version: z.string(),
    description: z.string(),
    dependencies: z.record(z.string(), z.string()),
    installedAs: z
      .enum(['direct', 'dependency'])
      .openapi({ description: 'dependency: installed only because another package needs it (its dashboards are not listed)' }),
    installedBy: z.uuid().nullable(),
    workflows: z.array(Item),
    dataSources: z.array(Item),
    dashboards: z.array(Item),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('InstalledPackage');

const Installed = PackageSchema.extend({ previousVersion: z.string().nullable().openapi({ description: 'The version it replaced; null on a first install' }) });
export const InstallResultSchema = z
  .object({
    package: Installed,
    dependencies: z.array(Installed).openapi({ description: 'The dependencies this upload installed or reinstalled, in install order' }),
    createdTables: z.array(z.string()).openapi({ description: 'Data store tables created (empty) for the data sources' }),
  })
  .openapi('PackageInstallResult');

const Kept = z.object({ id: z.uuid(), name: z.string(), reason: z.string() });
export const UninstallResultSchema = z
  .object({
    uninstalled: z.array(z.object({ id: z.uuid(), name: z.string(), version: z.string() })).openapi({
      description: 'The package, then the dependencies no remaining package needs',
    }),
    removed: z.object({ workflows: z.array(Item), dataSources: z.array(Item), dashboards: z.array(Item) }),
    kept: z
      .object({ workflows: z.array(Kept), dataSources: z.array(Kept) })
      .openapi({ description: 'Left in place (no longer part of a package) because something else uses them' }),
  })
  .openapi('PackageUninstallResult');
