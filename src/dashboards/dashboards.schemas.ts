import { AnalyticsQuery } from '../analytics/analytics.schemas';
import { servingRelationName } from '../data-sources/serving-relation';
import { z } from '../openapi/zod';
import { CHART_TYPE_NAMES, CHART_TYPES, GRID_COLUMNS, isDataless } from './chart-types';
import { DASHBOARD_TEMPLATES } from './dashboard-templates';
import { MAX_GRID_ROWS, MAX_ITEM_HEIGHT, MAX_WIDGETS_PER_DASHBOARD } from './layout-rules';
import { isIanaTimeZone } from './time-zone';

/** Filter controls on one dashboard. */
export const MAX_FILTERS = 50;
/** Values one filter may hold (a default, or what a viewer picked). */
export const MAX_FILTER_VALUES = 100;
/** A widget's displayConfig, as JSON text. */
export const MAX_DISPLAY_CONFIG_BYTES = 16_384;
/** A widget's queryConfig, as JSON text: generous for any real chart, and it keeps a dashboard (200 widgets) small enough to read whole. */
export const MAX_QUERY_CONFIG_BYTES = 65_536;

/** The queryConfig size check, on the widget body (AnalyticsQuery itself stays the one shared, documented schema). */
const queryConfigFits = (body: { queryConfig?: unknown }) =>
  body.queryConfig === undefined || JSON.stringify(body.queryConfig).length <= MAX_QUERY_CONFIG_BYTES;
const queryConfigTooLarge = { message: `must be at most ${MAX_QUERY_CONFIG_BYTES} bytes as JSON`, path: ['queryConfig'] };

const Uuid = z.uuid({ error: 'must be a UUID' });

export const TimeZone = z
  .string()
  .refine(isIanaTimeZone, 'must be an IANA time zone such as Europe/Paris or America/New_York')
  .openapi({ example: 'Europe/Paris' });

const DashboardName = z.string().trim().min(1, 'must not be empty').max(200);
const Description = z.string().max(2000);

/** A filter control's id: what filterDefaults and the widget data calls key values by. */
export const FilterId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 characters: letters, digits, _ or -');

/** A field of the filter's source: `region`, or qualified with that source's name, `ds_<id>.region`. */
const FilterDimension = z.string().regex(/^(ds_[0-9a-f_]{36}\.)?[A-Za-z][A-Za-z0-9_]{0,62}$/, 'must be a field name such as region, or ds_<source id>.region');

export const FilterConfigItem = z
  .strictObject({ id: FilterId, dataSourceId: Uuid, dimension: FilterDimension, label: z.string().max(200) })
  .superRefine((f, ctx) => {
    const [alias] = f.dimension.split('.');
    if (f.dimension.includes('.') && alias !== servingRelationName(f.dataSourceId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['dimension'],
        message: `names another source's field: qualify it with ${servingRelationName(f.dataSourceId)}, or not at all`,
      });
    }
  })
  .openapi('DashboardFilter', { description: 'A filter control: `equals` on `dimension` for every widget over `dataSourceId`' });
export type FilterConfigItem = z.output<typeof FilterConfigItem>;

export const FilterConfig = z
  .array(FilterConfigItem)
  .max(MAX_FILTERS)
  .superRefine((filters, ctx) => {
    const seen = new Set<string>();
    filters.forEach((f, i) => {
      if (seen.has(f.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `"${f.id}" is the id of an earlier filter: ids are unique` });
      seen.add(f.id);
    });
  });

export const FilterValues = z.array(z.string().max(500)).max(MAX_FILTER_VALUES);

/** Filter id → values. Which keys are allowed depends on the dashboard's filters: the service checks them. */
export const FilterValuesById = z
  .record(z.string().max(64), FilterValues)
  .refine((values) => Object.keys(values).length <= MAX_FILTERS, `at most ${MAX_FILTERS} filters`);
export type FilterDefaults = z.output<typeof FilterValuesById>;

