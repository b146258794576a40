import { type EntityManager, In, QueryFailedError } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import { ConflictError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { DashboardWidget } from './dashboard-widget.entity';
import { Dashboard } from './dashboard.entity';
import { MAX_WIDGETS_PER_DASHBOARD, withoutWidget } from './layout-rules';

const uniqueName = uniqueNameIndex('dashboards_org_name_key', 'dashboard');
/**
 * Dashboards of packages installed only as dependencies of other packages
 * are not listed (interface.md 4.3); they are still read by id. Decided at
 * read time from the packages tables (src/packages), so installing such a
 * package directly later lists them at once.
 */
const NOT_OF_A_DEPENDENCY = `NOT EXISTS (
  SELECT 1 FROM package_items i JOIN packages p ON p.id = i.package_id
  WHERE i.dashboard_id = d.id AND p.installed_as = 'dependency')`;
/** The partial unique index on (organization_id) WHERE is_default: at most one default per organization. */
const ONE_DEFAULT = 'dashboards_one_default_key';
/** Attempts of a write that lost a race for the default (never expected: the writers take turns, see makeSoleDefault). */
const DEFAULT_ATTEMPTS = 3;

function isDefaultViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const pg = err.driverError as { code?: string; constraint?: string };
  return pg.code === '23505' && pg.constraint === ONE_DEFAULT;
}

/** The dashboard's fields a change may touch (identity, owner and timestamps stay). */
const mutable = (d: Dashboard) => ({
  name: d.name,
  description: d.description,
  isDefault: d.isDefault,
  layout: d.layout,
  filterConfig: d.filterConfig,
  filterDefaults: d.filterDefaults,
  timezone: d.timezone,
});

/**
 * Dashboards and their widgets. Every method takes the organization: there
 * is no unscoped read of a dashboard or widget. Whatever changes a
 * dashboard's layout (a layout replacement, a widget added or deleted) runs
 * on the dashboard's locked row, so two of them never interleave: a layout
 * cannot name a widget deleted meanwhile, and two widgets added at once do
 * not land on the same cells. Statements run under the pool's statement
 * timeout (config.database), like every query of the service's own.
 */
export class DashboardsRepository {
  constructor(private readonly manager: EntityManager) {}

