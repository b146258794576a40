import { closest, distance } from 'fastest-levenshtein';
import type { AnalyticsQuery } from '../../analytics/analytics.schemas';
import { CHART_TYPE_NAMES, CHART_TYPES, type ChartTypeName } from '../chart-types';
import { type PathSegment, quote, type WidgetFindings } from './report';

export interface ChartContext {
  findings: WidgetFindings;
  /** `['widgets', i]`. */
  widgetPath: PathSegment[];
  /** Fields of the queryConfig that did not parse: rules about them stay silent. */
  dropped: ReadonlySet<string>;
  /** The widget's source's time dimension, offered in messages. */
  timeDimension?: string;
}

export const isChartType = (name: string): name is ChartTypeName => Object.hasOwn(CHART_TYPES, name);

/** `chart-type`: an unknown chart type is reported with the known ones. */
export function checkChartType(chartType: string, ctx: ChartContext): chartType is ChartTypeName {
  if (isChartType(chartType)) return true;
  const near = closest(chartType.slice(0, 50).toLowerCase(), CHART_TYPE_NAMES);
  const hint = distance(chartType.slice(0, 50).toLowerCase(), near) <= 3 ? `; did you mean ${quote(near)}?` : '';
  ctx.findings.add('chart-type', `Unknown chart type ${quote(chartType)}: the chart types are ${CHART_TYPE_NAMES.join(', ')}${hint}`, [
    ...ctx.widgetPath,
    'chartType',
  ]);
  return false;
}

/** `empty-query`: Cube refuses a query with no measure, dimension or time dimension with a granularity. */
export function checkNotEmpty(q: AnalyticsQuery, ctx: ChartContext): boolean {
  if (['measures', 'dimensions', 'timeDimensions'].some((f) => ctx.dropped.has(f))) return true;
  if (q.measures.length > 0 || q.dimensions.length > 0 || q.timeDimensions.some((t) => t.granularity)) return true;
  ctx.findings.add('empty-query', 'The query names no measure, dimension or time dimension with a granularity; Cube refuses such a query', [
    ...ctx.widgetPath,
    'queryConfig',
  ]);
  return false;
}

/**
 * What the chart type needs from its query (chart-types.ts): `chart-measures`,
 * `chart-time-dimension`, `chart-grouping`, `chart-single-value` and
 * `limit-readable`.
 */
export function checkChartQuery(name: ChartTypeName, q: AnalyticsQuery, ctx: ChartContext): void {
  const chart = CHART_TYPES[name];
  const query = [...ctx.widgetPath, 'queryConfig'];
  const add = ctx.findings.add.bind(ctx.findings);
  const granular = q.timeDimensions.some((t) => t.granularity);
  const knownMembers = !ctx.dropped.has('measures');
  const knownGrouping = !ctx.dropped.has('dimensions') && !ctx.dropped.has('timeDimensions');
  if (knownMembers && q.measures.length < chart.minMeasures) {
    add('chart-measures', `A ${name} chart needs at least ${chart.minMeasures === 1 ? 'one measure' : `${chart.minMeasures} measures`}; the query has none`, [
      ...query,
      'measures',
    ]);
  }
  const max = 'maxMeasures' in chart ? chart.maxMeasures : undefined;
  if (knownMembers && max !== undefined && q.measures.length > max) {
    add('chart-measures', `A ${name} chart shows ${max === 1 ? 'one measure' : `${max} measures`}; the query has ${q.measures.length}`, [...query, 'measures']);
  }
  if (!knownGrouping) return;
  const example = ctx.timeDimension ? `, such as {dimension: ${quote(ctx.timeDimension)}, granularity: "day"}` : '';
  if (chart.timeSeries && !granular) {
    add('chart-time-dimension', `A ${name} chart needs a time dimension with a granularity for its x axis${example}`, [...query, 'timeDimensions']);
  } else if (chart.needsGrouping && !granular && q.dimensions.length === 0) {
    add('chart-grouping', `A ${name} chart needs something to group by: a dimension, or a time dimension with a granularity`, [...query, 'dimensions']);
  }
  if (chart.singleValue && (q.dimensions.length > 0 || granular)) {
    add(
      'chart-single-value',
      `A ${name} shows one number, but the query groups by ${q.dimensions.length > 0 ? 'dimensions' : 'a granularity'}: only the first row is shown`,
      query,
    );
  }
  if (q.limit !== undefined && q.limit > chart.readableRows) {
    add('limit-readable', `limit ${q.limit} is more rows than a ${name} chart can show readably (${chart.readableRows})`, [...query, 'limit']);
  }
}
