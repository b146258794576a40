import type { ApiAnswer, ApiSchema } from '../../api/schemas';

/**
 * The shapes of the dashboard routes the console reads: aliases of the generated API types
 * (src/dashboards/dashboards.schemas.ts, interface.md 2.4, 2.5, 2.8, 2.9), and the small pure helpers built on them.
 */

export type LayoutItem = ApiSchema<'DashboardLayoutItem'>;
export type FilterConfigItem = ApiSchema<'DashboardFilter'>;
export type Widget = ApiSchema<'Widget'>;
export type Dashboard = ApiSchema<'Dashboard'>;
export type DashboardList = ApiAnswer<'/dashboards', 'get'>;

/** POST /dashboards/{id}/data: one entry per widget, and the zone they ran in. */
export type DashboardData = ApiSchema<'DashboardData'>;
export type WidgetEntry = DashboardData['widgets'][number];

export type DataSource = ApiSchema<'DataSource'>;
export type SourceList = ApiAnswer<'/dashboards/data-sources', 'get'>;
/** GET /dashboards/analytics/meta: one entry per data source, named by its serving relation. */
export type MetaEntry = ApiSchema<'AnalyticsMetaEntry'>;
export type MetaList = ApiAnswer<'/dashboards/analytics/meta', 'get'>;
export type ValidationFinding = ApiSchema<'DashboardValidationFinding'>;
export type ValidationResult = ApiSchema<'DashboardValidationResult'>;
export type DistinctValues = ApiAnswer<'/dashboards/analytics/distinct-values', 'post', 201>;

/**
 * Client-only: a widget's query as the query builder reads and writes it. The API publishes
 * `queryConfig` as a free-form object (its rules are checked by POST /dashboards/validate), so this is the
 * console's own subset of it.
 */
export interface WidgetQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: Array<{ dimension: string; granularity?: string; dateRange?: string | [string, string] }>;
  filters?: unknown[];
  timeRange?: { type: 'relative'; value: string };
  timezone?: string;
  [key: string]: unknown;
}

/** The chart types of src/dashboards/chart-types.ts, as a person picks them; default sizes as the API places a new widget. */
export const CHART_TYPES = [
  { name: 'line', label: 'Line' },
  { name: 'area', label: 'Area' },
  { name: 'bar', label: 'Bar' },
  { name: 'pie', label: 'Pie' },
  { name: 'stat-card', label: 'Stat card' },
  { name: 'table', label: 'Table' },
] as const;

export const chartTypeLabel = (name: string) => CHART_TYPES.find((c) => c.name === name)?.label ?? (name === TEXT_CHART_TYPE ? 'Text' : name);

/**
 * A text tile (src/dashboards/chart-types.ts `text`): a heading or a note in Markdown (displayConfig.markdown), with no
 * data source and no query. Not in CHART_TYPES: the query builder's chart types are the ones that chart data.
 */
export const TEXT_CHART_TYPE = 'text';
export const isTextWidget = (w: Pick<Widget, 'chartType'>) => w.chartType === TEXT_CHART_TYPE;

/** The dashboard filters that narrow a widget: those over its data source (src/dashboards/dashboard-filters.ts); none for a text tile. */
export const filtersOfWidget = (filters: readonly FilterConfigItem[], widget: Pick<Widget, 'dataSourceId'>) =>
  widget.dataSourceId === null ? [] : filters.filter((f) => f.dataSourceId === widget.dataSourceId);

/** The source alias a data source's fields are qualified with (servingRelationName on the server). */
export const sourceAlias = (dataSourceId: string) => `ds_${dataSourceId.replace(/-/g, '_')}`;
