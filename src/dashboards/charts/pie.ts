import type { EChartsOption } from 'echarts';
import { CHART_TEXT } from './cartesian';
import type { DisplaySettings } from './display-config';
import type { Fields } from './fields';
import { toNumber } from './number-format';

type Row = Record<string, unknown>;

/**
 * A pie: one slice per row, named by its dimensions (or its time, when the
 * query groups by time alone), sized by the one measure. Slices keep the
 * answer's order; rows without a number are left out (they have no size).
 */
export function pieOption(fields: Fields, rows: Row[], display: DisplaySettings): EChartsOption {
  const measure = fields.measures[0];
  const names = fields.dimensions.length > 0 ? fields.dimensions : fields.times;
  const data = rows
    .map((row) => ({ name: names.map((f) => f.format(row[f.key])).join(' · '), value: toNumber(row[measure.key]) }))
    .filter((d): d is { name: string; value: number } => d.value !== null);
  const showLegend = display.legend ?? true;
  return {
    animation: false,
    textStyle: { ...CHART_TEXT },
    legend: { show: showLegend, type: 'plain', orient: 'vertical', left: 0, top: 'middle', textStyle: { ...CHART_TEXT } },
    tooltip: { trigger: 'item' },
    series: [
      {
        type: 'pie',
        name: measure.label,
        radius: ['0%', '70%'],
        center: [showLegend ? '62%' : '50%', '50%'],
        data,
        label: {
          ...CHART_TEXT,
          formatter: (p: { name: string; value: unknown; percent?: number }) => `${measure.format(p.value)} (${Math.round(p.percent ?? 0)}%)`,
        },
        emphasis: { disabled: true },
      },
    ],
  };
}
