import type { ApiSchema } from '../../../api/schemas';
import type { MetaEntry, Widget, WidgetQuery } from '../dashboard-api';

/**
 * The query builder's state, pure: what a person has picked (source, measures, dimensions, time, filters, order,
 * limit, chart type, display settings), turned into a widget's queryConfig and displayConfig and back. The rules
 * mirror the API's: operators and their value shapes (src/analytics/analytics.schemas.ts, query-checks.ts),
 * granularities (Cube's), and what each chart type needs (src/dashboards/chart-types.ts; the validate endpoint's
 * chart rules). The console imports no server code, so query-state.test.ts holds these copies to the server's.
 */

export type Operator = Extract<ApiSchema<'AnalyticsFilter'>, { operator: string }>['operator'];
/** The chart types drawn from a query: a `text` widget (Markdown, no source) has nothing for the builder to build. */
export type ChartTypeName = Exclude<ApiSchema<'Widget'>['chartType'], 'text'>;

export const isBuilderChart = (chartType: string): chartType is ChartTypeName => Object.hasOwn(CHART_RULES, chartType);

/** What a filter's values look like: none, one, any number (at least one), or a pair of dates. */
type Arity = 'none' | 'one' | 'many' | 'pair';
/** The kinds of member an operator applies to: a measure, or a dimension of its type (the meta's `type`). */
type Kind = 'measure' | 'number' | 'string' | 'time';

interface OperatorRule {
  label: string;
  arity: Arity;
  kinds: readonly Kind[];
}

const ALL: readonly Kind[] = ['measure', 'number', 'string', 'time'];
const COMPARED: readonly Kind[] = ['measure', 'number', 'string'];
const NUMERIC: readonly Kind[] = ['measure', 'number'];
const TEXT: readonly Kind[] = ['string'];
const DATE: readonly Kind[] = ['time'];

/**
 * Every operator the API accepts (a Record over the generated type: one missing fails the typecheck), with what it
 * applies to as query-checks.ts refuses the rest: text operators on strings only, date operators on the time
 * dimension only, measureFilter on measures only.
 */
export const OPERATORS: Record<Operator, OperatorRule> = {
  equals: { label: 'equals', arity: 'many', kinds: COMPARED },
  notEquals: { label: 'does not equal', arity: 'many', kinds: COMPARED },
  in: { label: 'is one of', arity: 'many', kinds: COMPARED },
  notIn: { label: 'is none of', arity: 'many', kinds: COMPARED },
  contains: { label: 'contains', arity: 'many', kinds: TEXT },
  notContains: { label: 'does not contain', arity: 'many', kinds: TEXT },
  startsWith: { label: 'starts with', arity: 'many', kinds: TEXT },
  notStartsWith: { label: 'does not start with', arity: 'many', kinds: TEXT },
  endsWith: { label: 'ends with', arity: 'many', kinds: TEXT },
  notEndsWith: { label: 'does not end with', arity: 'many', kinds: TEXT },
  gt: { label: 'is greater than', arity: 'one', kinds: NUMERIC },
  gte: { label: 'is at least', arity: 'one', kinds: NUMERIC },
  lt: { label: 'is less than', arity: 'one', kinds: NUMERIC },
  lte: { label: 'is at most', arity: 'one', kinds: NUMERIC },
  set: { label: 'is set', arity: 'none', kinds: ALL },
  notSet: { label: 'is not set', arity: 'none', kinds: ALL },
  inDateRange: { label: 'is between', arity: 'pair', kinds: DATE },
  notInDateRange: { label: 'is not between', arity: 'pair', kinds: DATE },
  onTheDate: { label: 'is on', arity: 'one', kinds: DATE },
  beforeDate: { label: 'is before', arity: 'one', kinds: DATE },
  beforeOrOnDate: { label: 'is on or before', arity: 'one', kinds: DATE },
  afterDate: { label: 'is after', arity: 'one', kinds: DATE },
  afterOrOnDate: { label: 'is on or after', arity: 'one', kinds: DATE },
  measureFilter: { label: "applies the measure's own filter", arity: 'none', kinds: ['measure'] },
};
export const OPERATOR_NAMES = Object.keys(OPERATORS) as Operator[];

/** Cube's granularities, as the query route and the validate endpoint accept them (CUBE_GRANULARITIES). */
export const GRANULARITIES = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

