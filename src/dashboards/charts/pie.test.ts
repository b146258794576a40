import { chartSvg } from './svg-render';
import { largestAtTop } from './pie';
import { widgetView } from './widget-view';
import type { ChartResult, ChartWidget } from './types';

const ds = 'ds_0b4f2d1e_4c2a_4e55_9c1b_3c6f1a2b7d90';
const m = (field: string) => `${ds}.${field}`;
const annotation = {
  measures: { [m('amount')]: { shortTitle: 'Amount', type: 'number', format: 'currency' } },
  dimensions: { [m('region')]: { shortTitle: 'Region', type: 'string' } },
};
const pie: ChartWidget = {
  title: 'Sales by region',
  chartType: 'pie',
  queryConfig: { measures: [m('amount')], dimensions: [m('region')] },
  displayConfig: { currency: 'EUR' },
};
/** The largest slice is neither first nor last, and its label is long: "€123,456,789.12 (97%)". */
const result: ChartResult = {
  data: [
    { [m('region')]: 'US', [m('amount')]: '2345678.5' },
    { [m('region')]: 'Europe, Middle East and Africa', [m('amount')]: '123456789.12' },
    { [m('region')]: 'APAC', [m('amount')]: '1345678.5' },
  ],
  annotation,
};
const LABELS = ['€123,456,789.12 (97%)', '€2,345,678.50 (2%)', '€1,345,678.50 (1%)'];

/** The text of the SVG's <text> elements; a label wrapped onto lines is one element a line, so lines are joined back. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1].replace(/&amp;/g, '&'));

describe('pie labels', () => {
  const view = widgetView(pie, result, { timeZone: 'UTC' });
  if (view.kind !== 'chart') throw new Error(`expected a chart, got ${view.kind}`);

  // The sizes a pie tile has in the report PDF and the console: 3 to 6 of 12 columns, with and without the legend.
  it.each([
    [240, 200],
    [300, 220],
    [400, 250],
    [600, 300],
  ])('every label is drawn whole at %i×%i, the largest slice’s included (wrapped if it must, never cut to “…”)', (width, height) => {
    for (const option of [view.option, { ...view.option, legend: { show: false } }]) {
      const drawn = texts(chartSvg(option, { width, height }));
      expect(drawn.join('\n')).not.toMatch(/…|\.\.\./);
      const joined = drawn.join('');
      for (const label of LABELS) expect(joined.replace(/\s+/g, '')).toContain(label.replace(/\s+/g, ''));
    }
  });

  it('turns the pie so that the largest slice is centred at twelve o’clock', () => {
    // Slices clockwise from the start angle: 25 (a quarter turn), then 50, whose middle is half a turn past the start.
    expect(
      largestAtTop([
        { name: 'a', value: 25 },
        { name: 'b', value: 50 },
        { name: 'c', value: 25 },
      ]),
    ).toBe(90 + 180);
    expect(largestAtTop([{ name: 'a', value: 3 }])).toBe(90 + 180);
    expect(
      largestAtTop([
        { name: 'a', value: 10 },
        { name: 'b', value: 30 },
      ]),
    ).toBe(90 + ((10 + 15) / 40) * 360);
    // Nothing to draw: ECharts' own start.
    expect(largestAtTop([])).toBe(90);
    expect(largestAtTop([{ name: 'a', value: 0 }])).toBe(90);
  });
});