export const LayoutItem = z
  .strictObject({
    widgetId: Uuid,
    x: z
      .number()
      .int()
      .min(0)
      .max(GRID_COLUMNS - 1),
    y: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRID_ROWS - 1),
    w: z.number().int().min(1).max(GRID_COLUMNS),
    h: z.number().int().min(1).max(MAX_ITEM_HEIGHT),
  })
  .openapi('DashboardLayoutItem', { description: `Grid cells of a ${GRID_COLUMNS}-column grid: x + w at most ${GRID_COLUMNS}` });
export type LayoutItem = z.output<typeof LayoutItem>;

export const CreateDashboardBody = z
  .strictObject({
    name: DashboardName,
    description: Description.default(''),
    isDefault: z.boolean().default(false),
    timezone: TimeZone.nullable().default(null).openapi({ description: "null: each viewer's own zone" }),
  })
  .openapi('CreateDashboard');
export type CreateDashboardInput = z.output<typeof CreateDashboardBody>;

/** POST /dashboards/templates/{template}: the template's dashboard, with what a new dashboard may choose. */
export const CreateFromTemplateBody = z
  .strictObject({
    name: DashboardName.optional().openapi({ description: 'Default: the template\'s name ("Operations"), or "Operations 2", "Operations 3", … when taken' }),
    isDefault: z.boolean().default(false),
    timezone: TimeZone.nullable().default(null).openapi({ description: "null: each viewer's own zone" }),
  })
  .openapi('CreateDashboardFromTemplate');
export type CreateFromTemplateInput = z.output<typeof CreateFromTemplateBody>;
export const TemplateParams = z.strictObject({
  template: z.enum(DASHBOARD_TEMPLATES, { error: `must be one of ${DASHBOARD_TEMPLATES.join(', ')}` }),
});

export const PatchDashboardBody = z
  .strictObject({
    name: DashboardName.optional(),
    description: Description.optional(),
    isDefault: z.boolean().optional().openapi({ description: 'true: this becomes the default and the previous default stops being one' }),
    timezone: TimeZone.nullable().optional(),
    filterConfig: FilterConfig.optional().openapi({ description: 'Replaces the filters; defaults of filters left out are dropped' }),
    filterDefaults: FilterValuesById.optional().openapi({ description: 'Replaces the defaults; every key must be a filter id' }),
  })
  .openapi('PatchDashboard');
export type PatchDashboardInput = z.output<typeof PatchDashboardBody>;

export const LayoutBody = z.strictObject({ layout: z.array(LayoutItem).max(MAX_WIDGETS_PER_DASHBOARD) }).openapi('DashboardLayout');

const ChartType = z.enum(CHART_TYPE_NAMES, { error: `must be one of ${CHART_TYPE_NAMES.join(', ')}` }).openapi({
  description: CHART_TYPE_NAMES.map((n) => `\`${n}\`: ${CHART_TYPES[n].summary}`).join('; '),
});
const DisplayConfig = z
  .record(z.string(), z.unknown())
  .refine((c) => JSON.stringify(c).length <= MAX_DISPLAY_CONFIG_BYTES, `must be at most ${MAX_DISPLAY_CONFIG_BYTES} bytes as JSON`)
  .openapi({ example: { legend: { show: true } } });
const WidgetTitle = z.string().trim().min(1, 'must not be empty').max(200);

/**
 * A widget's chart type and what it carries must agree: a `text` tile has no
 * data source and no query (its Markdown is displayConfig.markdown), every
 * other chart type needs both. Checked on what the body sends; `requireData`
 * (creation) also asks for what a data widget leaves out.
 */
export function widgetKindIssues(
  w: { chartType?: string; dataSourceId?: unknown; queryConfig?: unknown; displayConfig?: Record<string, unknown> },
  requireData: boolean,
): Array<{ path: string; message: string }> {
  if (w.chartType === undefined) return [];
  const issues: Array<{ path: string; message: string }> = [];
  if (isDataless(w.chartType)) {
    for (const field of ['dataSourceId', 'queryConfig'] as const) {
      if (w[field] !== undefined)
        issues.push({ path: field, message: `a ${w.chartType} widget has no ${field}: leave it out (its Markdown goes in displayConfig.markdown)` });
    }
    const markdown = w.displayConfig?.markdown;
    if (markdown !== undefined && typeof markdown !== 'string') issues.push({ path: 'displayConfig.markdown', message: 'must be a string of Markdown' });
  } else if (requireData) {
    for (const field of ['dataSourceId', 'queryConfig'] as const) {
      if (w[field] === undefined) issues.push({ path: field, message: `is required for a ${w.chartType} widget (only a text widget has none)` });
    }
  }
  return issues;
}