/** Relative date ranges offered first; any phrase Cube's parser reads is kept (a widget's own shows as one more choice). */
export const DATE_RANGE_PHRASES = [
  'today',
  'yesterday',
  'last 7 days',
  'last 30 days',
  'last 90 days',
  'this week',
  'this month',
  'last month',
  'this quarter',
  'this year',
  'last year',
  'last 12 months',
];

/** Largest `limit` the query route takes (MAX_QUERY_ROWS). */
export const MAX_LIMIT = 50_000;

/** What a chart type needs from its query: chart-types.ts's table without the grid sizes and the summaries. */
export interface ChartRule {
  label: string;
  minMeasures: number;
  maxMeasures?: number;
  timeSeries: boolean;
  needsGrouping: boolean;
  singleValue: boolean;
  readableRows: number;
}

export const CHART_RULES: Record<ChartTypeName, ChartRule> = {
  line: { label: 'Line', minMeasures: 1, timeSeries: true, needsGrouping: true, singleValue: false, readableRows: 5_000 },
  area: { label: 'Area', minMeasures: 1, timeSeries: true, needsGrouping: true, singleValue: false, readableRows: 5_000 },
  bar: { label: 'Bar', minMeasures: 1, timeSeries: false, needsGrouping: true, singleValue: false, readableRows: 200 },
  pie: { label: 'Pie', minMeasures: 1, maxMeasures: 1, timeSeries: false, needsGrouping: true, singleValue: false, readableRows: 20 },
  'stat-card': { label: 'Stat card', minMeasures: 1, timeSeries: false, needsGrouping: false, singleValue: true, readableRows: 1 },
  table: { label: 'Table', minMeasures: 0, timeSeries: false, needsGrouping: false, singleValue: false, readableRows: 1_000 },
};
export const CHART_NAMES = Object.keys(CHART_RULES) as ChartTypeName[];

export interface FilterRow {
  /** Stable across edits, for React keys and element ids. */
  key: number;
  member: string;
  operator: Operator;
  values: string[];
}

export type DateRange = { kind: 'none' } | { kind: 'phrase'; phrase: string } | { kind: 'between'; from: string; to: string };

export type Tristate = 'auto' | 'on' | 'off';

export interface BuilderState {
  title: string;
  chartType: ChartTypeName;
  dataSourceId: string;
  measures: string[];
  dimensions: string[];
  /** The time dimension ('' none), its granularity ('' none: the range only bounds the query) and its date range. */
  time: { dimension: string; granularity: string; range: DateRange };
  filters: FilterRow[];
  order: Array<{ member: string; direction: 'asc' | 'desc' }>;
  /** '' for none (the API's default), else the digits typed. */
  limit: string;
  display: { legend: Tristate; stacked: Tristate; currency: string };
  /** Parts of a saved queryConfig the builder does not edit (and/or groups, segments, timeRange…), saved back as they were. */
  keptQuery: Record<string, unknown>;
  /** displayConfig keys the builder does not edit. */
  keptDisplay: Record<string, unknown>;
}

export const emptyState = (): BuilderState => ({
  title: '',
  chartType: 'bar',
  dataSourceId: '',
  measures: [],
  dimensions: [],
  time: { dimension: '', granularity: '', range: { kind: 'none' } },
  filters: [],
  order: [],
  limit: '',
  display: { legend: 'auto', stacked: 'auto', currency: '' },
  keptQuery: {},
  keptDisplay: {},
});

/** A new source starts the query over: members of two sources cannot be queried together. */
export function withSource(state: BuilderState, dataSourceId: string): BuilderState {
  const fresh = emptyState();
  return { ...fresh, title: state.title, chartType: state.chartType, display: state.display, keptDisplay: state.keptDisplay, dataSourceId };
}

/** A member toggled in a list; a member leaving the query leaves the order too. */
export function toggled(state: BuilderState, list: 'measures' | 'dimensions', member: string, on: boolean): BuilderState {
  const next = on ? [...state[list].filter((m) => m !== member), member] : state[list].filter((m) => m !== member);
  return pruneOrder({ ...state, [list]: next });
}

export function withTime(state: BuilderState, time: Partial<BuilderState['time']>): BuilderState {
  const next = { ...state.time, ...time };
  if (!next.dimension) next.granularity = '';
  return pruneOrder({ ...state, time: next });
}

/** Members that can be ordered by: those the query names (a time dimension by its granularity, as Cube orders it). */
export function orderable(state: BuilderState): string[] {
  const time = state.time.dimension && state.time.granularity ? [state.time.dimension] : [];
  return [...state.dimensions, ...time, ...state.measures];
}

