import { appliedDashboardFilters, defaultsOfFilters, unknownFilterKeys } from './dashboard-filters';

const SOURCE = '0190c0de-0000-7000-8000-000000000001';
const OTHER = '0190c0de-0000-7000-8000-000000000002';
const ALIAS = 'ds_0190c0de_0000_7000_8000_000000000001';
const filters = [
  { id: 'region', dataSourceId: SOURCE, dimension: 'region', label: 'Region' },
  { id: 'status', dataSourceId: SOURCE, dimension: `${ALIAS}.status`, label: 'Status' },
  { id: 'team', dataSourceId: OTHER, dimension: 'team', label: 'Team' },
];

describe('unknownFilterKeys', () => {
  test('names every key that is not a filter id', () => {
    expect(unknownFilterKeys({ region: ['EU'], regoin: ['US'] }, filters, 'filterDefaults')).toEqual([
      { path: 'filterDefaults.regoin', message: '"regoin" is not the id of a filter of this dashboard (its filters are "region", "status", "team")' },
    ]);
    expect(unknownFilterKeys({ x: [] }, [], 'filters')).toEqual([
      { path: 'filters.x', message: '"x" is not the id of a filter of this dashboard (this dashboard has no filters)' },
    ]);
    expect(unknownFilterKeys({ region: [], team: ['a'] }, filters, 'filters')).toEqual([]);
  });
});

describe('defaultsOfFilters', () => {
  test('a removed filter takes its default with it', () => {
    expect(defaultsOfFilters({ region: ['EU'], gone: ['x'] }, filters)).toEqual({ region: ['EU'] });
  });
});

describe('appliedDashboardFilters', () => {
  test("equals on each filter over the widget's source, bare fields qualified with its alias", () => {
    expect(appliedDashboardFilters(SOURCE, ALIAS, filters, { region: ['EU', 'US'], status: ['paid'], team: ['a'] })).toEqual([
      { id: 'region', chosen: false, filter: { member: `${ALIAS}.region`, operator: 'equals', values: ['EU', 'US'] } },
      { id: 'status', chosen: false, filter: { member: `${ALIAS}.status`, operator: 'equals', values: ['paid'] } },
    ]);
  });

  test("the caller's values replace the default of that filter only, and say they are the caller's; [] clears it", () => {
    const defaults = { region: ['EU'], status: ['paid'] };
    expect(appliedDashboardFilters(SOURCE, ALIAS, filters, defaults, { region: ['US'] })).toEqual([
      { id: 'region', chosen: true, filter: { member: `${ALIAS}.region`, operator: 'equals', values: ['US'] } },
      { id: 'status', chosen: false, filter: { member: `${ALIAS}.status`, operator: 'equals', values: ['paid'] } },
    ]);
    expect(appliedDashboardFilters(SOURCE, ALIAS, filters, defaults, { region: [], status: [] })).toEqual([]);
  });

  test('filters without values, and widgets over other sources, get nothing', () => {
    expect(appliedDashboardFilters(SOURCE, ALIAS, filters, {})).toEqual([]);
    expect(appliedDashboardFilters('0190c0de-0000-7000-8000-000000000009', 'ds_x', filters, { region: ['EU'], team: ['a'] })).toEqual([]);
  });
});
