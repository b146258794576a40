import type { AnalyticsQuery } from '../analytics/analytics.schemas';
import { RUN_STEPS_TYPE, RUNS_TYPE } from '../data-sources/runs-source';
import { servingRelationName } from '../data-sources/serving-relation';
import type { ChartTypeName } from './chart-types';

/**
 * Dashboards the service can create ready-made (POST /dashboards/templates/{template}):
 * today "operations", four widgets over the organization's built-in run sources
 * (src/data-sources/runs-source.ts), laid out two by two.
 */

export const DASHBOARD_TEMPLATES = ['operations'] as const;
export type DashboardTemplate = (typeof DASHBOARD_TEMPLATES)[number];

/** One widget of a template: the built-in source it reads (by type), its query and its cells on the grid. */
export interface TemplateWidget {
  title: string;
  chartType: ChartTypeName;
  sourceType: typeof RUNS_TYPE | typeof RUN_STEPS_TYPE;
  queryConfig: AnalyticsQuery;
  displayConfig: Record<string, unknown>;
  /** Its cells on the 12-column grid (a LayoutItem without the widget's id, which the dashboard gives it). */
  cells: { x: number; y: number; w: number; h: number };
}

export interface TemplateDashboard {
  name: string;
  description: string;
  widgets: TemplateWidget[];
}

// Cube's "last 30 days" ends yesterday: today's runs are what an operator looks at first.
const LAST_30_DAYS = 'from 30 days ago to now';

/**
 * The Operations dashboard over the sources whose ids `sourceIds` gives by type: runs per day by status, p95 duration
 * per workflow, failures by step and model cost by model, each over the last 30 days and today.
 */
export function operationsTemplate(sourceIds: ReadonlyMap<string, string>): TemplateDashboard {
  const runs = servingRelationName(sourceIds.get(RUNS_TYPE)!);
  const steps = servingRelationName(sourceIds.get(RUN_STEPS_TYPE)!);
  const query = (q: Partial<AnalyticsQuery>): AnalyticsQuery => ({ measures: [], dimensions: [], timeDimensions: [], filters: [], ...q });
  return {
    name: 'Operations',
    description: "This organization's runs: how many, how they ended, how long they took, where they failed and what their model calls cost",
    widgets: [
      {
        title: 'Runs per day by status',
        // Stacked bars: a day without runs of one status is a missing bar, where a stacked area drew a stray point.
        chartType: 'bar',
        sourceType: RUNS_TYPE,
        queryConfig: query({
          measures: [`${runs}.count`],
          dimensions: [`${runs}.status`],
          timeDimensions: [{ dimension: `${runs}.startedAt`, granularity: 'day', dateRange: LAST_30_DAYS }],
        }),
        // The legend names the statuses, even when every run ended alike.
        displayConfig: { legend: { show: true }, stacked: true },
        cells: { x: 0, y: 0, w: 6, h: 4 },
      },
      {
        title: 'p95 duration per workflow (ms)',
        chartType: 'bar',
        sourceType: RUNS_TYPE,
        queryConfig: query({
          measures: [`${runs}.durationP95`],
          dimensions: [`${runs}.workflow`],
          timeDimensions: [{ dimension: `${runs}.startedAt`, dateRange: LAST_30_DAYS }],
          order: { [`${runs}.durationP95`]: 'desc' },
          limit: 20,
        }),
        displayConfig: {},
        cells: { x: 6, y: 0, w: 6, h: 4 },
      },
      {
        title: 'Failures by step',
        chartType: 'bar',
        sourceType: RUNS_TYPE,
        queryConfig: query({
          measures: [`${runs}.failures`],
          // The step on the x axis, a bar per workflow (steps are named within their workflow), stacked.
          dimensions: [`${runs}.failedStep`, `${runs}.workflow`],
          timeDimensions: [{ dimension: `${runs}.startedAt`, dateRange: LAST_30_DAYS }],
          filters: [{ member: `${runs}.failedStep`, operator: 'set' }],
          order: { [`${runs}.failures`]: 'desc' },
          limit: 20,
        }),
        displayConfig: { legend: { show: true }, stacked: true },
        cells: { x: 0, y: 4, w: 6, h: 4 },
      },
      {
        title: 'Model cost by model',
        chartType: 'bar',
        sourceType: RUN_STEPS_TYPE,
        queryConfig: query({
          // Cost alone: tokens, on the same axis, would flatten it.
          measures: [`${steps}.cost`],
          dimensions: [`${steps}.model`],
          timeDimensions: [{ dimension: `${steps}.startedAt`, dateRange: LAST_30_DAYS }],
          filters: [{ member: `${steps}.model`, operator: 'set' }],
          order: { [`${steps}.cost`]: 'desc' },
          limit: 20,
        }),
        displayConfig: {},
        cells: { x: 6, y: 4, w: 6, h: 4 },
      },
    ],
  };
}
