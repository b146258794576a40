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
