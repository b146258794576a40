import { type FieldIssue, NotFoundError, ValidationError } from '../errors/errors';
import type { DashboardExport, DashboardImportInput } from './dashboard-export.schemas';
import { fromPortable } from './dashboard-import';
import type { DashboardWidget } from './dashboard-widget.entity';
import type { Dashboard } from './dashboard.entity';
import type { DashboardsRepository } from './dashboards.repository';
import type { WidgetSources } from './widget-sources';

/**
 * The source of this organization each exportId of `payload` stands for,
 * from `mappings`. 400 naming each field: `validation_failed` for a mapping
 * key that is not an exportId of the payload, `unmapped_data_source` for an
 * exportId without a mapping.
 */
export function mappedSourceIds(payload: DashboardExport, mappings: Readonly<Record<string, string>>): Map<string, string> {
  const exportIds = new Set(payload.dataSources.map((s) => s.exportId));
  const stray: FieldIssue[] = Object.keys(mappings)
    .filter((key) => !exportIds.has(key))
    .map((key) => ({ path: `dataSourceMappings.${key}`, message: `"${key}" is not the exportId of a source in dataSources` }));
  if (stray.length > 0) throw new ValidationError(`dataSourceMappings names an exportId the payload does not have: ${stray[0].path}`, stray);
  const unmapped = payload.dataSources.filter((s) => !Object.hasOwn(mappings, s.exportId));
  if (unmapped.length > 0) {
    throw new ValidationError(
      `Map every source of the payload to a data source of this organization; no mapping for ${unmapped.map((s) => `"${s.exportId}" (${s.name})`).join(', ')}`,
      unmapped.map((s) => ({ path: `dataSourceMappings.${s.exportId}`, message: `needs the id of a data source of this organization for "${s.name}"` })),
      'unmapped_data_source',
    );
  }
  return new Map(payload.dataSources.map((s) => [s.exportId, mappings[s.exportId]]));
}

/**
 * POST /dashboards/import: a portable payload becomes a dashboard of the
 * caller's organization, its field references rewritten to the mapped
 * sources. Everything is checked before anything is written, and the
 * dashboard and its widgets are inserted in one transaction
 * (DashboardsRepository.create): on any error nothing is kept.
 */
export class DashboardImportService {
  constructor(
    private readonly repository: DashboardsRepository,
    private readonly sources: WidgetSources,
  ) {}

  /**
   * 400 as mappedSourceIds says, then `unknown_data_source` /
   * `foreign_data_source` for a mapped id that is no source of this
   * organization, `validation_failed` / `invalid_layout` for what the
   * rewritten payload breaks, `duplicate_name` when the name is taken.
   */
  async import(organizationId: string, userId: string, input: DashboardImportInput): Promise<{ dashboard: Dashboard; widgets: DashboardWidget[] }> {
    const sourceIds = mappedSourceIds(input, input.dataSourceMappings);
    await this.sources.assertOwn(
      organizationId,
      [...sourceIds].map(([exportId, id]) => ({ id, path: `dataSourceMappings.${exportId}` })),
    );
    const { dashboard, widgets } = fromPortable(input, { organizationId, userId, sourceIds, name: input.name });
    await this.repository.create(dashboard, widgets);
    const created = await this.repository.findWithWidgets(organizationId, dashboard.id);
    // Deleted by another request the moment it was committed.
    if (!created) throw new NotFoundError('Dashboard');
    return created;
  }
}