  /** A page of the organization's dashboards, newest first, without widgets; those of dependency-only packages are left out (and out of the total). */
  async list(organizationId: string, page: Page): Promise<{ total: number; data: Dashboard[] }> {
    const [data, total] = await this.manager
      .getRepository(Dashboard)
      .createQueryBuilder('d')
      .where('d.organizationId = :organizationId', { organizationId })
      .andWhere(NOT_OF_A_DEPENDENCY)
      .orderBy('d.createdAt', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .take(page.limit)
      .skip(page.offset)
      .getManyAndCount();
    return { total, data };
  }

  find(organizationId: string, id: string, manager: EntityManager = this.manager): Promise<Dashboard | null> {
    return manager.findOneBy(Dashboard, { organizationId, id });
  }

  /** The dashboard with its widgets, oldest first; null when the organization has no such dashboard. */
  async findWithWidgets(organizationId: string, id: string): Promise<{ dashboard: Dashboard; widgets: DashboardWidget[] } | null> {
    const dashboard = await this.find(organizationId, id);
    if (!dashboard) return null;
    return { dashboard, widgets: await this.widgetsOf(organizationId, id) };
  }

  /** A dashboard's widgets, oldest first (at most MAX_WIDGETS_PER_DASHBOARD exist). */
  widgetsOf(organizationId: string, dashboardId: string, manager: EntityManager = this.manager): Promise<DashboardWidget[]> {
    return manager.find(DashboardWidget, {
      where: { organizationId, dashboardId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: MAX_WIDGETS_PER_DASHBOARD,
    });
  }

  findWidget(organizationId: string, id: string): Promise<DashboardWidget | null> {
    return this.manager.findOneBy(DashboardWidget, { organizationId, id });
  }

  /**
   * Inserts a dashboard and its widgets in one transaction: all or nothing
   * (creation, and imports). A dashboard inserted as the default takes the
   * place of the previous one. 400 duplicate_name when the name is taken.
   */
  async create(dashboard: Dashboard, widgets: DashboardWidget[] = []): Promise<Dashboard> {
    await this.decidingDefault(() =>
      this.manager.transaction(async (m) => {
        if (dashboard.isDefault) await this.makeSoleDefault(m, dashboard.organizationId, dashboard.id);
        await uniqueName(dashboard.name, () => m.insert(Dashboard, dashboard));
        if (widgets.length > 0) await m.insert(DashboardWidget, widgets);
      }),
    );
    return (await this.find(dashboard.organizationId, dashboard.id))!;
  }

  /**
   * Applies `change` to the dashboard's locked row (it may throw to refuse;
   * nothing is then written), given its widgets' titles by id, and saves it.
   * A dashboard that becomes the default takes the previous one's place in
   * the same transaction. Null when the organization has no such dashboard.
   */
  async update(organizationId: string, id: string, change: (dashboard: Dashboard, widgetTitles: Map<string, string>) => void): Promise<Dashboard | null> {
    return this.decidingDefault(() =>
      this.manager.transaction(async (m) => {
        const dashboard = await this.lock(m, organizationId, id);
        if (!dashboard) return null;
        const wasDefault = dashboard.isDefault;
        change(dashboard, await this.widgetTitles(m, organizationId, id));
        if (dashboard.isDefault && !wasDefault) await this.makeSoleDefault(m, organizationId, id);
        await uniqueName(dashboard.name, () => m.update(Dashboard, { organizationId, id }, mutable(dashboard)));
        return this.find(organizationId, id, m);
      }),
    );
  }

  /**
   * Replaces a dashboard's content in place, keeping its id (a package
   * reinstall): its fields but the default flag, and its widgets, where a
   * widget whose id is already the dashboard's is updated, a new one is
   * inserted and one left out is deleted; one transaction, on the locked
   * row. 400 duplicate_name when the name is taken. False when there is no
   * such dashboard.
   */
  async replaceContent(next: Dashboard, widgets: DashboardWidget[]): Promise<boolean> {
    const { organizationId, id } = next;
    return this.manager.transaction(async (m) => {
      const current = await this.lock(m, organizationId, id);
      if (!current) return false;
      const existing = new Set((await this.widgetTitles(m, organizationId, id)).keys());
      const keep = new Set(widgets.map((w) => w.id));
      const gone = [...existing].filter((w) => !keep.has(w));
      if (gone.length > 0) await m.delete(DashboardWidget, { organizationId, dashboardId: id, id: In(gone) });
      for (const w of widgets.filter((w) => existing.has(w.id))) {
        const { title, chartType, dataSourceId, queryConfig, displayConfig } = w;
        await m.update(DashboardWidget, { organizationId, dashboardId: id, id: w.id }, { title, chartType, dataSourceId, queryConfig, displayConfig });
      }
      const added = widgets.filter((w) => !existing.has(w.id));
      if (added.length > 0) await m.insert(DashboardWidget, added);
      await uniqueName(next.name, () => m.update(Dashboard, { organizationId, id }, { ...mutable(next), isDefault: current.isDefault }));
      return true;
    });
  }

  /** Deletes the dashboard and (by the foreign key) its widgets; data sources are not touched. False when there is no such dashboard. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    return ((await this.manager.getRepository(Dashboard).delete({ organizationId, id })).affected ?? 0) > 0;
  }

  /**
   * Inserts the widget under its dashboard's lock. `place` is given the
   * dashboard and how many widgets it has, and puts the widget into the
   * layout (or throws to refuse). False when there is no such dashboard.
   */
  async addWidget(widget: DashboardWidget, place: (dashboard: Dashboard, widgetCount: number) => void): Promise<boolean> {
    return this.manager.transaction(async (m) => {
      const dashboard = await this.lock(m, widget.organizationId, widget.dashboardId);
      if (!dashboard) return false;
      place(dashboard, await m.countBy(DashboardWidget, { organizationId: widget.organizationId, dashboardId: widget.dashboardId }));
      await m.insert(DashboardWidget, widget);
      await m.update(Dashboard, { organizationId: dashboard.organizationId, id: dashboard.id }, { layout: dashboard.layout });
      return true;
    });
  }

  /** Writes the given fields of the widget; null when the organization has no such widget. */
  async updateWidget(organizationId: string, id: string, changes: Partial<Pick<DashboardWidget, WidgetField>>): Promise<DashboardWidget | null> {
    if (Object.keys(changes).length > 0) await this.manager.update(DashboardWidget, { organizationId, id }, changes);
    return this.findWidget(organizationId, id);
  }

  /** Deletes the widget and takes it out of its dashboard's layout, in one transaction. False when there is no such widget. */
  async deleteWidget(organizationId: string, id: string): Promise<boolean> {
    return this.manager.transaction(async (m) => {
      const widget = await m.findOneBy(DashboardWidget, { organizationId, id });
      if (!widget) return false;
      const dashboard = await this.lock(m, organizationId, widget.dashboardId);
      // Deleted meanwhile by another request (with the dashboard, by the foreign key).
      if ((await m.delete(DashboardWidget, { organizationId, id })).affected === 0) return false;
      if (dashboard) {
        const layout = withoutWidget(dashboard.layout, id);
        if (layout.length !== dashboard.layout.length) await m.update(Dashboard, { organizationId, id: dashboard.id }, { layout });
      }
      return true;
    });
  }

  /**
   * The organization of each of these data sources that exists, in any
   * organization: only to tell a source of another organization (which the
   * contract answers "belongs to another organization") from an unknown id.
   */
  async sourceOrganizations(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: Array<{ id: string; organization_id: string }> = await this.manager.query(
      `SELECT id, organization_id FROM data_sources WHERE id = ANY($1::uuid[])`,
      [[...new Set(ids)]],
    );
    return new Map(rows.map((r) => [r.id, r.organization_id]));
  }

  /** Id → title of a dashboard's widgets: what the layout rules check items against. */
  private async widgetTitles(m: EntityManager, organizationId: string, dashboardId: string): Promise<Map<string, string>> {
    const rows = await m.find(DashboardWidget, { select: { id: true, title: true }, where: { organizationId, dashboardId }, take: MAX_WIDGETS_PER_DASHBOARD });
    return new Map(rows.map((w) => [w.id, w.title]));
  }

  private lock(m: EntityManager, organizationId: string, id: string): Promise<Dashboard | null> {
    return m.getRepository(Dashboard).findOne({ where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * Makes `id` the organization's only default: writers of the default take
   * turns on a transaction-scoped advisory lock per organization, then clear
   * the previous default. Two PATCHes racing therefore end with the later one
   * the default; without the turns, the second would trip the partial unique
   * index after the first committed.
   */
  private async makeSoleDefault(m: EntityManager, organizationId: string, id: string): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('dashboards:default:' || $1::text, 0))`, [organizationId]);
    await m.query(`UPDATE dashboards SET is_default = false, updated_at = now() WHERE organization_id = $1 AND is_default AND id <> $2`, [organizationId, id]);
  }

  /**
   * Runs a write that may make a dashboard the default. The partial unique
   * index is the backstop should a writer ever skip the turns (a transaction
   * that sets is_default some other way): the loser is retried from scratch,
   * and a few losses in a row are answered 409 rather than 500.
   */
  private async decidingDefault<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (!isDefaultViolation(err)) throw err;
        if (attempt >= DEFAULT_ATTEMPTS) {
          throw new ConflictError('Another request made a different dashboard the default at the same time; try again', 'default_conflict');
        }
      }
    }
  }
}

/** The widget fields a PATCH may change. */
export type WidgetField = 'title' | 'chartType' | 'dataSourceId' | 'queryConfig' | 'displayConfig';
