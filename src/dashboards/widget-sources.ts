import type { AnalyticsSource } from '../data-sources/analytics-source.entity';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import { type FieldIssue, ValidationError } from '../errors/errors';
import type { DashboardWidget } from './dashboard-widget.entity';
import type { DashboardsRepository } from './dashboards.repository';

/** A data source id in a request, and the field that names it. */
export interface SourceRef {
  id: string;
  path: string;
}

export type WidgetRef = Pick<DashboardWidget, 'id' | 'title'> & { dataSourceId: string };

/** A widget with a data source: every chart type but `text` (widgetKindIssues in dashboards.schemas.ts, and the table's check). */
export type DataWidget = DashboardWidget & { dataSourceId: string; queryConfig: NonNullable<DashboardWidget['queryConfig']> };
export const isDataWidget = (w: DashboardWidget): w is DataWidget => w.dataSourceId !== null && w.queryConfig !== null;

/** 400 widget_source_unavailable: the widget exists, but its data cannot be read from its source any more. */
export class WidgetSourceUnavailableError extends ValidationError {
  constructor(widget: WidgetRef, reason: string) {
    super(
      `Widget "${widget.title}" (${widget.id}) cannot be read: ${reason}; point it at another data source`,
      [{ path: 'dataSourceId', message: reason }],
      'widget_source_unavailable',
    );
  }
}

/**
 * Which data sources dashboards may use, on both sides: a write (a widget's
 * or a filter's dataSourceId) must name a source of the caller's
 * organization, and a widget's data is read only through `readable`.
 */
export class WidgetSources {
  constructor(
    private readonly dataSources: DataSourcesService,
    private readonly repository: DashboardsRepository,
  ) {}

  /**
   * Every ref must name a data source of the organization; otherwise one 400
   * naming each bad field: `foreign_data_source` when a source with that id
   * belongs to another organization (interface.md 4.3), `unknown_data_source`
   * when none exists at all.
   */
  async assertOwn(organizationId: string, refs: readonly SourceRef[]): Promise<void> {
    if (refs.length === 0) return;
    const own = await this.dataSources.findOwn(
      organizationId,
      refs.map((r) => r.id),
    );
    const bad = refs.filter((r) => !own.has(r.id));
    if (bad.length === 0) return;
    const elsewhere = await this.repository.sourceOrganizations(bad.map((r) => r.id));
    const issues: FieldIssue[] = bad.map((r) => ({
      path: r.path,
      message: elsewhere.has(r.id) ? `data source ${r.id} belongs to another organization` : `no data source ${r.id} exists in this organization`,
    }));
    const foreign = elsewhere.has(bad[0].id);
    throw new ValidationError(
      bad.length === 1 ? `${issues[0].path}: ${issues[0].message}` : `${bad.length} data sources are not of this organization`,
      issues,
      foreign ? 'foreign_data_source' : 'unknown_data_source',
    );
  }

  /** The organization's built-in sources over its runs, by type: what dashboard templates are built on. */
  builtIns(organizationId: string): Promise<Map<string, AnalyticsSource>> {
    return this.dataSources.builtIns(organizationId);
  }

  /**
   * Rule 7.3's hook, the one place a widget's source is resolved before its
   * data is read (the single-widget and the all-widgets calls both come
   * here): each widget's source, or the error its data call answers with. A
   * source fails when it no longer exists (deleted after the widget was
   * saved), or when it reads a table another organization shared and the
   * share has been revoked: the widget errors, naming the share, instead of
   * answering no rows.
   */
  async readable(organizationId: string, widgets: readonly WidgetRef[]): Promise<Map<string, AnalyticsSource | WidgetSourceUnavailableError>> {
    const sources = await this.dataSources.findOwn(
      organizationId,
      widgets.map((w) => w.dataSourceId),
    );
    const unreadable = await this.dataSources.unreadable([...sources.values()]);
    return new Map(
      widgets.map((w) => {
        const source = sources.get(w.dataSourceId);
        if (!source) return [w.id, new WidgetSourceUnavailableError(w, `its data source ${w.dataSourceId} no longer exists`)];
        const reason = unreadable.get(source.id);
        return [w.id, reason ? new WidgetSourceUnavailableError(w, `its data source "${source.name}" cannot be read: ${reason}`) : source];
      }),
    );
  }
}
