import { widgetView } from './widget-view';
import type { ChartResult, ChartWidget, WidgetView } from './types';

const ds = 'ds_0b4f2d1e_4c2a_4e55_9c1b_3c6f1a2b7d90';
const m = (field: string) => `${ds}.${field}`;
const annotation = {
  measures: { [m('amount')]: { title: 'Sales Amount', shortTitle: 'Amount', type: 'number' }, [m('count')]: { shortTitle: 'Count', type: 'number' } },
  dimensions: { [m('region')]: { shortTitle: 'Region', type: 'string' } },
  timeDimensions: { [m('at.day')]: { shortTitle: 'At day', type: 'time' } },
};
const utc = { timeZone: 'UTC' };

const widget = (chartType: string, queryConfig: ChartWidget['queryConfig'], displayConfig = {}): ChartWidget => ({
  title: 'W',
  chartType,
  queryConfig,
  displayConfig,
});
const answer = (data: Array<Record<string, unknown>>): ChartResult => ({ data, annotation });

// The option read back loosely: EChartsOption's unions (one axis or many) are not what these tests are about.
function chart(view: WidgetView): Record<string, any> {
  if (view.kind !== 'chart') throw new Error(`expected a chart, got ${view.kind}`);
  return view.option as Record<string, any>;
}

