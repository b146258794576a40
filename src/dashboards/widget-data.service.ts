import type { Writable } from 'node:stream';
import { AnalyticsQuery } from '../analytics/analytics.schemas';
import { type AnalyticsService, EMPTY_ANNOTATION } from '../analytics/analytics.service';
import { toCubeQuery } from '../analytics/query-members';
import type { AnalyticsSource } from '../data-sources/analytics-source.entity';
import { timeField } from '../data-sources/serving-relation';
import { Semaphore } from '../lib/semaphore';
import { AppError, NotFoundError, ValidationError } from '../errors/errors';
import { toFieldIssues } from '../http/validation';
import type { Logger } from '../logging/logger';
import { appliedDashboardFilters, unknownFilterKeys } from './dashboard-filters';
import type { DashboardWidget } from './dashboard-widget.entity';
import type { Dashboard } from './dashboard.entity';
import type { DashboardsRepository } from './dashboards.repository';
import type { WidgetDataInput } from './dashboards.schemas';
import { type DataWidget, isDataWidget, type WidgetSources } from './widget-sources';
import { foreignMembers, widgetPlaces, widgetQuery, widgetTimeZone } from './widget-query';

/**
 * Widgets of one dashboard run at once by the all-widgets call. Each query
 * still waits its turn in AnalyticsService's fair scheduler, which bounds
 * what one organization runs on Cube's pool; this only keeps one dashboard
 * from filling the organization's waiting line on its own.
 */
export const WIDGETS_AT_ONCE = 4;

export type WidgetResult = Awaited<ReturnType<AnalyticsService['query']>>;
export type WidgetEntry = ({ widgetId: string } & WidgetResult) | { widgetId: string; error: { code: string; message: string } };

/**
 * A widget's data: its saved query run through the same path as
 * POST /dashboards/analytics/query (AnalyticsService.query), with the
 * dashboard's filter values, the widget's timeRange and the zone of
 * widgetTimeZone, answered in that route's shape. The widget's source is
 * resolved first, by WidgetSources.readable (rule 7.3's hook).
 */
export class WidgetDataService {
  constructor(
    private readonly repository: DashboardsRepository,
    private readonly sources: WidgetSources,
    private readonly analytics: AnalyticsService,
    private readonly logger: Logger,
  ) {}

  /** One widget's data; its errors are the call's. */
  async widget(organizationId: string, widgetId: string, input: WidgetDataInput): Promise<WidgetResult> {
    const { dashboard, widget, source } = await this.locate(organizationId, widgetId, input);
    return this.run(organizationId, dashboard, widget, source, input);
  }

  /** A widget of the organization, its dashboard (checking the caller's filter ids against it) and its readable source. */
  private async locate(organizationId: string, widgetId: string, input: WidgetDataInput) {
    const widget = await this.repository.findWidget(organizationId, widgetId);
    if (!widget) throw new NotFoundError('Widget');
    if (!isDataWidget(widget)) {
      throw new ValidationError(
        `Widget "${widget.title}" (${widget.id}) is a ${widget.chartType} widget: it has no query, so no data`,
        undefined,
        'widget_has_no_data',
      );
    }
    const dashboard = await this.repository.find(organizationId, widget.dashboardId);
    if (!dashboard) throw new NotFoundError('Widget');
    checkFilterValues(dashboard, input);
    const source = (await this.sources.readable(organizationId, [widget])).get(widget.id)!;
    if (source instanceof AppError) throw source;
    return { dashboard, widget, source };
  }

  /**
   * Every widget of the dashboard with a query, oldest first, run
   * WIDGETS_AT_ONCE at a time (text widgets have no entry: they have no
   * data). A widget that fails has `error` in its entry and the others still
   * answer; only a problem of the call itself (no such dashboard, an unknown
   * filter id) fails it whole.
   */
  async dashboard(organizationId: string, dashboardId: string, input: WidgetDataInput): Promise<{ timezone: string; widgets: WidgetEntry[] }> {
    const found = await this.repository.findWithWidgets(organizationId, dashboardId);
    if (!found) throw new NotFoundError('Dashboard');
    const { dashboard } = found;
    const widgets = found.widgets.filter(isDataWidget);
    checkFilterValues(dashboard, input);
    const sources = await this.sources.readable(organizationId, widgets);
    const turns = new Semaphore(WIDGETS_AT_ONCE);
    const entries = await Promise.all(
      widgets.map((widget) =>
        turns.run(async (): Promise<WidgetEntry> => {
          try {
            const source = sources.get(widget.id)!;
            if (source instanceof AppError) throw source;
            return { widgetId: widget.id, ...(await this.run(organizationId, dashboard, widget, source, input)) };
          } catch (err) {
            return { widgetId: widget.id, error: this.entryError(organizationId, widget, err) };
          }
        }),
      ),
    );
    return { timezone: widgetTimeZone(dashboard.timezone, input.timezone), widgets: entries };
  }

