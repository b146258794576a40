import type { ChartResult } from '@charts/index';

/**
 * The shapes of the dashboard routes the console reads (src/dashboards/dashboards.schemas.ts,
 * interface.md 2.4, 2.5, 2.8, 2.9), and the small pure helpers built on them.
 */

export interface LayoutItem {
  widgetId: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface FilterConfigItem {
  id: string;
  dataSourceId: string;
  dimension: string;
  label: string;
}

export interface WidgetQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: Array<{ dimension: string; granularity?: string; dateRange?: string | [string, string] }>;
  filters?: unknown[];
  timeRange?: { type: 'relative'; value: string };
  timezone?: string;
  [key: string]: unknown;
}

export interface Widget {
  id: string;
  dashboardId: string;
  title: string;
  chartType: string;
  dataSourceId: string;
  queryConfig: WidgetQuery;
  displayConfig: Record<string, unknown>;
  updatedAt: string;
}

export interface Dashboard {
  id: string;
  name: string;
  description: string;
  isDefault: boolean;
  layout: LayoutItem[];
  filterConfig: FilterConfigItem[];
  filterDefaults: Record<string, string[]>;
  timezone: string | null;
  createdAt: string;
  updatedAt: string;
  widgets?: Widget[];
}

export type WidgetEntry = { widgetId: string } & ChartResult;

/** POST /dashboards/{id}/data: one entry per widget, and the zone they ran in. */
export interface DashboardData {
  timezone: string;
  widgets: WidgetEntry[];
}

export interface DataSource {
  id: string;
  name: string;
  servingRelation: string;
  enabled: boolean;
}

export interface MetaMember {
  name: string;
  title: string;
  type: string;
}

/** GET /dashboards/analytics/meta: one entry per data source, named by its serving relation. */
export interface MetaEntry {
  name: string;
  title: string;
  measures: MetaMember[];
  dimensions: MetaMember[];
}

export interface ValidationFinding {
  ruleId: string;
  severity: 'error' | 'warning';
  widget: number | null;
  message: string;
  path?: string;
}

export interface ValidationResult {
  ok: boolean;
  errors: ValidationFinding[];
  warnings: ValidationFinding[];
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

export const chartTypeLabel = (name: string) => CHART_TYPES.find((c) => c.name === name)?.label ?? name;

export const GRANULARITIES = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

/** The source alias a data source's fields are qualified with (servingRelationName on the server). */
export const sourceAlias = (dataSourceId: string) => `ds_${dataSourceId.replace(/-/g, '_')}`;
