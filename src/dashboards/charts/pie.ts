import type { EChartsOption } from 'echarts';
import { CHART_TEXT } from './cartesian';
import type { DisplaySettings } from './display-config';
import type { Fields } from './fields';
import { toNumber } from './number-format';

type Row = Record<string, unknown>;
type Slice = { name: string; value: number };

/**
 * A pie: one slice per row, named by its dimensions (or its time, when the
 * query groups by time alone), sized by the one measure. Slices keep the
 * answer's order; rows without a number are left out (they have no size).
 *
 * Every label is drawn whole, in the console and in the PDF alike (the same
 * option, drawn at the tile's size). ECharts gives an outside label the room
 * between it and the chart's edge and, by default, cuts what does not fit to
 * "…"; on a small tile that was the largest slice's, whose label sits beside
 * the pie. So: the pie is turned to put the largest slice's middle at twelve
 * o'clock, where its label has half the chart's width to itself; the legend
 * goes under the pie instead of beside it, so the pie is centred and both sides
 * have the same room; and a label longer than its room wraps instead of being
 * cut.
 */
export function pieOption(fields: Fields, rows: Row[], display: DisplaySettings): EChartsOption {
  const measure = fields.measures[0];
  const names = fields.dimensions.length > 0 ? fields.dimensions : fields.times;
  const data = rows
    .map((row) => ({ name: names.map((f) => f.format(row[f.key])).join(' · '), value: toNumber(row[measure.key]) }))
    .filter((d): d is Slice => d.value !== null);
  const showLegend = display.legend ?? true;
  return {
    animation: false,
    textStyle: { ...CHART_TEXT },
    // Plain, not scrolling: the PDF has no pager, every name must be on the page.
    legend: { show: showLegend, type: 'plain', orient: 'horizontal', left: 'center', bottom: 0, textStyle: { ...CHART_TEXT } },
    tooltip: { trigger: 'item' },
    series: [
      {
        type: 'pie',
        name: measure.label,
        radius: ['0%', showLegend ? '55%' : '62%'],
        center: ['50%', showLegend ? '45%' : '50%'],
        startAngle: largestAtTop(data),
        clockwise: true,
        data,
        label: {
          ...CHART_TEXT,
          // Wrapped at spaces (and, for one word longer than the room, within it), never cut to "…".
          overflow: 'break',
          formatter: (p: { name: string; value: unknown; percent?: number }) => `${measure.format(p.value)} (${Math.round(p.percent ?? 0)}%)`,
        },
        labelLine: { length: 8, length2: 8 },
        emphasis: { disabled: true },
      },
    ],
  };
}

/**
 * The start angle (ECharts' degrees: 90 is twelve o'clock, slices go clockwise from it) that centres the largest
 * slice at twelve o'clock. Negative and zero values draw no slice and are left out of the sums as ECharts does.
 */
export function largestAtTop(data: readonly Slice[]): number {
  const sizes = data.map((d) => (d.value > 0 ? d.value : 0));
  const total = sizes.reduce((sum, v) => sum + v, 0);
  if (total === 0) return 90;
  const largest = sizes.indexOf(Math.max(...sizes));
  const before = sizes.slice(0, largest).reduce((sum, v) => sum + v, 0);
  const middle = (before + sizes[largest] / 2) / total;
  // Clockwise from the start: the start sits `middle` of a turn before (counter-clockwise of) twelve o'clock.
  return 90 + middle * 360;
}
