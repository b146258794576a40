import { queryMembers } from '../analytics/query-members';
import type { AnalyticsSource } from '../data-sources/analytics-source.entity';
import { servingRelationName } from '../data-sources/serving-relation';
import { aliasOf, renameMember, renameQueryMembers, sourceIdOfAlias } from './dashboard-export-members';
import { type DashboardExport, EXPORT_FORMAT, EXPORT_VERSION } from './dashboard-export.schemas';
import type { DashboardWidget } from './dashboard-widget.entity';
import type { Dashboard } from './dashboard.entity';
import { isDataWidget } from './widget-sources';

/**
 * A dashboard as a portable payload (dashboard-export.schemas.ts): pure, so
 * the round trip with dashboard-import.ts is tested without a database.
 */

/**
 * The ids of every data source the dashboard names: its widgets' sources,
 * its filters' sources, then those that members name by alias (a widget may
 * name another source's field; it matches nothing, but it is kept as it is).
 */
export function sourceIdsOf(dashboard: Dashboard, widgets: readonly DashboardWidget[]): string[] {
  const data = widgets.filter(isDataWidget);
  const ids = [...data.map((w) => w.dataSourceId), ...dashboard.filterConfig.map((f) => f.dataSourceId)];
  for (const w of data) {
    for (const member of queryMembers(w.queryConfig)) {
      const id = sourceIdOfAlias(aliasOf(member) ?? '');
      if (id) ids.push(id);
    }
  }
  return [...new Set(ids)];
}

/** An exportId from a source's name (`Orders 2024` → `orders_2024`), unique among `taken`. */
export function exportIdFor(name: string, taken: ReadonlySet<string>): string {
  let base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  if (!/^[a-z]/.test(base)) base = `source${base ? `_${base}` : ''}`.slice(0, 40);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  return id;
}

/**
 * The payload of a dashboard whose widgets are `widgets` (oldest first) and
 * whose named sources are `sources` (by id; the caller has checked that every
 * widget's and filter's source is there). Members of a source not in
 * `sources` (a made-up or deleted alias) are kept verbatim: they matched
 * nothing here and match nothing after an import.
 */
export function toPortable(dashboard: Dashboard, widgets: readonly DashboardWidget[], sources: ReadonlyMap<string, AnalyticsSource>): DashboardExport {
  const exportIds = new Map<string, string>();
  for (const id of sourceIdsOf(dashboard, widgets)) {
    const source = sources.get(id);
    if (source) exportIds.set(id, exportIdFor(source.name, new Set(exportIds.values())));
  }
  const byAlias = new Map([...exportIds].map(([id, exportId]) => [servingRelationName(id), `$${exportId}`]));
  const rename = (alias: string) => byAlias.get(alias);
  const keys = new Map(widgets.map((w, i) => [w.id, `w${i + 1}`]));

  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    dashboard: {
      name: dashboard.name,
      description: dashboard.description,
      timezone: dashboard.timezone,
      isDefault: dashboard.isDefault,
      layout: dashboard.layout.filter((item) => keys.has(item.widgetId)).map(({ widgetId, ...cells }) => ({ widget: keys.get(widgetId)!, ...cells })),
      filterConfig: dashboard.filterConfig.map((f) => ({
        id: f.id,
        dataSource: exportIds.get(f.dataSourceId)!,
        dimension: renameMember(f.dimension, rename),
        label: f.label,
      })),
      filterDefaults: dashboard.filterDefaults,
    },
    // A text widget carries its Markdown (displayConfig) only: it has no source and no query.
    widgets: widgets.map((w) => ({
      key: keys.get(w.id)!,
      title: w.title,
      chartType: w.chartType,
      ...(isDataWidget(w) ? { dataSource: exportIds.get(w.dataSourceId)!, queryConfig: renameQueryMembers(w.queryConfig, rename) } : {}),
      displayConfig: w.displayConfig,
    })),
    dataSources: [...exportIds].map(([id, exportId]) => {
      const s = sources.get(id)!;
      return {
        exportId,
        alias: `$${exportId}`,
        name: s.name,
        type: s.type,
        dataStoreTableName: s.dataStoreTableName,
        recordSchema: {
          name: s.recordSchema.name,
          fields: s.recordSchema.fields,
          calculatedFields: s.recordSchema.calculatedFields.map(({ id: _id, ...field }) => field),
        },
        windowDimensions: s.windowDimensions.map(({ id: _id, ...window }) => window),
      };
    }),
  };
}
