import { csvAttachment } from '../analytics/csv-export';
import { defineRoute, type RouteContext } from '../http/route';
import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import {
  CreateDashboardBody,
  CreateFromTemplateBody,
  CreateWidgetBody,
  DashboardDataSchema,
  DashboardParams,
  DashboardSchema,
  DashboardWidgetsParams,
  LayoutBody,
  PatchDashboardBody,
  PatchWidgetBody,
  TemplateParams,
  WidgetDataBody,
  WidgetDataSchema,
  WidgetParams,
  WidgetSchema,
} from './dashboards.schemas';
import { presentDashboard, presentWidget } from './dashboards.presenter';
import type { DashboardsService } from './dashboards.service';
import type { WidgetDataService } from './widget-data.service';

const tags = ['Dashboards'];
const Deleted = z.object({ deleted: z.literal(true) });

/**
 * Dashboards and widgets (interface.md 4.3) and widget data: reads need
 * dashboards:view, changes dashboards:admin. Registered after the data source
 * and analytics routes, so `/dashboards/:id` never takes their paths; the
 * `/dashboards/widgets/…` routes come before the `/dashboards/:id/…` ones.
 */
export function registerDashboardRoutes(ctx: RouteContext, service: DashboardsService, data: WidgetDataService): void {
  const one = { 200: { description: 'The dashboard, without its widgets', schema: DashboardSchema } };
  const oneWidget = { 200: { description: 'The widget', schema: WidgetSchema } };

  defineRoute(ctx, {
    method: 'patch',
    path: '/dashboards/widgets/:widgetId',
    permission: 'dashboards:admin',
    tags,
    params: WidgetParams,
    body: PatchWidgetBody,
    summary: 'Change a widget; queryConfig and displayConfig, when sent, replace the old ones whole',
    responses: oneWidget,
    handler: async ({ auth, params, body }) => ({ status: 200, body: presentWidget(await service.updateWidget(auth.organizationId, params.widgetId, body)) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/dashboards/widgets/:widgetId',
    permission: 'dashboards:admin',
    tags,
    params: WidgetParams,
    summary: 'Delete a widget; it leaves the layout too',
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ auth, params }) => {
      await service.deleteWidget(auth.organizationId, params.widgetId);
      return { status: 200, body: { deleted: true } };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/widgets/:widgetId/data',
    permission: 'dashboards:view',
    tags,
    params: WidgetParams,
    body: WidgetDataBody,
    summary: "Run a widget's query with the dashboard's filter values, its timeRange and the dashboard's (else the viewer's) time zone",
    responses: { 201: { description: 'As POST /dashboards/analytics/query answers', schema: WidgetDataSchema } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await data.widget(auth.organizationId, params.widgetId, body) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/widgets/:widgetId/export-csv',
    permission: 'dashboards:view',
    tags,
    params: WidgetParams,
    body: WidgetDataBody,
    summary:
      "Every row of a widget's query as CSV, run exactly as its data call runs it (the dashboard's filter values, its timeRange, the zone); named from the widget's title and today's date",
    responses: { 200: { description: 'CSV', contentType: 'text/csv', schema: z.string() } },
    handler: async ({ auth, params, body }, _req, res) => {
      await data.exportCsv(auth.organizationId, params.widgetId, body, (title) => csvAttachment(res, title));
      return undefined;
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards',
    permission: 'dashboards:view',
    tags,
    query: PageQuery,
    summary: 'Dashboards, newest first, without widgets (paged: X-Total-Count holds the total)',
    responses: { 200: { description: 'Dashboards', schema: z.array(DashboardSchema) } },
    handler: async ({ auth, query }, _req, res) => {
      const { total, data: dashboards } = await service.list(auth.organizationId, query);
      res.set('X-Total-Count', String(total));
      return { status: 200, body: dashboards.map((d) => presentDashboard(d)) };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards',
    permission: 'dashboards:admin',
    tags,
    body: CreateDashboardBody,
    summary: 'Create a dashboard with an empty layout; isDefault: true makes it the default in place of the previous one',
    responses: { 201: { description: 'Created', schema: DashboardSchema } },
    handler: async ({ auth, body }) => ({ status: 201, body: presentDashboard(await service.create(auth.organizationId, auth.userId, body)) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/templates/:template',
    permission: 'dashboards:admin',
    tags,
    params: TemplateParams,
    body: CreateFromTemplateBody,
    summary:
      'Create a dashboard from a template, its widgets laid out. `operations`: runs per day by status, p95 duration per workflow, failures by step and model cost by model, over the built-in run sources. Each call makes another dashboard (the name gets a number when taken)',
    responses: { 201: { description: 'The dashboard with its widgets', schema: DashboardSchema } },
    handler: async ({ auth, params, body }) => {
      const { dashboard, widgets } = await service.createFromTemplate(auth.organizationId, auth.userId, params.template, body);
      return { status: 201, body: presentDashboard(dashboard, widgets) };
    },
  });

  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/:id',
    permission: 'dashboards:view',
    tags,
    params: DashboardParams,
    summary: 'A dashboard with its widgets inline, oldest first',
    responses: { 200: { description: 'The dashboard', schema: DashboardSchema } },
    handler: async ({ auth, params }) => {
      const { dashboard, widgets } = await service.getWithWidgets(auth.organizationId, params.id);
      return { status: 200, body: presentDashboard(dashboard, widgets) };
    },
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/dashboards/:id',
    permission: 'dashboards:admin',
    tags,
    params: DashboardParams,
    body: PatchDashboardBody,
    summary: 'Change name, description, isDefault, timezone or the filters; widgets and layout are untouched',
    responses: one,
    handler: async ({ auth, params, body }) => ({ status: 200, body: presentDashboard(await service.update(auth.organizationId, params.id, body)) }),
  });

  defineRoute(ctx, {
    method: 'delete',
    path: '/dashboards/:id',
    permission: 'dashboards:admin',
    tags,
    params: DashboardParams,
    summary: 'Delete a dashboard and its widgets; the data sources stay',
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ auth, params }) => {
      await service.delete(auth.organizationId, params.id);
      return { status: 200, body: { deleted: true } };
    },
  });

  defineRoute(ctx, {
    method: 'patch',
    path: '/dashboards/:id/layout',
    permission: 'dashboards:admin',
    tags,
    params: DashboardParams,
    body: LayoutBody,
    summary: 'Replace the layout wholesale: integer cells on the 12-column grid, widgets of this dashboard, none overlapping',
    responses: one,
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentDashboard(await service.replaceLayout(auth.organizationId, params.id, body.layout)),
    }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/:dashboardId/widgets',
    permission: 'dashboards:admin',
    tags,
    params: DashboardWidgetsParams,
    body: CreateWidgetBody,
    summary: "Add a widget at the bottom of the grid, at its chart type's default size",
    responses: { 201: { description: 'Created', schema: WidgetSchema } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: presentWidget(await service.addWidget(auth.organizationId, params.dashboardId, body)) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/:id/data',
    permission: 'dashboards:view',
    tags,
    params: DashboardParams,
    body: WidgetDataBody,
    summary: 'Run every widget of the dashboard (oldest first, a few at a time); a failing widget has an error entry, the others still answer',
    responses: { 201: { description: 'One entry per widget', schema: DashboardDataSchema } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await data.dashboard(auth.organizationId, params.id, body) }),
  });
}
