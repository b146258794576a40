// The whole `echarts` entry, not the tree-shaken `echarts/core` + `echarts/charts`
// + `echarts/components` + `echarts/renderers`: those subpaths are ES modules
// only ("type": "module", no "require" condition), which Node 20's CommonJS
// loads but jest's module loader does not (it refuses require(esm) before
// Node 24.9). The package's "require" condition is dist/echarts.js, a CommonJS
// build holding every chart and the SVG renderer; its size only costs the
// server a one-off load. The console's bundle tree-shakes on its own.
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';

/**
 * Draws a chart view's option to an SVG document, on the server, with
 * ECharts' server-side rendering (no DOM): the report PDF embeds it.
 * Synchronous and CPU-bound: bound its input with chartDrawCost first.
 */
export function chartSvg(option: EChartsOption, size: { width: number; height: number }): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** What one data point of a bar, line or area series costs to draw: the unit of chartDrawCost. */
const POINT_COST = 1;
/**
 * A pie slice draws its sector, its label and its label line, and is laid
 * out against its neighbours' labels: about ten bar points' time each
 * (measured: 5,000 bars ≈ 0.25 s, 1,250 slices ≈ 0.5 s).
 */
const SLICE_COST = 10;
/** Each series has its own layout pass and a legend entry: about twenty points' time (5,000 one-bar series ≈ 3.9 s). */
const SERIES_COST = 20;

/**
 * What drawing `option` with chartSvg would cost, in bar points, counted from
 * the option alone (nothing is drawn): the sum over its series of their data
 * points (a pie slice weighs SLICE_COST), plus SERIES_COST per series. A
 * series reading a dataset counts the dataset's rows.
 */
export function chartDrawCost(option: EChartsOption): number {
  const series = option.series === undefined ? [] : Array.isArray(option.series) ? option.series : [option.series];
  const dataset = Array.isArray(option.dataset) ? option.dataset[0] : option.dataset;
  const datasetRows = Array.isArray(dataset?.source) ? dataset.source.length : 0;
  let cost = 0;
  for (const s of series) {
    const data = (s as { data?: unknown }).data;
    const points = Array.isArray(data) ? data.length : datasetRows;
    cost += points * (s.type === 'pie' ? SLICE_COST : POINT_COST) + SERIES_COST;
  }
  return cost;
}