const checkWidgetKind =
  (requireData: boolean) =>
  (w: Parameters<typeof widgetKindIssues>[0], ctx: z.RefinementCtx): void => {
    for (const issue of widgetKindIssues(w, requireData)) ctx.addIssue({ code: 'custom', path: issue.path.split('.'), message: issue.message });
  };

export const CreateWidgetBody = z
  .strictObject({
    title: WidgetTitle,
    chartType: ChartType,
    dataSourceId: Uuid.optional().openapi({ description: 'Required, except for a text widget, which has none' }),
    queryConfig: AnalyticsQuery.optional(), // required, except for a text widget (checkWidgetKind)
    displayConfig: DisplayConfig.default({}),
  })
  .refine(queryConfigFits, queryConfigTooLarge)
  .superRefine(checkWidgetKind(true))
  .openapi('CreateWidget');
export type CreateWidgetInput = z.output<typeof CreateWidgetBody>;

// No defaults: what the caller leaves out stays as it is. queryConfig and displayConfig, when sent, replace the old ones whole.
// Whether the widget as it will be is consistent (a text widget turned into a chart needs a source and a query) is the service's check.
export const PatchWidgetBody = z
  .strictObject({
    title: WidgetTitle.optional(),
    chartType: ChartType.optional().openapi({ description: 'To `text`: the source and query are dropped. From `text`: send dataSourceId and queryConfig too' }),
    dataSourceId: Uuid.optional(),
    queryConfig: AnalyticsQuery.optional(),
    displayConfig: DisplayConfig.optional(),
  })
  .refine(queryConfigFits, queryConfigTooLarge)
  .superRefine(checkWidgetKind(false))
  .openapi('PatchWidget');
export type PatchWidgetInput = z.output<typeof PatchWidgetBody>;

export const WidgetDataBody = z
  .strictObject({
    filters: FilterValuesById.optional().openapi({ description: "Filter id → values, in place of the dashboard's defaults ([] clears one)" }),
    timezone: TimeZone.optional().openapi({ description: "The viewer's zone: used when the dashboard's timezone is null" }),
  })
  .openapi('WidgetDataRequest');
export type WidgetDataInput = z.output<typeof WidgetDataBody>;

export const DashboardParams = z.strictObject({ id: Uuid });
export const DashboardWidgetsParams = z.strictObject({ dashboardId: Uuid });
export const WidgetParams = z.strictObject({ widgetId: Uuid });

export const WidgetSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    dashboardId: z.uuid(),
    title: z.string(),
    chartType: z.enum(CHART_TYPE_NAMES),
    dataSourceId: z.uuid().nullable().openapi({ description: 'null for a text widget' }),
    queryConfig: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'null for a text widget' }),
    displayConfig: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Widget');

export const DashboardSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    userId: z.uuid().nullable(),
    name: z.string(),
    description: z.string(),
    isDefault: z.boolean(),
    layout: z.array(LayoutItem),
    filterConfig: z.array(FilterConfigItem),
    filterDefaults: z.record(z.string(), z.array(z.string())),
    timezone: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    widgets: z.array(WidgetSchema).optional().openapi({ description: 'Only on single-dashboard reads, oldest first' }),
  })
  .openapi('Dashboard');

const QueryResultFields = {
  data: z.array(z.record(z.string(), z.unknown())),
  annotation: z.record(z.string(), z.unknown()),
  query: z.record(z.string(), z.unknown()),
  unknownMembers: z.array(z.string()).optional(),
};
export const WidgetDataSchema = z.object(QueryResultFields).openapi('WidgetData');
export const DashboardDataSchema = z
  .object({
    timezone: z.string().openapi({ description: 'The zone the widgets ran in' }),
    widgets: z.array(
      z.union([
        z.object({ widgetId: z.uuid(), ...QueryResultFields }),
        z.object({ widgetId: z.uuid(), error: z.object({ code: z.string(), message: z.string() }) }),
      ]),
    ),
  })
  .openapi('DashboardData');
