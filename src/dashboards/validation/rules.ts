/**
 * The rules of POST /dashboards/validate: each has a stable id and one
 * severity. Errors are what makes a widget fail or show nothing (Cube would
 * refuse the query, or a field matches zero rows); warnings are what works
 * but surprises. The README's rule table is this one.
 */
export const RULES = {
  malformed: {
    severity: 'error',
    when: 'the body or a widget is not the expected shape: not an object, `widgets` not an array or over the bound, a missing or mistyped field, an unknown key, a `queryConfig` nested too deep or too large',
  },
  'findings-truncated': {
    severity: 'error',
    when: 'closes a list cut short: more findings for one widget, or for the request, than are listed (its severity is that of the list it closes)',
  },
  'unknown-source': { severity: 'error', when: '`dataSourceId` is no data source of the organization' },
  'foreign-source': { severity: 'error', when: "`dataSourceId` is another organization's data source" },
  'source-disabled': { severity: 'warning', when: 'the data source is disabled: it answers with the data it held when it was paused' },
  'field-refs': {
    severity: 'error',
    when: "a member the query names (measure, dimension, time dimension, filter at any depth, segment, order) is not in the organization's metadata; the message offers the closest real member",
  },
  'source-mismatch': {
    severity: 'error',
    when: "a member belongs to another of the organization's sources than the widget's `dataSourceId` (sources have no joins: Cube refuses a mix, and dashboard filters and imports follow the widget's source)",
  },
  'member-kind': {
    severity: 'error',
    when: 'a dimension under `measures`, a measure under `dimensions` or `timeDimensions`, a non-time dimension under `timeDimensions`, or a date operator on a non-time member (Cube refuses each)',
  },
  'duplicate-member': { severity: 'warning', when: 'the same member twice in `measures` or `dimensions`, or the same time dimension and granularity twice' },
  'empty-query': { severity: 'error', when: 'no measure, dimension or time dimension with a granularity (Cube refuses such a query)' },
  'chart-type': { severity: 'error', when: '`chartType` is not a known chart type (the message lists them)' },
  'chart-measures': { severity: 'error', when: 'fewer measures than the chart needs (all but `table` need one), or more than it can show (`pie`: one)' },
  'chart-time-dimension': { severity: 'error', when: 'a time-series chart (`line`, `area`) without a time dimension with a granularity' },
  'chart-grouping': { severity: 'error', when: 'a chart that groups (`bar`, `pie`) without a dimension or a time dimension with a granularity' },
  'chart-single-value': { severity: 'warning', when: '`stat-card` with dimensions or a granularity: it shows only the first row' },
  granularity: { severity: 'error', when: 'a granularity Cube does not know (it knows second, minute, hour, day, week, month, quarter, year)' },
  'time-range': {
    severity: 'error',
    when: "a `dateRange` or `timeRange.value` Cube's own date parser rejects, a date range pair that is not two dates, or a `timeRange.type` other than `relative`",
  },
  'time-range-empty': { severity: 'warning', when: 'a date range that ends before it starts (`last 0 days`, `from 2024-03-01 to 2024-01-01`): no rows' },
  'time-range-unused': { severity: 'warning', when: '`timeRange` is set but every time dimension has its own `dateRange`, which wins' },
  timezone: { severity: 'error', when: '`timezone` is not an IANA time zone' },
  'filter-operator': { severity: 'error', when: "a filter's operator is missing or not one of Cube's" },
  'filter-values': {
    severity: 'error',
    when: 'a filter without values whose operator needs them (all but `set`, `notSet`, `measureFilter`); a range date operator (`inDateRange`, `notInDateRange`, `onTheDate`) without exactly two dates, another date operator with more than two; a date operator value that is not a date',
  },
  limit: { severity: 'error', when: '`limit` is not an integer from 1 to 50,000 (the most rows a query answers)' },
  'limit-readable': {
    severity: 'warning',
    when: "`limit` is above the rows the chart can show (chart-types.ts's `readableRows`: line and area 5,000, bar 200, pie 20, stat-card 1, table 1,000)",
  },
  'query-refused': {
    severity: 'error',
    when: 'a mistake the query route refuses with 400 `invalid_query` that no rule above reports at that place: `measureFilter` on a dimension, a text operator on a number or date, a value that does not fit its member (not a number, not a date, not a whole number for a count), an `and`/`or` group mixing measures and dimensions',
  },
  unchecked: { severity: 'error', when: 'a widget (or the body) could not be checked: a defect of the validator, or input that is not JSON; never expected' },
} as const satisfies Record<string, { severity: Severity; when: string }>;

export type Severity = 'error' | 'warning';
export type RuleId = keyof typeof RULES;

/**
 * One problem. `widget` is the widget's index in the request's `widgets`
 * array (0-based; titles need not be unique or even present), or null when
 * the finding is about the body itself. `path` points into the body, such
 * as `widgets[2].queryConfig.filters[0].and[1].member`.
 */
export interface Finding {
  ruleId: RuleId;
  severity: Severity;
  widget: number | null;
  message: string;
  path?: string;
}

/** What POST /dashboards/validate answers (always 200): `ok` when there is no error. */
export interface ValidationResult {
  ok: boolean;
  errors: Finding[];
  warnings: Finding[];
}
