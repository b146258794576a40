import type { AnalyticsQuery, Filter } from '../analytics/analytics.schemas';
import { queryMembers, sourceAlias } from '../analytics/query-members';
import type { PlaceInRequest } from '../analytics/refused-query';
import type { AppliedFilter } from './dashboard-filters';

/** The zone of last resort: a dashboard for everyone (timezone null) viewed by a caller who names none. */
export const FALLBACK_TIME_ZONE = 'UTC';

/**
 * The zone a widget's query runs in: the dashboard's; when that is null
 * (each viewer's own zone), the one the viewer sends; else the zone the
 * widget's own query names; else UTC.
 */
export function widgetTimeZone(dashboardZone: string | null, viewerZone?: string, queryZone?: string): string {
  return dashboardZone ?? viewerZone ?? queryZone ?? FALLBACK_TIME_ZONE;
}

/**
 * Members the query names outside the widget's own source (`alias`): a
 * widget reads one source, so these are references that match nothing, like
 * a mistyped field (interface.md 7.2). Keeping them out also means a widget
 * reads no source but the one its data call resolved (rule 7.3's check).
 */
export function foreignMembers(query: AnalyticsQuery, alias: string): string[] {
  return [...new Set(queryMembers(query).filter((m) => sourceAlias(m) !== alias))];
}

/**
 * What a widget's data call runs: the saved queryConfig (its `timeRange`
 * included, which the analytics path turns into a date range on the source's
 * time dimension), with the dashboard's filters added to its own and the zone set.
 */
export function widgetQuery(queryConfig: AnalyticsQuery, dashboardFilters: Filter[], timezone: string): AnalyticsQuery {
  return { ...queryConfig, filters: [...queryConfig.filters, ...dashboardFilters], timezone };
}

/**
 * Where a place in the query a widget runs (widgetQuery) comes from: its
 * saved `queryConfig`, or, for the filters after the saved ones, a dashboard
 * filter, whose values are the caller's `filters.<id>` or the dashboard's
 * `filterDefaults.<id>`.
 */
export function widgetPlaces(savedFilters: number, dashboardFilters: readonly AppliedFilter[]): PlaceInRequest {
  return (path) => {
    const added = /^filters\.(\d+)(?:\.(.*))?$/.exec(path);
    const applied = added ? dashboardFilters[Number(added[1]) - savedFilters] : undefined;
    if (!added || !applied) return path ? `queryConfig.${path}` : 'queryConfig';
    const value = /^values\.(\d+)$/.exec(added[2] ?? '');
    const base = applied.chosen ? `filters.${applied.id}` : `dashboard.filterDefaults.${applied.id}`;
    return value ? `${base}.${value[1]}` : base;
  };
}
