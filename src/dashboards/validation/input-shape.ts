import { isDataless } from '../chart-types';
import { describe, MAX_ECHO, type PathSegment, quote, WidgetFindings } from './report';

/** Widgets one request may check; past it the request is malformed and only the first ones are checked. */
export const MAX_WIDGETS = 200;
export const MAX_TITLE = 200;
export const MAX_SOURCE_ID = 100;
export const MAX_CHART_TYPE = 50;
/** A `queryConfig` deeper than this (filters nest about ten `and`/`or` levels) or with more values is refused before it is parsed. */
export const MAX_QUERY_DEPTH = 24;
export const MAX_QUERY_NODES = 5_000;
/** Unknown keys named one by one in an object; the rest are counted. */
const MAX_KEYS_NAMED = 5;

/** Keys a widget may carry: the ones validate reads, plus the rest of a widget as GET /dashboards/{id} shows it (ignored). */
const READ_KEYS = new Set(['title', 'dataSourceId', 'queryConfig', 'chartType', 'displayConfig']);
const IGNORED_KEYS = new Set(['id', 'suid', 'organizationId', 'dashboardId', 'createdAt', 'updatedAt']);

/** One widget as far as its shape allowed: a field that is missing or mistyped is absent here, and reported. */
export interface WidgetInput {
  index: number;
  findings: WidgetFindings;
  title?: string;
  dataSourceId?: string;
  chartType?: string;
  queryConfig?: Record<string, unknown>;
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads `{widgets: [...]}`: what is wrong with the body itself goes to
 * `body`, what is wrong with one widget to that widget's findings. Never
 * throws; the widgets whose fields could be read come back for the rules.
 */
export function readWidgets(input: unknown, body: WidgetFindings): WidgetInput[] {
  if (!isObject(input)) {
    body.add('malformed', `The body must be an object {widgets: [...]}, received ${describe(input)}`);
    return [];
  }
  unknownKeys(input, new Set(['widgets']), [], body);
  const widgets = input.widgets;
  if (widgets === undefined) {
    body.add('malformed', 'widgets is missing: send {widgets: [{title, dataSourceId, queryConfig, chartType?}]}', ['widgets']);
    return [];
  }
  if (!Array.isArray(widgets)) {
    body.add('malformed', `widgets must be an array, received ${describe(widgets)}`, ['widgets']);
    return [];
  }
  if (widgets.length > MAX_WIDGETS) {
    body.add('malformed', `widgets has ${widgets.length} items, at most ${MAX_WIDGETS} are checked at once; the first ${MAX_WIDGETS} are checked`, ['widgets']);
  }
  return widgets.slice(0, MAX_WIDGETS).map((raw, index) => readWidget(raw, index));
}

function readWidget(raw: unknown, index: number): WidgetInput {
  const findings = new WidgetFindings(index);
  const widget: WidgetInput = { index, findings };
  const at = (...path: PathSegment[]) => ['widgets', index, ...path];
  if (!isObject(raw)) {
    findings.add('malformed', `A widget must be an object {title, dataSourceId, queryConfig, chartType?}, received ${describe(raw)}`, at());
    return widget;
  }
  unknownKeys(raw, new Set([...READ_KEYS, ...IGNORED_KEYS]), at(), findings);
  widget.title = text(raw, 'title', MAX_TITLE, at('title'), findings, true);
  if (typeof raw.chartType === 'string' && isDataless(raw.chartType)) {
    // A text tile: Markdown only, nothing to check against the sources.
    for (const key of ['dataSourceId', 'queryConfig']) {
      if (raw[key] !== undefined) findings.add('malformed', `A ${raw.chartType} widget has no ${key}: leave it out`, at(key));
    }
    widget.chartType = raw.chartType;
    return widget;
  }
  widget.dataSourceId = text(raw, 'dataSourceId', MAX_SOURCE_ID, at('dataSourceId'), findings, true);
  widget.chartType = text(raw, 'chartType', MAX_CHART_TYPE, at('chartType'), findings, false);
  if (raw.displayConfig !== undefined && !isObject(raw.displayConfig)) {
    findings.add('malformed', `displayConfig must be an object, received ${describe(raw.displayConfig)}`, at('displayConfig'));
  }
  const query = raw.queryConfig;
  if (query === undefined) findings.add('malformed', 'queryConfig is missing', at('queryConfig'));
  else if (!isObject(query)) findings.add('malformed', `queryConfig must be an object, received ${describe(query)}`, at('queryConfig'));
  else {
    const problem = sizeProblem(query);
    if (problem) findings.add('malformed', `queryConfig ${problem.message}`, at('queryConfig', ...problem.path));
    else widget.queryConfig = query;
  }
  return widget;
}

/** A string field: missing (when required), not a string, empty or too long are each reported. */
function text(raw: Record<string, unknown>, key: string, max: number, path: PathSegment[], findings: WidgetFindings, required: boolean): string | undefined {
  const value = raw[key];
  if (value === undefined) {
    if (required) findings.add('malformed', `${key} is missing`, path);
    return undefined;
  }
  if (typeof value !== 'string') findings.add('malformed', `${key} must be a string, received ${describe(value)}`, path);
  else if (value.trim() === '') findings.add('malformed', `${key} must not be empty`, path);
  else if (value.length > max) findings.add('malformed', `${key} is ${value.length} characters long, at most ${max}`, path);
  else return value;
  return undefined;
}

function unknownKeys(raw: Record<string, unknown>, allowed: ReadonlySet<string>, path: PathSegment[], findings: WidgetFindings): void {
  const unknown = Object.keys(raw).filter((k) => !allowed.has(k));
  for (const key of unknown.slice(0, MAX_KEYS_NAMED)) findings.add('malformed', `Unknown key ${quote(key)}`, [...path, key.slice(0, MAX_ECHO)]);
  if (unknown.length > MAX_KEYS_NAMED) findings.add('malformed', `${unknown.length - MAX_KEYS_NAMED} more unknown keys`, path);
}

/**
 * Whether a value is too deep or too large to parse: checked without
 * recursion (so depth cannot overflow the stack) and stopping at the bound
 * (so the work is bounded by it, not by the input).
 */
function sizeProblem(root: unknown): { path: PathSegment[]; message: string } | undefined {
  const stack: Array<{ value: unknown; path: PathSegment[] }> = [{ value: root, path: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (path.length > MAX_QUERY_DEPTH) return { path, message: `is nested more than ${MAX_QUERY_DEPTH} levels deep` };
    if (typeof value !== 'object' || value === null) continue;
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    nodes += keys ? keys.length : (value as unknown[]).length;
    if (nodes > MAX_QUERY_NODES) return { path: [], message: `holds more than ${MAX_QUERY_NODES} values` };
    if (keys) for (const key of keys) stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
    else (value as unknown[]).forEach((child, i) => stack.push({ value: child, path: [...path, i] }));
  }
  return undefined;
}