function pruneOrder(state: BuilderState): BuilderState {
  const members = new Set(orderable(state));
  const order = state.order.filter((o) => members.has(o.member));
  return order.length === state.order.length ? state : { ...state, order };
}

/** The kind of a member of the source's metadata: a measure, a dimension's type, or undefined for one it does not have. */
export function memberKind(meta: MetaEntry | undefined, member: string): Kind | undefined {
  if (meta?.measures.some((m) => m.name === member)) return 'measure';
  const type = meta?.dimensions.find((d) => d.name === member)?.type;
  return type === 'number' || type === 'time' ? type : type === undefined ? undefined : 'string';
}

/** The operators a member may take; every operator when the member is unknown (the API then says what is wrong). */
export function operatorsFor(kind: Kind | undefined): Operator[] {
  return kind ? OPERATOR_NAMES.filter((o) => OPERATORS[o].kinds.includes(kind)) : OPERATOR_NAMES;
}

export const arityOf = (operator: Operator): Arity => OPERATORS[operator].arity;

/** A filter moved to another member or operator keeps what still fits: its operator if allowed, values of its shape. */
export function reshapeFilter(filter: FilterRow, kind: Kind | undefined, change: { member?: string; operator?: Operator }): FilterRow {
  const member = change.member ?? filter.member;
  const allowed = operatorsFor(kind);
  const operator = change.operator ?? (allowed.includes(filter.operator) ? filter.operator : allowed[0]);
  const memberChanged = member !== filter.member;
  let values = memberChanged ? [] : filter.values;
  const arity = arityOf(operator);
  if (arity === 'none') values = [];
  else if (arity === 'one') values = values.slice(0, 1);
  else if (arity === 'pair') values = values.length === 2 ? values : [];
  return { ...filter, member, operator, values };
}

/** Why a filter row cannot be sent yet, or undefined when it can. */
export function filterProblem(filter: FilterRow): string | undefined {
  if (!filter.member) return 'Choose a field to filter on';
  const arity = arityOf(filter.operator);
  const filled = filter.values.filter((v) => v.trim() !== '');
  if (arity === 'one' && filled.length !== 1) return 'Give a value';
  if (arity === 'many' && filled.length === 0) return 'Give at least one value';
  if (arity === 'pair' && filled.length !== 2) return 'Give both dates';
  return undefined;
}

/** Why the date range cannot be sent, or undefined. */
export function rangeProblem(range: DateRange): string | undefined {
  if (range.kind === 'between' && (!range.from || !range.to)) return 'Give both dates of the range';
  if (range.kind === 'between' && range.from > range.to) return 'The range ends before it starts';
  if (range.kind === 'phrase' && !range.phrase.trim()) return 'Give a date range';
  return undefined;
}

export function limitProblem(limit: string): string | undefined {
  if (limit === '') return undefined;
  const n = Number(limit);
  return Number.isInteger(n) && n >= 1 && n <= MAX_LIMIT ? undefined : `The limit is a whole number from 1 to ${MAX_LIMIT.toLocaleString('en-US')}`;
}

const granular = (s: BuilderState) => Boolean(s.time.dimension && s.time.granularity);

/**
 * Why `chartType` cannot draw the query as it stands (the validate endpoint's chart rules, worded for the picker),
 * or an empty list. A stat card of a grouped query is allowed, as the API allows it: only its first row is shown.
 */
export function chartProblems(chartType: ChartTypeName, s: BuilderState): string[] {
  const rule = CHART_RULES[chartType];
  const name = rule.label.toLowerCase();
  const A = /^[aeiou]/.test(name) ? 'An' : 'A';
  const problems: string[] = [];
  if (s.measures.length < rule.minMeasures) problems.push(`${A} ${name} chart needs a measure`);
  if (rule.maxMeasures !== undefined && s.measures.length > rule.maxMeasures)
    problems.push(`${A} ${name} chart shows one measure; the query has ${s.measures.length}`);
  if (rule.timeSeries && !granular(s)) problems.push(`${A} ${name} chart needs a time dimension with a granularity for its x axis`);
  else if (rule.needsGrouping && !granular(s) && s.dimensions.length === 0)
    problems.push(`${A} ${name} chart needs something to group by: a dimension, or a time dimension with a granularity`);
  if (chartType === 'table' && s.measures.length === 0 && s.dimensions.length === 0 && !granular(s)) problems.push('A table needs a measure or a dimension');
  return problems;
}

