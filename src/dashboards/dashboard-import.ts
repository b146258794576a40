import { AnalyticsQuery } from '../analytics/analytics.schemas';
import { servingRelationName } from '../data-sources/serving-relation';
import { type FieldIssue, ValidationError } from '../errors/errors';
import { toFieldIssues } from '../http/validation';
import { newId, newSuid } from '../ids';
import { renameMember, renameQueryMembers } from './dashboard-export-members';
import type { DashboardExport } from './dashboard-export.schemas';
import { DashboardWidget } from './dashboard-widget.entity';
import { Dashboard } from './dashboard.entity';
import { FilterConfig, type LayoutItem } from './dashboards.schemas';
import { layoutIssues } from './layout-rules';

/**
 * A portable payload (dashboard-export.schemas.ts, already parsed) turned
 * into a dashboard and its widgets for one organization: every `$<exportId>`
 * alias of every widget query and filter becomes the alias of the source the
 * exportId stands for (`ds_<uuid>`), and the layout's widget keys become the
 * new widgets' ids. Pure: nothing is read or written here.
 */
export interface ImportTarget {
  organizationId: string;
  userId: string | null;
  /** exportId → the id of the organization's data source it stands for; the caller checked every exportId has one. */
  sourceIds: ReadonlyMap<string, string>;
  /** In place of the payload's name. */
  name?: string;
  /** In place of the payload's isDefault. */
  isDefault?: boolean;
  /** The id of the dashboard to update in place (a package reinstall); a new one otherwise. */
  dashboardId?: string;
  /** Widget key → the id it keeps (a package reinstall updates widgets in place); keys not here get new ids. */
  widgetIds?: ReadonlyMap<string, string>;
}

export interface ImportedDashboard {
  dashboard: Dashboard;
  /** In the payload's order, which is the order they read back in (ids are time-ordered). */
  widgets: DashboardWidget[];
  /** Widget key → widget id. */
  widgetIds: Record<string, string>;
}

/**
 * The dashboard and widgets `payload` describes for `target`. Throws 400
 * naming each field: `validation_failed` when a rewritten query or filter
 * no longer passes its schema (a member grown past its length), or
 * `invalid_layout` for what the layout rules refuse (overlaps, cells off
 * the grid), with paths into the payload (`widgets.2.queryConfig…`,
 * `dashboard.layout.0…`).
 */
export function fromPortable(payload: DashboardExport, target: ImportTarget): ImportedDashboard {
  const rename = (alias: string) => {
    const id = alias.startsWith('$') ? target.sourceIds.get(alias.slice(1)) : undefined;
    return id === undefined ? undefined : servingRelationName(id);
  };
  const sourceOf = (exportId: string) => target.sourceIds.get(exportId)!;
  const issues: FieldIssue[] = [];

  const widgetIds: Record<string, string> = {};
  const widgets = payload.widgets.map((w, i) => {
    // A text widget has no query and no source (the payload's schema saw to it).
    const query = w.queryConfig ? AnalyticsQuery.safeParse(renameQueryMembers(w.queryConfig, rename)) : undefined;
    if (query && !query.success) issues.push(...toFieldIssues(query.error, ['widgets', String(i), 'queryConfig']));
    const id = target.widgetIds?.get(w.key) ?? newId();
    widgetIds[w.key] = id;
    return Object.assign(new DashboardWidget(), {
      id,
      suid: newSuid(),
      organizationId: target.organizationId,
      title: w.title,
      chartType: w.chartType,
      dataSourceId: w.dataSource === undefined ? null : sourceOf(w.dataSource),
      queryConfig: query?.data ?? null,
      displayConfig: w.displayConfig,
    });
  });

  const filters = FilterConfig.safeParse(
    payload.dashboard.filterConfig.map((f) => ({
      id: f.id,
      dataSourceId: sourceOf(f.dataSource),
      dimension: renameMember(f.dimension, rename),
      label: f.label,
    })),
  );
  if (!filters.success) issues.push(...toFieldIssues(filters.error, ['dashboard', 'filterConfig']));
  if (issues.length > 0) {
    throw new ValidationError(`The payload cannot be imported: ${issues[0].path}: ${issues[0].message}`, issues);
  }

  const layout: LayoutItem[] = payload.dashboard.layout.map(({ widget, ...cells }) => ({ widgetId: widgetIds[widget], ...cells }));
  const refused = layoutIssues(layout, new Map(widgets.map((w) => [w.id, w.title]))).map((i) => ({ ...i, path: `dashboard.${i.path}` }));
  if (refused.length > 0) {
    throw new ValidationError(`The layout is refused: ${refused[0].path}: ${refused[0].message}`, refused, 'invalid_layout');
  }

  const dashboard = Object.assign(new Dashboard(), {
    id: target.dashboardId ?? newId(),
    suid: newSuid(),
    organizationId: target.organizationId,
    userId: target.userId,
    name: target.name ?? payload.dashboard.name,
    description: payload.dashboard.description,
    isDefault: target.isDefault ?? payload.dashboard.isDefault,
    layout,
    filterConfig: filters.data!,
    filterDefaults: payload.dashboard.filterDefaults,
    timezone: payload.dashboard.timezone,
  });
  for (const w of widgets) w.dashboardId = dashboard.id;
  return { dashboard, widgets, widgetIds };
}