describe('widgetView', () => {
  const daily = widget('line', { measures: [m('amount')], timeDimensions: [{ dimension: m('at'), granularity: 'day' }] });
  const dailyRows = [
    { [m('at.day')]: '2026-03-11T00:00:00.000', [m('amount')]: '1234.5' },
    { [m('at.day')]: '2026-03-10T00:00:00.000', [m('amount')]: '7' },
  ];

  it('line: time in order on a category axis, labelled in the zone of the answer, one series per measure, no animation', () => {
    const option = chart(widgetView(daily, answer(dailyRows), utc));
    expect(option.animation).toBe(false);
    expect(option.xAxis.data).toEqual(['Mar 10, 2026', 'Mar 11, 2026']);
    expect(option.series).toEqual([expect.objectContaining({ type: 'line', name: 'Amount', data: [7, 1234.5] })]);
    expect(option.series[0].areaStyle).toBeUndefined();
    expect(option.legend.show).toBe(false);
    expect(option.yAxis.axisLabel.formatter(1234.5)).toBe('1,234.5');
  });

  it('time labels are the wall-clock of the answer in its zone, daylight saving time included', () => {
    const hourly = widget('line', { measures: [m('count')], timeDimensions: [{ dimension: m('at'), granularity: 'hour' }] });
    const rows = [
      // 01:00 and 03:00 in New York on the night clocks go forward (2026-03-08): 02:00 does not exist there.
      { [m('at.hour')]: '2026-03-08T01:00:00.000', [m('count')]: '1' },
      { [m('at.hour')]: '2026-03-08T03:00:00.000', [m('count')]: '2' },
    ];
    const option = chart(widgetView(hourly, answer(rows), { timeZone: 'America/New_York' }));
    expect(option.xAxis.data).toEqual(['Mar 8, 2026, 01:00 AM', 'Mar 8, 2026, 03:00 AM']);
    const paris = chart(widgetView(hourly, answer(rows), { timeZone: 'Europe/Paris', locale: 'fr-FR' }));
    expect(paris.xAxis.data).toEqual(['8 mars 2026, 01:00', '8 mars 2026, 03:00']);
  });

  it('month and quarter labels', () => {
    const monthly = widget('bar', { measures: [m('count')], timeDimensions: [{ dimension: m('at'), granularity: 'month' }] });
    expect(chart(widgetView(monthly, answer([{ [m('at.month')]: '2026-01-01T00:00:00.000', [m('count')]: '3' }]), utc)).xAxis.data).toEqual(['Jan 2026']);
    const quarterly = widget('bar', { measures: [m('count')], timeDimensions: [{ dimension: m('at'), granularity: 'quarter' }] });
    expect(
      chart(widgetView(quarterly, answer([{ [m('at.quarter')]: '2026-04-01T00:00:00.000', [m('count')]: '3' }]), { timeZone: 'Asia/Tokyo' })).xAxis.data,
    ).toEqual(['Q2 2026']);
  });

  it('area: a dimension splits the series, stacked and filled; gaps stay null; the legend shows', () => {
    const area = widget('area', { measures: [m('amount')], dimensions: [m('region')], timeDimensions: [{ dimension: m('at'), granularity: 'day' }] });
    const rows = [
      { [m('at.day')]: '2026-03-10T00:00:00.000', [m('region')]: 'EU', [m('amount')]: '5' },
      { [m('at.day')]: '2026-03-10T00:00:00.000', [m('region')]: 'US', [m('amount')]: '2' },
      { [m('at.day')]: '2026-03-11T00:00:00.000', [m('region')]: 'EU', [m('amount')]: '6' },
    ];
    const option = chart(widgetView(area, answer(rows), utc));
    expect(option.series).toEqual([
      expect.objectContaining({ type: 'line', name: 'EU', data: [5, 6], stack: 'total', areaStyle: expect.any(Object) }),
      expect.objectContaining({ type: 'line', name: 'US', data: [2, null], stack: 'total' }),
    ]);
    expect(option.legend.show).toBe(true);
    expect(chart(widgetView({ ...area, displayConfig: { legend: { show: false }, stacked: false } }, answer(rows), utc))).toEqual(
      expect.objectContaining({
        legend: expect.objectContaining({ show: false }),
        series: [expect.not.objectContaining({ stack: 'total' }), expect.anything()],
      }),
    );
  });

  it('bar: grouped by a dimension in the answer order, two measures side by side unless stacked', () => {
    const bar = widget('bar', { measures: [m('amount'), m('count')], dimensions: [m('region')] });
    const rows = [
      { [m('region')]: 'US', [m('amount')]: '10', [m('count')]: '2' },
      { [m('region')]: null, [m('amount')]: '4', [m('count')]: '1' },
    ];
    const option = chart(widgetView(bar, answer(rows), utc));
    expect(option.xAxis.data).toEqual(['US', '—']);
    expect(option.series).toEqual([
      expect.objectContaining({ type: 'bar', name: 'Amount', data: [10, 4] }),
      expect.objectContaining({ type: 'bar', name: 'Count', data: [2, 1] }),
    ]);
    expect(option.series[0].stack).toBeUndefined();
    expect(chart(widgetView({ ...bar, displayConfig: { stacked: true } }, answer(rows), utc)).series[1].stack).toBe('total');
  });

  it('pie: a slice per row, named by the dimension, sized by the measure, labelled with the value written by its format', () => {
    const pie = widget('pie', { measures: [m('amount')], dimensions: [m('region')] });
    const option = chart(
      widgetView(
        pie,
        answer([
          { [m('region')]: 'EU', [m('amount')]: '3000' },
          { [m('region')]: 'US', [m('amount')]: null },
        ]),
        utc,
      ),
    );
    expect(option.series[0].data).toEqual([{ name: 'EU', value: 3000 }]);
    expect(option.series[0].label.formatter({ name: 'EU', value: 3000, percent: 100 })).toBe('3,000 (100%)');
    expect(option.legend.show).toBe(true);
  });

  it('stat-card: the first measure written by its format; null when there is none', () => {
    const stat = widget('stat-card', { measures: [m('amount')] });
    expect(widgetView(stat, answer([{ [m('amount')]: '1234567.891' }]), utc)).toEqual({
      kind: 'stat',
      label: 'Amount',
      value: 1234567.891,
      text: '1,234,567.89',
    });
    expect(widgetView(stat, answer([{ [m('amount')]: null }]), utc)).toEqual({ kind: 'stat', label: 'Amount', value: null, text: '—' });
    expect(widgetView(stat, answer([]), { timeZone: 'UTC', locale: 'de-DE' })).toEqual({ kind: 'stat', label: 'Amount', value: null, text: '—' });
    expect(widgetView(stat, answer([{ [m('amount')]: '1234.5' }]), { timeZone: 'UTC', locale: 'de-DE' })).toMatchObject({ text: '1.234,5' });
  });

  it('measure formats: currency (in displayConfig.currency) and percent', () => {
    const stat = widget('stat-card', { measures: [m('amount')] }, { currency: 'EUR' });
    const withFormat = (format: unknown): ChartResult => ({
      data: [{ [m('amount')]: '12.5' }],
      annotation: { measures: { [m('amount')]: { shortTitle: 'Amount', format } } },
    });
    expect(widgetView(stat, withFormat('currency'), utc)).toMatchObject({ text: '€12.50' });
    expect(widgetView(stat, withFormat({ type: 'percent' }), utc)).toMatchObject({ text: '12.5%' });
  });

  it('table: dimensions, time dimensions, then measures, every cell written, numbers right-aligned', () => {
    const table = widget('table', { measures: [m('amount')], dimensions: [m('region')], timeDimensions: [{ dimension: m('at'), granularity: 'day' }] });
    const view = widgetView(table, answer([{ [m('region')]: 'EU', [m('at.day')]: '2026-03-10T00:00:00.000', [m('amount')]: '1500' }]), utc);
    expect(view).toEqual({
      kind: 'table',
      columns: [
        { key: m('region'), label: 'Region', align: 'left' },
        { key: m('at.day'), label: 'At day', align: 'left' },
        { key: m('amount'), label: 'Amount', align: 'right' },
      ],
      rows: [['EU', 'Mar 10, 2026', '1,500']],
    });
  });

  it('a member the annotation does not describe is labelled by its field name', () => {
    const table = widget('table', { dimensions: [m('unit_price')] });
    expect(widgetView(table, { data: [{ [m('unit_price')]: 'x' }] }, utc)).toMatchObject({ columns: [{ label: 'unit_price' }] });
  });

  it('no rows: empty, naming the members that matched nothing; an error entry: the error', () => {
    expect(widgetView(daily, answer([]), utc)).toEqual({ kind: 'empty', message: 'No data' });
    expect(widgetView(daily, { data: [], unknownMembers: [m('nope')] }, utc)).toEqual({
      kind: 'empty',
      message: `No data: ${m('nope')} matched no field of the source`,
    });
    expect(widgetView(daily, { error: { code: 'widget_source_unavailable', message: 'gone' } }, utc)).toEqual({
      kind: 'error',
      code: 'widget_source_unavailable',
      message: 'gone',
    });
  });

  it('the same answer gives the same option', () => {
    expect(JSON.stringify(chart(widgetView(daily, answer(dailyRows), utc)))).toBe(JSON.stringify(chart(widgetView(daily, answer(dailyRows), utc))));
  });
});
