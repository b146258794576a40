import { AppError, ConflictError, DuplicateNameError, NotFoundError, ValidationError } from '../errors/errors';
import { isCheckViolation } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import { BUILT_IN_SOURCES } from '../data-sources/built-in-sources';
import { CHART_TYPES, isDataless } from './chart-types';
import { defaultsOfFilters, unknownFilterKeys } from './dashboard-filters';
import { type DashboardTemplate, operationsTemplate } from './dashboard-templates';
import { DashboardWidget } from './dashboard-widget.entity';
import { Dashboard } from './dashboard.entity';
import type { DashboardsRepository, WidgetField } from './dashboards.repository';
import {
  type CreateDashboardInput,
  type CreateFromTemplateInput,
  type CreateWidgetInput,
  type LayoutItem,
  type PatchDashboardInput,
  type PatchWidgetInput,
  widgetKindIssues,
} from './dashboards.schemas';
import { layoutIssues, MAX_GRID_ROWS, MAX_WIDGETS_PER_DASHBOARD, placeAtBottom } from './layout-rules';
import type { WidgetSources } from './widget-sources';

/** How many numbered names a template tries ("Operations", "Operations 2", …) before asking the caller for one. */
const TEMPLATE_NAME_ATTEMPTS = 50;

/**
 * Dashboards and widgets (interface.md 2.4, 2.5, 4.3): names unique per
 * organization, one default per organization, a layout on a 12-column grid
 * (layout-rules.ts), filter controls over the organization's own sources.
 * Every read and write is scoped to the caller's organization: another
 * organization's dashboard or widget is not found.
 */
export class DashboardsService {
  constructor(
    private readonly repository: DashboardsRepository,
    private readonly sources: WidgetSources,
  ) {}

  list(organizationId: string, page: Page) {
    return this.repository.list(organizationId, page);
  }

  async get(organizationId: string, id: string): Promise<Dashboard> {
    const dashboard = await this.repository.find(organizationId, id);
    if (!dashboard) throw new NotFoundError('Dashboard');
    return dashboard;
  }

  /** The dashboard with its widgets, oldest first. */
  async getWithWidgets(organizationId: string, id: string): Promise<{ dashboard: Dashboard; widgets: DashboardWidget[] }> {
    const found = await this.repository.findWithWidgets(organizationId, id);
    if (!found) throw new NotFoundError('Dashboard');
    return found;
  }

  /** A new dashboard with an empty layout and no filters; as the default, it replaces the previous one. */
  create(organizationId: string, userId: string | null, input: CreateDashboardInput): Promise<Dashboard> {
    return this.repository.create(
      Object.assign(new Dashboard(), {
        id: newId(),
        suid: newSuid(),
        organizationId,
        userId,
        name: input.name,
        description: input.description,
        isDefault: input.isDefault,
        layout: [],
        filterConfig: [],
        filterDefaults: {},
        timezone: input.timezone,
      }),
    );
  }

  /**
   * A new dashboard made from a template (dashboard-templates.ts), with its
   * widgets laid out, in one transaction. Without a name it takes the
   * template's, or the first of "<name> 2", "<name> 3", … that is free, so
   * each call makes another; a name sent that is taken is 400 duplicate_name.
   */
  async createFromTemplate(
    organizationId: string,
    userId: string | null,
    template: DashboardTemplate,
    input: CreateFromTemplateInput,
  ): Promise<{ dashboard: Dashboard; widgets: DashboardWidget[] }> {
    const sources = await this.sources.builtIns(organizationId);
    const ids = new Map([...sources].map(([type, source]) => [type, source.id]));
    // Every organization has them (its creation and the BuiltInRunSources migration made them): a missing one is a bug,
    // said as such before the plan names their relations.
    if (BUILT_IN_SOURCES.some((b) => !ids.has(b.type))) {
      throw new AppError(500, 'built_in_source_missing', `The built-in sources the ${template} template reads are missing from this organization`);
    }
    const plan = operationsTemplate(ids);
    for (let n = 1; n <= TEMPLATE_NAME_ATTEMPTS; n++) {
      const name = input.name ?? (n === 1 ? plan.name : `${plan.name} ${n}`);
      const dashboard = Object.assign(new Dashboard(), {
        id: newId(),
        suid: newSuid(),
        organizationId,
        userId,
        name,
        description: plan.description,
        isDefault: input.isDefault,
        layout: [] as LayoutItem[],
        filterConfig: [],
        filterDefaults: {},
        timezone: input.timezone,
      });
      const widgets = plan.widgets.map((w) =>
        Object.assign(new DashboardWidget(), {
          id: newId(),
          suid: newSuid(),
          organizationId,
          dashboardId: dashboard.id,
          title: w.title,
          chartType: w.chartType,
          dataSourceId: ids.get(w.sourceType)!,
          queryConfig: w.queryConfig,
          displayConfig: w.displayConfig,
        }),
      );
      dashboard.layout = plan.widgets.map((w, i) => ({ widgetId: widgets[i].id, ...w.cells }));
      try {
        await this.repository.create(dashboard, widgets);
      } catch (err) {
        if (err instanceof DuplicateNameError && input.name === undefined) continue;
        throw err;
      }
      return this.getWithWidgets(organizationId, dashboard.id);
    }
    throw new ValidationError(
      `"${plan.name}" and the next ${TEMPLATE_NAME_ATTEMPTS - 1} numbered names are taken: send a name for the new dashboard`,
      [{ path: 'name', message: "required: the template's names are taken" }],
      'duplicate_name',
    );
  }

