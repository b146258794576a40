// The console imports no server code at run time; this test does, to hold the builder's copies of the API's rules to them.
import { CHART_TYPES } from '../../../../../src/dashboards/chart-types';
import {
  CHART_NAMES,
  CHART_RULES,
  chartNotes,
  chartProblems,
  emptyState,
  fromWidget,
  keptParts,
  OPERATOR_NAMES,
  operatorsFor,
  queryProblems,
  reshapeFilter,
  toDisplayConfig,
  toggled,
  toQueryConfig,
  withSource,
  withTime,
  type BuilderState,
} from './query-state';

const ds = 'ds_1';
const m = (field: string) => `${ds}.${field}`;
const state = (patch: Partial<BuilderState>): BuilderState => ({ ...emptyState(), dataSourceId: 'source-1', ...patch });

test("the chart rules are chart-types.ts's, every chart type and every requirement", () => {
  // A chart type with no query (a `text` widget's Markdown) is not the builder's.
  const drawnFromQueries = Object.entries(CHART_TYPES).filter(([, t]) => !('dataless' in t && t.dataless));
  expect([...CHART_NAMES].sort()).toEqual(drawnFromQueries.map(([name]) => name).sort());
  for (const name of CHART_NAMES) {
    const server = (CHART_TYPES as Record<string, (typeof CHART_TYPES)[keyof typeof CHART_TYPES] & { maxMeasures?: number }>)[name];
    const { label: _label, ...rule } = CHART_RULES[name];
    expect({ name, ...rule }).toEqual({
      name,
      minMeasures: server.minMeasures,
      ...(server.maxMeasures === undefined ? {} : { maxMeasures: server.maxMeasures }),
      timeSeries: server.timeSeries,
      needsGrouping: server.needsGrouping,
      singleValue: server.singleValue,
      readableRows: server.readableRows,
    });
  }
});

test('each member kind is offered only the operators the API runs on it', () => {
  expect(operatorsFor('string')).toEqual(expect.arrayContaining(['equals', 'contains', 'startsWith', 'notEndsWith', 'in', 'set', 'notSet']));
  expect(operatorsFor('string')).not.toContain('gt');
  expect(operatorsFor('string')).not.toContain('inDateRange');
  expect(operatorsFor('number')).toEqual(['equals', 'notEquals', 'in', 'notIn', 'gt', 'gte', 'lt', 'lte', 'set', 'notSet']);
  expect(operatorsFor('time')).toEqual([
    'set',
    'notSet',
    'inDateRange',
    'notInDateRange',
    'onTheDate',
    'beforeDate',
    'beforeOrOnDate',
    'afterDate',
    'afterOrOnDate',
  ]);
  expect(operatorsFor('measure')).toContain('measureFilter');
  expect(operatorsFor('number')).not.toContain('measureFilter');
  // Every operator is offered for some kind; an unknown member is offered all (the API names what is wrong).
  expect(new Set(['measure', 'number', 'string', 'time'].flatMap((k) => operatorsFor(k as 'string')))).toEqual(new Set(OPERATOR_NAMES));
  expect(operatorsFor(undefined)).toEqual(OPERATOR_NAMES);
});

test('a filter moved to another field or operator keeps only what fits', () => {
  const f = { key: 1, member: m('region'), operator: 'equals' as const, values: ['EU', 'US'] };
  expect(reshapeFilter(f, 'string', { operator: 'set' })).toEqual({ ...f, operator: 'set', values: [] });
  expect(reshapeFilter(f, 'string', { operator: 'contains' })).toEqual({ ...f, operator: 'contains' });
  // A date field takes none of a string's operators: the first it takes, and no values.
  expect(reshapeFilter(f, 'time', { member: m('at') })).toEqual({ key: 1, member: m('at'), operator: 'set', values: [] });
  expect(reshapeFilter({ ...f, member: m('amount') }, 'measure', { operator: 'gt' }).values).toEqual(['EU']);
});

test('a chart type that cannot draw the query says why', () => {
  const byRegion = state({ measures: [m('amount')], dimensions: [m('region')] });
  expect(chartProblems('bar', byRegion)).toEqual([]);
  expect(chartProblems('pie', byRegion)).toEqual([]);
  expect(chartProblems('line', byRegion)).toEqual(['A line chart needs a time dimension with a granularity for its x axis']);
  expect(chartProblems('pie', { ...byRegion, measures: [m('amount'), m('count')] })).toEqual(['A pie chart shows one measure; the query has 2']);
  expect(chartProblems('bar', state({ measures: [m('amount')] }))).toEqual([
    'A bar chart needs something to group by: a dimension, or a time dimension with a granularity',
  ]);
  expect(chartProblems('bar', state({ dimensions: [m('region')] }))).toEqual(['A bar chart needs a measure']);
  expect(chartProblems('table', state({ dimensions: [m('region')] }))).toEqual([]);
  const overTime = withTime(state({ measures: [m('amount')] }), { dimension: m('at'), granularity: 'day' });
  expect(chartProblems('line', overTime)).toEqual([]);
  expect(chartProblems('bar', overTime)).toEqual([]);
  expect(chartProblems('stat-card', overTime)).toEqual([]);
  expect(chartProblems('area', byRegion)).toEqual(['An area chart needs a time dimension with a granularity for its x axis']);
  expect(chartNotes('stat-card', overTime)).toEqual(['A stat card shows one number: only the first row of this grouped query is shown']);
  expect(chartNotes('pie', { ...byRegion, limit: '50' })).toEqual(['50 rows are more than a pie chart shows readably (20)']);
});

