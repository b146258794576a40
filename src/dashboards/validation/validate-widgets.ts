import type { MetaEntry } from '../../analytics/analytics.schemas';
import { checkChartQuery, checkChartType, checkNotEmpty } from './chart-rules';
import { checkFilterValues } from './filter-rules';
import { isObject, MAX_WIDGETS, readWidgets, type WidgetInput } from './input-shape';
import { MemberCatalog } from './member-catalog';
import { checkMembers } from './member-rules';
import { parseQueryConfig } from './query-parse';
import { checkQueryRefusals } from './query-rules';
import { Report, WidgetFindings } from './report';
import type { ValidationResult } from './rules';
import { checkSource, type ValidationSource } from './source-rules';
import { checkDates } from './time-rules';

/**
 * What the rules know of the caller's organization. The route builds it
 * from what it has anyway: the organization's sources (DataSourcesService.list,
 * entities as they are), their metadata (AnalyticsService.meta), and the ids
 * among `foreignSourceIdCandidates(body, sources)` that exist in another
 * organization (one query, at most MAX_WIDGETS ids).
 */
export interface ValidationContext {
  sources: readonly ValidationSource[];
  meta: readonly MetaEntry[];
  /** Data source ids of other organizations the widgets name; without it, such ids are reported as unknown. */
  foreignSourceIds?: ReadonlySet<string>;
  /** The clock of relative date phrases; now when absent. */
  now?: Date;
}

/**
 * The rules of POST /dashboards/validate (the table is `RULES` in rules.ts)
 * over `{widgets: [{title, dataSourceId, queryConfig, chartType?}]}`.
 * Answers for any input, never throws, saves nothing: malformed input is a
 * finding like any other. Bounded work: at most MAX_WIDGETS widgets, each
 * queryConfig bounded in depth and size before it is parsed, hints from a
 * bounded candidate list, and the lists capped (rules.ts, report.ts).
 */
export function validateWidgets(input: unknown, context: ValidationContext): ValidationResult {
  const report = new Report();
  const body = new WidgetFindings(null);
  let widgets: WidgetInput[] = [];
  try {
    widgets = readWidgets(input, body);
  } catch {
    // Only input that is not JSON (getters that throw, proxies) gets here; the route passes parsed JSON.
    body.add('unchecked', 'The body could not be read');
  }
  report.addAll(body);
  const catalog = new MemberCatalog(context.meta);
  const byId = new Map(context.sources.map((s) => [s.id, s]));
  const names = new Map(context.sources.map((s) => [s.servingRelation, s.name]));
  const integers = new Set(
    context.sources.flatMap((s) => [`${s.servingRelation}.count`, ...(s.windowDimensions ?? []).map((w) => `${s.servingRelation}.${w.name}`)]),
  );
  const shared = { catalog, byId, names, context, integers, now: context.now ?? new Date() };
  for (const widget of widgets) {
    try {
      checkWidget(widget, shared);
    } catch {
      // A defect of a rule must not turn into a 500: the widget is reported as unchecked (tests prove random input never gets here).
      widget.findings.add('unchecked', 'This widget could not be checked', ['widgets', widget.index]);
    }
    report.addAll(widget.findings);
  }
  return report.result();
}

interface Shared {
  catalog: MemberCatalog;
  integers: ReadonlySet<string>;
  byId: ReadonlyMap<string, ValidationSource>;
  names: ReadonlyMap<string, string>;
  context: ValidationContext;
  now: Date;
}

function checkWidget(widget: WidgetInput, shared: Shared): void {
  const { findings, index } = widget;
  const widgetPath = ['widgets', index];
  const source =
    widget.dataSourceId === undefined
      ? undefined
      : checkSource(widget.dataSourceId, {
          byId: shared.byId,
          all: shared.context.sources,
          foreignSourceIds: shared.context.foreignSourceIds ?? new Set(),
          findings,
          path: [...widgetPath, 'dataSourceId'],
        });
  const ownAlias = source?.servingRelation;
  const chartType =
    widget.chartType !== undefined && checkChartType(widget.chartType, { findings, widgetPath, dropped: new Set() }) ? widget.chartType : undefined;
  if (!widget.queryConfig) return;
  const { query, dropped, at } = parseQueryConfig(widget.queryConfig, [...widgetPath, 'queryConfig'], findings);
  if (!query) return;
  checkMembers(query, { catalog: shared.catalog, ownAlias, sourceName: (alias) => shared.names.get(alias), findings, at });
  checkDates(query, { findings, at, now: shared.now });
  checkFilterValues(query, { findings, at, now: shared.now });
  const chart = { findings, widgetPath, dropped, timeDimension: ownAlias ? shared.catalog.timeDimensionOf(ownAlias) : undefined };
  if (checkNotEmpty(query, chart) && chartType !== undefined) checkChartQuery(chartType, query, chart);
  // Last: it reports only what no rule above did.
  checkQueryRefusals(query, { catalog: shared.catalog, integers: shared.integers, findings, at, dropped, now: shared.now });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The data source ids the widgets name that are not the organization's and
 * look like ids (UUIDs, lower-cased, so a lookup never fails on a malformed one): the
 * route asks the database which of them exist at all, in any organization,
 * and passes those as `foreignSourceIds`. At most MAX_WIDGETS, deduplicated.
 */
export function foreignSourceIdCandidates(input: unknown, sources: readonly Pick<ValidationSource, 'id'>[]): string[] {
  if (!isObject(input) || !Array.isArray(input.widgets)) return [];
  const own = new Set(sources.map((s) => s.id));
  const ids = new Set<string>();
  for (const widget of input.widgets.slice(0, MAX_WIDGETS)) {
    const id = isObject(widget) ? widget.dataSourceId : undefined;
    if (typeof id === 'string' && UUID.test(id) && !own.has(id.toLowerCase())) ids.add(id.toLowerCase());
  }
  return [...ids];
}