  /**
   * Changes the fields sent; widgets and layout are untouched. `filterConfig`
   * replaces the filters (each over a source of this organization) and drops
   * the defaults of filters it leaves out; `filterDefaults` replaces the
   * defaults, keyed by filter ids of the dashboard as it will be.
   */
  async update(organizationId: string, id: string, patch: PatchDashboardInput): Promise<Dashboard> {
    await this.get(organizationId, id);
    if (patch.filterConfig) {
      await this.sources.assertOwn(
        organizationId,
        patch.filterConfig.map((f, i) => ({ id: f.dataSourceId, path: `filterConfig.${i}.dataSourceId` })),
      );
    }
    return this.change(organizationId, id, (d) => {
      if (patch.name !== undefined) d.name = patch.name;
      if (patch.description !== undefined) d.description = patch.description;
      if (patch.timezone !== undefined) d.timezone = patch.timezone;
      if (patch.isDefault !== undefined) d.isDefault = patch.isDefault;
      if (patch.filterConfig) {
        d.filterConfig = patch.filterConfig;
        d.filterDefaults = defaultsOfFilters(d.filterDefaults, d.filterConfig);
      }
      if (patch.filterDefaults) {
        const issues = unknownFilterKeys(patch.filterDefaults, d.filterConfig, 'filterDefaults');
        if (issues.length > 0) throw new ValidationError('filterDefaults names filters this dashboard does not have', issues);
        d.filterDefaults = patch.filterDefaults;
      }
    });
  }

  /**
   * Replaces the layout wholesale (a widget left out stays, off the grid).
   * 400 invalid_layout, naming each item, for what layout-rules.ts refuses.
   */
  replaceLayout(organizationId: string, id: string, layout: LayoutItem[]): Promise<Dashboard> {
    return this.change(organizationId, id, (d, widgetTitles) => {
      const issues = layoutIssues(layout, widgetTitles);
      if (issues.length > 0) throw new ValidationError(`The layout is refused: ${issues[0].path}: ${issues[0].message}`, issues, 'invalid_layout');
      d.layout = layout;
    });
  }

  /** Deletes the dashboard and its widgets; the data sources stay. */
  async delete(organizationId: string, id: string): Promise<void> {
    if (!(await this.repository.delete(organizationId, id))) throw new NotFoundError('Dashboard');
  }

  async getWidget(organizationId: string, widgetId: string): Promise<DashboardWidget> {
    const widget = await this.repository.findWidget(organizationId, widgetId);
    if (!widget) throw new NotFoundError('Widget');
    return widget;
  }

