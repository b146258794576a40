import type { DataSourcesService } from '../data-sources/data-sources.service';
import { NotFoundError, ValidationError } from '../errors/errors';
import { sourceIdsOf, toPortable } from './dashboard-export';
import type { DashboardExport } from './dashboard-export.schemas';
import type { DashboardsRepository } from './dashboards.repository';
import { isDataWidget, WidgetSourceUnavailableError } from './widget-sources';

/**
 * GET /dashboards/{id}/export: the dashboard, its widgets and the model of
 * every data source they name, as a portable payload without ids. Reads only
 * the caller's organization: another organization's dashboard is not found.
 */
export class DashboardExportService {
  constructor(
    private readonly dashboards: DashboardsRepository,
    private readonly dataSources: DataSourcesService,
  ) {}

  /**
   * 400 `widget_source_unavailable` (or `filter_source_unavailable`) when a
   * widget's (or a filter's) source has been deleted since: the payload could
   * not tell an importer what that source was. Point it at another source,
   * or delete it, then export.
   */
  async export(organizationId: string, id: string): Promise<DashboardExport> {
    const found = await this.dashboards.findWithWidgets(organizationId, id);
    if (!found) throw new NotFoundError('Dashboard');
    const { dashboard, widgets } = found;
    const sources = await this.dataSources.findOwn(organizationId, sourceIdsOf(dashboard, widgets));
    const broken = widgets.filter(isDataWidget).find((w) => !sources.has(w.dataSourceId));
    if (broken) throw new WidgetSourceUnavailableError(broken, `its data source ${broken.dataSourceId} no longer exists, so the export cannot describe it`);
    const issues = dashboard.filterConfig.flatMap((f, i) =>
      sources.has(f.dataSourceId)
        ? []
        : [{ path: `filterConfig.${i}.dataSourceId`, message: `filter "${f.id}" is over data source ${f.dataSourceId}, which no longer exists` }],
    );
    if (issues.length > 0) {
      throw new ValidationError(`${issues[0].message}: change or remove the filter, then export`, issues, 'filter_source_unavailable');
    }
    return toPortable(dashboard, widgets, sources);
  }
}
