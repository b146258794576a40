import { AnalyticsQuery } from '../analytics/analytics.schemas';
import { queryMembers } from '../analytics/query-members';
import { RecordSchemaInput, WindowDimensionBody } from '../data-sources/data-sources.schemas';
import { TableName } from '../data-stores/data-stores.schemas';
import { ValidationError } from '../errors/errors';
import { parseOrThrow } from '../http/validation';
import { RUN_STEPS_TYPE, RUNS_TYPE } from '../data-sources/runs-source';
import { z } from '../openapi/zod';
import { aliasOf } from './dashboard-export-members';
import { CreateDashboardBody, CreateWidgetBody, FilterId, FilterValuesById, LayoutItem, MAX_FILTERS, widgetKindIssues } from './dashboards.schemas';
import { MAX_WIDGETS_PER_DASHBOARD } from './layout-rules';

/**
 * The portable dashboard format (GET /dashboards/{id}/export, POST
 * /dashboards/import, and the dashboards of a package): a versioned JSON
 * document with no organization, user, dashboard, widget or data source ids.
 * Widgets and filters name their source by `exportId`, field references use
 * the alias `$<exportId>` (`$orders.amount`), and the layout names widgets by
 * their `key`.
 */
export const EXPORT_FORMAT = 'flowbase.dashboard';
export const EXPORT_VERSION = 1;
/** A widget and a filter per source at most, so no payload names more sources than this. */
export const MAX_EXPORT_SOURCES = MAX_WIDGETS_PER_DASHBOARD + MAX_FILTERS;
/** The largest import body (after gzip): 200 widgets with 16 KB display configs fit with room to spare. */
export const DASHBOARD_IMPORT_MAX_BYTES = 8 * 1024 * 1024;

const PORTABLE_ID = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const portableId = (what: string) =>
  z.string().regex(PORTABLE_ID, `${what} must be 1 to 64 characters: a letter, then letters, digits or _`).openapi({ example: 'orders' });
export const ExportId = portableId('an exportId');
const WidgetKey = portableId('a widget key').openapi({ example: 'w1' });

const { name: DashboardName, description: Description, timezone: TimeZoneOrNull, isDefault: IsDefault } = CreateDashboardBody.shape;
const { title: WidgetTitle, chartType: ChartType, displayConfig: DisplayConfig } = CreateWidgetBody.shape;

const PortableLayoutItem = LayoutItem.omit({ widgetId: true })
  .extend({ widget: WidgetKey.openapi({ description: 'The `key` of a widget of this payload' }) })
  .openapi('PortableLayoutItem');

const PortableFilter = z
  .strictObject({
    id: FilterId,
    dataSource: ExportId.openapi({ description: 'The exportId of the filtered source' }),
    dimension: z
      .string()
      .regex(/^(\$[A-Za-z][A-Za-z0-9_]{0,63}\.)?[A-Za-z][A-Za-z0-9_]{0,62}$/, 'must be a field name such as region, or $<exportId>.region')
      .openapi({ example: '$orders.region' }),
    label: z.string().max(200),
  })
  .openapi('PortableFilter');

const PortableDashboard = z
  .strictObject({
    name: DashboardName,
    description: Description,
    timezone: TimeZoneOrNull,
    isDefault: IsDefault,
    layout: z.array(PortableLayoutItem).max(MAX_WIDGETS_PER_DASHBOARD).default([]),
    filterConfig: z.array(PortableFilter).max(MAX_FILTERS).default([]),
    filterDefaults: FilterValuesById.default({}),
  })
  .openapi('PortableDashboard');

const PortableWidget = z
  .strictObject({
    key: WidgetKey,
    title: WidgetTitle,
    chartType: ChartType,
    dataSource: ExportId.optional().openapi({ description: 'The exportId of its source; none for a text widget' }),
    queryConfig: AnalyticsQuery.optional().openapi({ description: 'Members name their source as $<exportId>: $orders.amount' }),
    displayConfig: DisplayConfig,
  })
  .openapi('PortableWidget');

/** What the importer needs to pick the matching source of its own organization: the source's model, without ids. */
export const PortableDataSource = z
  .strictObject({
    exportId: ExportId,
    alias: z.string().max(70).optional().openapi({ description: 'How members name this source in the payload: $<exportId>', example: '$orders' }),
    name: z.string().min(1).max(200),
    type: z.string().min(1).max(100),
    // A built-in source over the runs holds its type here (built-in-sources.ts): no table, nothing to match but by mapping.
    dataStoreTableName: z.union([TableName, z.enum([RUNS_TYPE, RUN_STEPS_TYPE])]),
    recordSchema: RecordSchemaInput,
    windowDimensions: z.array(WindowDimensionBody).max(50).default([]),
  })
  .openapi('PortableDataSource');

const exportShape = {
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  dashboard: PortableDashboard,
  widgets: z.array(PortableWidget).max(MAX_WIDGETS_PER_DASHBOARD).default([]),
  dataSources: z.array(PortableDataSource).max(MAX_EXPORT_SOURCES).default([]),
};

type ExportShape = z.output<z.ZodObject<typeof exportShape>>;

/**
 * The cross-references a schema of one field cannot see, each issue naming
 * its field: exportIds and widget keys are unique, every widget, filter and
 * member names a source of `dataSources`, the layout names widgets of the
 * payload, a filter's qualified dimension is of its own source, and default
 * values are for filters of the dashboard.
 */