  /**
   * Adds a widget at the bottom of the grid, at the left edge, at its chart
   * type's default size (CHART_TYPES). Its source must be one of the
   * organization's; its query is saved as sent, so a mistyped field saves
   * (and then matches no rows). A text widget has neither (the body's schema
   * saw to it).
   */
  async addWidget(organizationId: string, dashboardId: string, input: CreateWidgetInput): Promise<DashboardWidget> {
    await this.get(organizationId, dashboardId);
    if (input.dataSourceId !== undefined) await this.sources.assertOwn(organizationId, [{ id: input.dataSourceId, path: 'dataSourceId' }]);
    const widget = Object.assign(new DashboardWidget(), {
      id: newId(),
      suid: newSuid(),
      organizationId,
      dashboardId,
      title: input.title,
      chartType: input.chartType,
      dataSourceId: input.dataSourceId ?? null,
      queryConfig: input.queryConfig ?? null,
      displayConfig: input.displayConfig,
    });
    const added = await this.repository.addWidget(widget, (dashboard, count) => {
      if (count >= MAX_WIDGETS_PER_DASHBOARD) {
        throw new ValidationError(`A dashboard holds at most ${MAX_WIDGETS_PER_DASHBOARD} widgets`, undefined, 'too_many_widgets');
      }
      const item = placeAtBottom(dashboard.layout, widget.id, CHART_TYPES[input.chartType].defaultSize);
      if (!item) {
        throw new ValidationError(`The grid is full down to row ${MAX_GRID_ROWS}: move widgets up (PATCH …/layout) to make room`, undefined, 'layout_full');
      }
      dashboard.layout = [...dashboard.layout, item];
    });
    if (!added) throw new NotFoundError('Dashboard');
    return this.getWidget(organizationId, widget.id);
  }

  /**
   * Changes the fields sent; `queryConfig` and `displayConfig` replace the old
   * ones whole (never merged). Its place on the grid stays. The widget as it
   * will be must still agree with its chart type: a text widget takes no
   * source or query (turned into text, it drops both), a chart turned from
   * text needs both sent (400 naming what is missing).
   */
  async updateWidget(organizationId: string, widgetId: string, patch: PatchWidgetInput): Promise<DashboardWidget> {
    const current = await this.getWidget(organizationId, widgetId);
    const chartType = patch.chartType ?? current.chartType;
    const toText = isDataless(chartType);
    const issues = widgetKindIssues(
      {
        chartType,
        dataSourceId: toText ? patch.dataSourceId : (patch.dataSourceId ?? current.dataSourceId ?? undefined),
        queryConfig: toText ? patch.queryConfig : (patch.queryConfig ?? current.queryConfig ?? undefined),
        displayConfig: patch.displayConfig,
      },
      true,
    );
    if (issues.length > 0) throw new ValidationError(`${issues[0].path} ${issues[0].message}`, issues);
    if (patch.dataSourceId !== undefined) await this.sources.assertOwn(organizationId, [{ id: patch.dataSourceId, path: 'dataSourceId' }]);
    const changes: Partial<Pick<DashboardWidget, WidgetField>> = {};
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.chartType !== undefined) changes.chartType = patch.chartType;
    if (patch.dataSourceId !== undefined) changes.dataSourceId = patch.dataSourceId;
    if (patch.queryConfig !== undefined) changes.queryConfig = patch.queryConfig;
    if (patch.displayConfig !== undefined) changes.displayConfig = patch.displayConfig;
    if (toText) {
      changes.dataSourceId = null;
      changes.queryConfig = null;
    }
    let widget: DashboardWidget | null;
    try {
      widget = await this.repository.updateWidget(organizationId, widgetId, changes);
    } catch (err) {
      // Another edit changed the widget's kind between the read above and this write; the table's check kept it whole.
      if (isCheckViolation(err, 'dashboard_widgets_text_has_no_data')) {
        throw new ConflictError('The widget was changed by another edit meanwhile; read it again and retry', 'widget_changed');
      }
      throw err;
    }
    if (!widget) throw new NotFoundError('Widget');
    return widget;
  }

  /** Deletes the widget and takes it out of the layout. */
  async deleteWidget(organizationId: string, widgetId: string): Promise<void> {
    if (!(await this.repository.deleteWidget(organizationId, widgetId))) throw new NotFoundError('Widget');
  }

  private async change(organizationId: string, id: string, apply: Parameters<DashboardsRepository['update']>[2]): Promise<Dashboard> {
    const dashboard = await this.repository.update(organizationId, id, apply);
    if (!dashboard) throw new NotFoundError('Dashboard');
    return dashboard;
  }
}