/** Notes on a chart that can be drawn but may surprise (the validate endpoint's warnings). */
export function chartNotes(chartType: ChartTypeName, s: BuilderState): string[] {
  const rule = CHART_RULES[chartType];
  const notes: string[] = [];
  if (rule.singleValue && (s.dimensions.length > 0 || granular(s)))
    notes.push('A stat card shows one number: only the first row of this grouped query is shown');
  const limit = Number(s.limit);
  if (s.limit !== '' && limit > rule.readableRows)
    notes.push(
      `${limit.toLocaleString('en-US')} rows are more than a ${rule.label.toLowerCase()} chart shows readably (${rule.readableRows.toLocaleString('en-US')})`,
    );
  return notes;
}

/** Everything that keeps the query from being sent as it stands: incomplete filters, range or limit. */
export function queryProblems(s: BuilderState): string[] {
  const problems: string[] = [];
  if (!s.dataSourceId) problems.push('Choose a data source');
  else if (s.measures.length === 0 && s.dimensions.length === 0 && !granular(s))
    problems.push('Choose a measure, a dimension, or a time dimension with a granularity');
  s.filters.forEach((f, i) => {
    const p = filterProblem(f);
    if (p) problems.push(`Filter ${i + 1}: ${p}`);
  });
  if (s.time.dimension) {
    const p = rangeProblem(s.time.range);
    if (p) problems.push(p);
  }
  const l = limitProblem(s.limit);
  if (l) problems.push(l);
  return problems;
}

/** The widget's queryConfig (interface.md 2.9): what the builder holds, plus the parts it kept as they were. */
export function toQueryConfig(s: BuilderState): WidgetQuery {
  const q: WidgetQuery = { ...s.keptQuery, measures: [...s.measures], dimensions: [...s.dimensions] };
  const keptTimes = Array.isArray(s.keptQuery.timeDimensions) ? (s.keptQuery.timeDimensions as WidgetQuery['timeDimensions'] & object) : [];
  if (s.time.dimension) {
    const t: NonNullable<WidgetQuery['timeDimensions']>[number] = { dimension: s.time.dimension };
    // A stat card is one number: its time dimension only bounds it.
    if (s.time.granularity && s.chartType !== 'stat-card') t.granularity = s.time.granularity;
    const r = s.time.range;
    if (r.kind === 'phrase') t.dateRange = r.phrase.trim();
    if (r.kind === 'between') t.dateRange = [r.from, r.to];
    q.timeDimensions = [t, ...keptTimes];
  } else if (keptTimes.length > 0) q.timeDimensions = keptTimes;
  else delete q.timeDimensions;
  const keptFilters = Array.isArray(s.keptQuery.filters) ? (s.keptQuery.filters as unknown[]) : [];
  const filters = s.filters.map((f) => {
    const arity = arityOf(f.operator);
    const values = f.values.map((v) => v.trim()).filter((v) => v !== '');
    return arity === 'none' ? { member: f.member, operator: f.operator } : { member: f.member, operator: f.operator, values };
  });
  if (filters.length + keptFilters.length > 0) q.filters = [...filters, ...keptFilters];
  else delete q.filters;
  if (s.order.length > 0) q.order = s.order.map((o) => [o.member, o.direction]);
  else delete q.order;
  if (s.limit !== '') q.limit = Number(s.limit);
  else delete q.limit;
  return q;
}

/** The widget's displayConfig: the settings changed from their defaults, plus the keys the builder does not edit. */
export function toDisplayConfig(s: BuilderState): Record<string, unknown> {
  const d: Record<string, unknown> = { ...s.keptDisplay };
  const keptLegend = typeof d.legend === 'object' && d.legend !== null ? d.legend : {};
  if (s.display.legend !== 'auto') d.legend = { ...keptLegend, show: s.display.legend === 'on' };
  if (s.display.stacked !== 'auto') d.stacked = s.display.stacked === 'on';
  const currency = s.display.currency.trim().toUpperCase();
  if (/^[A-Z]{3}$/.test(currency)) d.currency = currency;
  return d;
}