  /**
   * Every row of a widget's query as CSV, the query exactly as its data call
   * runs it (the dashboard's filter values, its timeRange, the zone), so the
   * export and the tile always agree. `attachment` starts the answer, named from the widget's title.
   */
  async exportCsv(organizationId: string, widgetId: string, input: WidgetDataInput, attachment: (title: string) => () => Writable): Promise<void> {
    const { dashboard, widget, source } = await this.locate(organizationId, widgetId, input);
    const { query, at } = this.queryOf(dashboard, widget, source, input);
    await this.analytics.exportCsv(organizationId, query, { start: attachment(widget.title) }, at);
  }

  private async run(organizationId: string, dashboard: Dashboard, widget: DataWidget, source: AnalyticsSource, input: WidgetDataInput) {
    const { query, at, alias } = this.queryOf(dashboard, widget, source, input);
    const foreign = foreignMembers(query, alias);
    if (foreign.length > 0) {
      // Fields of no source, or of another one than the widget's: they match nothing (interface.md 7.2), as a typo would.
      const cubeQuery = toCubeQuery(query, (a) => (a === alias ? `${alias}.${timeField(source.recordSchema)}` : undefined));
      return { data: [], annotation: EMPTY_ANNOTATION, query: cubeQuery, unknownMembers: foreign };
    }
    // A query the analytics path refuses is 400 invalid_query naming the place in the widget or in the dashboard's filters.
    return this.analytics.query(organizationId, query, at);
  }

  /** The query a widget runs: its saved one, the dashboard's filters applied, in the zone of widgetTimeZone; and where each part came from. */
  private queryOf(dashboard: Dashboard, widget: DataWidget, source: AnalyticsSource, input: WidgetDataInput) {
    // Saved through AnalyticsQuery, so this holds; read again in case a stored query predates a change to its schema.
    const saved = AnalyticsQuery.safeParse(widget.queryConfig);
    if (!saved.success) {
      throw new ValidationError(
        `Widget "${widget.title}" (${widget.id}) has a query that is no longer valid; save a new queryConfig`,
        toFieldIssues(saved.error, ['queryConfig']),
        'invalid_query',
      );
    }
    const alias = source.servingRelation;
    const applied = appliedDashboardFilters(source.id, alias, dashboard.filterConfig, dashboard.filterDefaults, input.filters);
    const query = widgetQuery(
      saved.data,
      applied.map((a) => a.filter),
      widgetTimeZone(dashboard.timezone, input.timezone, saved.data.timezone),
    );
    return { query, alias, at: widgetPlaces(saved.data.filters.length, applied) };
  }

  /** What a failed widget's entry says: an application error as it would be answered, anything else as the opaque 500 (logged). */
  private entryError(organizationId: string, widget: DashboardWidget, err: unknown): { code: string; message: string } {
    if (err instanceof AppError) return { code: err.code, message: err.message };
    this.logger.error(
      { organizationId, widgetId: widget.id, err: err instanceof Error ? { type: err.name, message: err.message } : String(err) },
      'widget data failed',
    );
    return { code: 'internal_error', message: 'Internal server error' };
  }
}

/** The caller's filter values must be keyed by filter ids of the dashboard (400 naming each other key). */
export function checkFilterValues(dashboard: Dashboard, input: WidgetDataInput): void {
  if (!input.filters) return;
  const issues = unknownFilterKeys(input.filters, dashboard.filterConfig, 'filters');
  if (issues.length > 0) throw new ValidationError('filters names filters this dashboard does not have', issues);
}