test('the query is built as the API takes it: time dimension with its range, typed filters, order and limit', () => {
  let s = state({ measures: [m('amount')], chartType: 'bar' });
  s = toggled(s, 'dimensions', m('region'), true);
  s = withTime(s, { dimension: m('at'), granularity: 'day', range: { kind: 'phrase', phrase: 'last 30 days' } });
  s = {
    ...s,
    filters: [
      { key: 1, member: m('region'), operator: 'equals', values: ['EU', ' ', 'US '] },
      { key: 2, member: m('amount'), operator: 'set', values: [] },
    ],
    order: [{ member: m('amount'), direction: 'desc' }],
    limit: '20',
  };
  expect(queryProblems(s)).toEqual([]);
  expect(toQueryConfig(s)).toEqual({
    measures: [m('amount')],
    dimensions: [m('region')],
    timeDimensions: [{ dimension: m('at'), granularity: 'day', dateRange: 'last 30 days' }],
    filters: [
      { member: m('region'), operator: 'equals', values: ['EU', 'US'] },
      { member: m('amount'), operator: 'set' },
    ],
    order: [[m('amount'), 'desc']],
    limit: 20,
  });
  // A stat card's time dimension bounds it, without a granularity; a date pair is sent as two dates.
  const stat = { ...s, chartType: 'stat-card' as const, time: { ...s.time, range: { kind: 'between' as const, from: '2026-03-01', to: '2026-03-31' } } };
  expect(toQueryConfig(stat).timeDimensions).toEqual([{ dimension: m('at'), dateRange: ['2026-03-01', '2026-03-31'] }]);
  // A member leaving the query leaves the order.
  expect(toggled(s, 'measures', m('amount'), false).order).toEqual([]);
  // A new source starts over, keeping the title and chart type.
  expect(withSource({ ...s, title: 'T' }, 'source-2')).toEqual({ ...emptyState(), title: 'T', chartType: 'bar', dataSourceId: 'source-2' });
});

test('what keeps the query from being sent is listed', () => {
  expect(queryProblems(emptyState())).toEqual(['Choose a data source']);
  expect(queryProblems(state({}))).toEqual(['Choose a measure, a dimension, or a time dimension with a granularity']);
  const s = state({
    measures: [m('amount')],
    filters: [
      { key: 1, member: m('region'), operator: 'equals', values: [] },
      { key: 2, member: m('at'), operator: 'inDateRange', values: ['2026-01-01'] },
    ],
    time: { dimension: m('at'), granularity: '', range: { kind: 'between', from: '2026-02-01', to: '2026-01-01' } },
    limit: '0',
  });
  expect(queryProblems(s)).toEqual([
    'Filter 1: Give at least one value',
    'Filter 2: Give both dates',
    'The range ends before it starts',
    'The limit is a whole number from 1 to 50,000',
  ]);
});

test('a saved widget opens as its controls, and what the builder does not edit is saved back as it was', () => {
  const queryConfig = {
    measures: [m('amount')],
    dimensions: [m('region')],
    timeDimensions: [{ dimension: m('at'), granularity: 'week', dateRange: 'last 90 days' }],
    filters: [{ dimension: m('region'), operator: 'notEquals', values: ['APAC'] }, { or: [{ member: m('region'), operator: 'equals', values: ['EU'] }] }],
    order: { [m('amount')]: 'desc' },
    limit: 10,
    timeRange: { type: 'relative', value: 'last 7 days' },
  };
  const displayConfig = { legend: { show: false }, stacked: true, palette: 'warm' };
  const s = fromWidget({ title: 'Sales', chartType: 'area', dataSourceId: 'source-1', queryConfig, displayConfig });
  expect(s.time).toEqual({ dimension: m('at'), granularity: 'week', range: { kind: 'phrase', phrase: 'last 90 days' } });
  expect(s.filters).toEqual([{ key: 1, member: m('region'), operator: 'notEquals', values: ['APAC'] }]);
  expect(s.order).toEqual([{ member: m('amount'), direction: 'desc' }]);
  expect(s.display).toEqual({ legend: 'off', stacked: 'on', currency: '' });
  expect(keptParts(s)).toEqual(['a time range', 'and/or filter groups']);
  expect(toQueryConfig(s)).toEqual({
    ...queryConfig,
    filters: [{ member: m('region'), operator: 'notEquals', values: ['APAC'] }, queryConfig.filters[1]],
    order: [[m('amount'), 'desc']],
  });
  expect(toDisplayConfig(s)).toEqual(displayConfig);
  expect(toDisplayConfig({ ...s, display: { legend: 'auto', stacked: 'auto', currency: 'eur' } })).toEqual({ palette: 'warm', currency: 'EUR' });
});