function checkReferences(p: ExportShape, ctx: z.RefinementCtx): void {
  const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
  const exportIds = new Set<string>();
  p.dataSources.forEach((s, i) => {
    if (exportIds.has(s.exportId)) issue(['dataSources', i, 'exportId'], `"${s.exportId}" is the exportId of an earlier source: they are unique`);
    exportIds.add(s.exportId);
    if (s.alias !== undefined && s.alias !== `$${s.exportId}`) issue(['dataSources', i, 'alias'], `must be $${s.exportId} (or left out)`);
  });
  const known = (exportId: string) => exportIds.has(exportId);
  const unknownSource = (exportId: string) => `"${exportId}" is not the exportId of a source in dataSources`;
  const keys = new Set<string>();
  p.widgets.forEach((w, i) => {
    if (keys.has(w.key)) issue(['widgets', i, 'key'], `"${w.key}" is the key of an earlier widget: keys are unique`);
    keys.add(w.key);
    const kind = widgetKindIssues({ chartType: w.chartType, dataSourceId: w.dataSource, queryConfig: w.queryConfig, displayConfig: w.displayConfig }, true);
    for (const k of kind) issue(['widgets', i, ...(k.path === 'dataSourceId' ? ['dataSource'] : k.path.split('.'))], k.message);
    if (w.dataSource !== undefined && !known(w.dataSource)) issue(['widgets', i, 'dataSource'], unknownSource(w.dataSource));
    for (const member of new Set(w.queryConfig ? queryMembers(w.queryConfig) : [])) {
      const alias = aliasOf(member);
      if (alias?.startsWith('$') && !known(alias.slice(1))) {
        issue(['widgets', i, 'queryConfig'], `"${member}" names ${alias}: ${unknownSource(alias.slice(1))}`);
      }
    }
  });
  p.dashboard.layout.forEach((item, i) => {
    if (!keys.has(item.widget)) issue(['dashboard', 'layout', i, 'widget'], `"${item.widget}" is not the key of a widget in widgets`);
  });
  const filterIds = new Set<string>();
  p.dashboard.filterConfig.forEach((f, i) => {
    if (filterIds.has(f.id)) issue(['dashboard', 'filterConfig', i, 'id'], `"${f.id}" is the id of an earlier filter: ids are unique`);
    filterIds.add(f.id);
    if (!known(f.dataSource)) issue(['dashboard', 'filterConfig', i, 'dataSource'], unknownSource(f.dataSource));
    const alias = aliasOf(f.dimension);
    if (alias !== undefined && alias !== `$${f.dataSource}`) {
      issue(['dashboard', 'filterConfig', i, 'dimension'], `names another source's field: qualify it with $${f.dataSource}, or not at all`);
    }
  });
  for (const key of Object.keys(p.dashboard.filterDefaults)) {
    if (!filterIds.has(key)) issue(['dashboard', 'filterDefaults', key], `"${key}" is not the id of a filter in dashboard.filterConfig`);
  }
}

export const DashboardExport = z
  .strictObject(exportShape)
  .superRefine(checkReferences)
  .openapi('DashboardExport', { description: `A portable dashboard: format ${EXPORT_FORMAT}, version ${EXPORT_VERSION}` });
export type DashboardExport = z.output<typeof DashboardExport>;

export const DashboardImportBody = z
  .strictObject({
    ...exportShape,
    dataSourceMappings: z
      .record(z.string().max(64), z.uuid({ error: 'must be the id (a UUID) of a data source of this organization' }))
      .default({})
      .openapi({ description: 'exportId → the id of a data source of this organization; every exportId of dataSources needs one' }),
    name: DashboardName.optional().openapi({ description: "The new dashboard's name, in place of dashboard.name" }),
  })
  .superRefine(checkReferences)
  .openapi('DashboardImport', { description: 'An export payload, with the source of this organization each exportId stands for' });
export type DashboardImportInput = z.output<typeof DashboardImportBody>;

/**
 * 400 `unsupported_format` unless `value` says it is this format and version
 * (checked before its shape: another version may be shaped differently).
 * `at` prefixes the paths (a dashboard inside a package).
 */
export function assertPortableFormat(value: unknown, at = ''): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('The payload must be a JSON object', [{ path: at || '(root)', message: 'must be an object' }]);
  }
  const { format, version } = value as Record<string, unknown>;
  const prefix = at ? `${at}.` : '';
  const issues = [
    ...(format === EXPORT_FORMAT ? [] : [{ path: `${prefix}format`, message: `must be "${EXPORT_FORMAT}", got ${JSON.stringify(format) ?? 'nothing'}` }]),
    ...(version === EXPORT_VERSION ? [] : [{ path: `${prefix}version`, message: `must be ${EXPORT_VERSION}, got ${JSON.stringify(version) ?? 'nothing'}` }]),
  ];
  if (issues.length > 0) {
    throw new ValidationError(
      `${at ? `${at}: ` : ''}this service reads ${EXPORT_FORMAT} version ${EXPORT_VERSION} only: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      issues,
      'unsupported_format',
    );
  }
}

/** An import body read from JSON: its format and version first (unsupported_format), then its whole shape (validation_failed naming each field). */
export function parseDashboardImport(json: unknown): DashboardImportInput {
  assertPortableFormat(json);
  return parseOrThrow(DashboardImportBody, json, 'body');
}
