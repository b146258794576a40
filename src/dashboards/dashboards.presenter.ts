import type { DashboardWidget } from './dashboard-widget.entity';
import type { Dashboard } from './dashboard.entity';

/** A widget as the API shows it (interface.md 2.5). */
export function presentWidget(w: DashboardWidget) {
  return {
    id: w.id,
    suid: w.suid,
    organizationId: w.organizationId,
    dashboardId: w.dashboardId,
    title: w.title,
    chartType: w.chartType,
    dataSourceId: w.dataSourceId,
    queryConfig: w.queryConfig,
    displayConfig: w.displayConfig,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

/** A dashboard as the API shows it (interface.md 2.4); `widgets` only where the contract inlines them (single reads). */
export function presentDashboard(d: Dashboard, widgets?: DashboardWidget[]) {
  return {
    id: d.id,
    suid: d.suid,
    organizationId: d.organizationId,
    userId: d.userId,
    name: d.name,
    description: d.description,
    isDefault: d.isDefault,
    layout: d.layout,
    filterConfig: d.filterConfig,
    filterDefaults: d.filterDefaults,
    timezone: d.timezone,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    ...(widgets ? { widgets: widgets.map(presentWidget) } : {}),
  };
}
