import type { EChartsOption, SeriesOption } from 'echarts';
import type { DisplaySettings } from './display-config';
import type { Field, Fields } from './fields';
import { toNumber } from './number-format';
import { timeValueInstant } from './time-labels';

type Row = Record<string, unknown>;

/** Text drawn on charts: one size and family, so the console and the PDF measure it alike. */
export const CHART_TEXT = { fontFamily: 'sans-serif', fontSize: 11 } as const;

/**
 * The x axis and the series of a line, area or bar chart. The x axis is the
 * first time dimension with a granularity when the query has one (a line or
 * area chart always has: CHART_TYPES), else the first dimension; every other
 * dimension splits the series, one per distinct combination (first seen
 * first), times each measure.
 */
export function cartesianOption(chartType: 'line' | 'area' | 'bar', fields: Fields, rows: Row[], display: DisplaySettings, timeZone: string): EChartsOption {
  const x: Field | undefined = fields.times[0] ?? fields.dimensions[0];
  const splits = [...fields.times, ...fields.dimensions].filter((f) => f !== x);

  // Categories: time in time order, anything else in the answer's order (the query's own order, if it has one).
  const categories: unknown[] = [];
  const index = new Map<string, number>();
  for (const row of rows) {
    const k = x ? keyOf(row[x.key]) : '';
    if (!index.has(k)) {
      index.set(k, categories.length);
      categories.push(x ? row[x.key] : undefined);
    }
  }
  let order = categories.map((_, i) => i);
  if (x?.kind === 'time') order = order.sort((a, b) => (timeValueInstant(categories[a], timeZone) ?? 0) - (timeValueInstant(categories[b], timeZone) ?? 0));
  const position = new Map(order.map((from, to) => [from, to]));

  const groups = new Map<string, { name: string; rows: Row[] }>();
  for (const row of rows) {
    const k = splits.map((s) => keyOf(row[s.key])).join('\u0000');
    if (!groups.has(k)) groups.set(k, { name: splits.map((s) => s.format(row[s.key])).join(' · '), rows: [] });
    groups.get(k)!.rows.push(row);
  }

  const stacked = display.stacked ?? chartType === 'area';
  const series: SeriesOption[] = [];
  for (const group of groups.values()) {
    for (const m of fields.measures) {
      const data: Array<number | null> = categories.map(() => null);
      for (const row of group.rows) data[position.get(index.get(x ? keyOf(row[x.key]) : '')!)!] = toNumber(row[m.key]);
      const name = splits.length === 0 ? m.label : fields.measures.length > 1 ? `${group.name} · ${m.label}` : group.name;
      const common = { name, data, ...(stacked ? { stack: 'total' } : {}), emphasis: { disabled: true } };
      if (chartType === 'bar') series.push({ type: 'bar', ...common });
      else
        series.push({
          type: 'line',
          ...common,
          showSymbol: data.length <= 60,
          connectNulls: false,
          ...(chartType === 'area' ? { areaStyle: { opacity: 0.6 } } : {}),
        });
    }
  }

  const showLegend = display.legend ?? series.length > 1;
  const first = fields.measures[0];
  return {
    animation: false,
    textStyle: { ...CHART_TEXT },
    legend: { show: showLegend, type: 'plain', top: 0, textStyle: { ...CHART_TEXT } },
    grid: { left: 8, right: 16, top: showLegend ? 32 : 12, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'category',
      // No axis name: the tile's title says what is drawn, and ECharts keeps a name out of the grid's bounds (it would be cut off).
      // A gap at both ends on every chart: the first and last labels are centred on their point and would be cut at the edges.
      boundaryGap: true,
      data: order.map((i) => (x ? x.format(categories[i]) : '')),
      axisLabel: { ...CHART_TEXT, hideOverlap: true },
    },
    yAxis: {
      type: 'value',
      axisLabel: { ...CHART_TEXT, formatter: (v: number) => (first ? first.format(v) : String(v)) },
    },
    series,
  };
}

/** Distinct values keyed so that 1 and "1" stay apart and null is one value. */
export const keyOf = (v: unknown) => (v === null || v === undefined ? '\u0001null' : `${typeof v}:${String(v)}`);