/** The widget as the shared chart module draws it, from the builder's state. */
export function previewWidget(s: BuilderState) {
  return { title: s.title || 'Preview', chartType: s.chartType, queryConfig: toQueryConfig(s), displayConfig: toDisplayConfig(s) };
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const tristate = (v: unknown): Tristate => (v === true ? 'on' : v === false ? 'off' : 'auto');

/**
 * The builder's state of a saved widget. What it cannot show as its controls (a second time dimension, and/or
 * groups, segments, a timeRange, offset, ungrouped, a timezone, order in a shape it does not know) is kept as it was.
 */
export function fromWidget(widget: Pick<Widget, 'title' | 'chartType' | 'dataSourceId' | 'queryConfig' | 'displayConfig'>): BuilderState {
  if (!isBuilderChart(widget.chartType)) throw new Error(`A ${widget.chartType} widget has no query to build`);
  const { measures, dimensions, timeDimensions, filters, order, limit, ...rest } = (widget.queryConfig ?? {}) as WidgetQuery & Record<string, unknown>;
  const kept: Record<string, unknown> = { ...rest };
  const s = emptyState();
  s.title = widget.title;
  s.chartType = widget.chartType;
  s.dataSourceId = widget.dataSourceId ?? '';
  s.measures = isStringList(measures) ? measures : [];
  s.dimensions = isStringList(dimensions) ? dimensions : [];

  const times = Array.isArray(timeDimensions) ? timeDimensions : [];
  const [first, ...otherTimes] = times;
  if (first && typeof first.dimension === 'string') {
    const r = first.dateRange;
    const range: DateRange =
      typeof r === 'string' ? { kind: 'phrase', phrase: r } : Array.isArray(r) && r.length === 2 ? { kind: 'between', from: r[0], to: r[1] } : { kind: 'none' };
    s.time = { dimension: first.dimension, granularity: typeof first.granularity === 'string' ? first.granularity : '', range };
  }
  if (otherTimes.length > 0) kept.timeDimensions = otherTimes;

  let key = 0;
  const keptFilters: unknown[] = [];
  for (const f of Array.isArray(filters) ? filters : []) {
    const leaf = f as { member?: unknown; dimension?: unknown; operator?: unknown; values?: unknown };
    const member = typeof leaf.member === 'string' ? leaf.member : typeof leaf.dimension === 'string' ? leaf.dimension : undefined;
    if (member !== undefined && typeof leaf.operator === 'string' && leaf.operator in OPERATORS) {
      const values = Array.isArray(leaf.values) ? leaf.values.map((v) => (v === null ? '' : String(v))) : [];
      s.filters.push({ key: ++key, member, operator: leaf.operator as Operator, values });
    } else keptFilters.push(f);
  }
  if (keptFilters.length > 0) kept.filters = keptFilters;

  if (Array.isArray(order) && order.every((o) => Array.isArray(o) && typeof o[0] === 'string' && (o[1] === 'asc' || o[1] === 'desc')))
    s.order = (order as Array<[string, 'asc' | 'desc']>).map(([member, direction]) => ({ member, direction }));
  else if (order && typeof order === 'object' && !Array.isArray(order) && Object.values(order).every((d) => d === 'asc' || d === 'desc'))
    s.order = Object.entries(order as Record<string, 'asc' | 'desc'>).map(([member, direction]) => ({ member, direction }));
  else if (order !== undefined) kept.order = order;
  if (typeof limit === 'number') s.limit = String(limit);

  const { legend, stacked, currency, ...otherDisplay } = (widget.displayConfig ?? {}) as Record<string, unknown>;
  const show = legend !== null && typeof legend === 'object' ? (legend as Record<string, unknown>).show : undefined;
  s.display = { legend: tristate(show), stacked: tristate(stacked), currency: typeof currency === 'string' ? currency : '' };
  // A legend object with more than `show` in it stays whole.
  if (legend !== undefined && (typeof show !== 'boolean' || Object.keys(legend as object).length > 1)) otherDisplay.legend = legend;
  if (stacked !== undefined && typeof stacked !== 'boolean') otherDisplay.stacked = stacked;
  if (currency !== undefined && typeof currency !== 'string') otherDisplay.currency = currency;
  s.keptDisplay = otherDisplay;
  s.keptQuery = kept;
  return s;
}

/** Names of the kept parts, for the note that says they are saved as they were. */
export function keptParts(s: BuilderState): string[] {
  const names: Record<string, string> = {
    timeDimensions: 'more time dimensions',
    filters: 'and/or filter groups',
    segments: 'segments',
    timeRange: 'a time range',
    timezone: 'a time zone',
    offset: 'an offset',
    ungrouped: 'ungrouped rows',
    order: 'an order',
  };
  return Object.keys(s.keptQuery).map((k) => names[k] ?? k);
}
