import { create as contentDisposition } from 'content-disposition';
import { defineRoute, type RouteContext } from '../http/route';
import { exportIdFor } from './dashboard-export';
import {
  DASHBOARD_IMPORT_MAX_BYTES,
  DashboardExport,
  DashboardImportBody,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  parseDashboardImport,
} from './dashboard-export.schemas';
import type { DashboardExportService } from './dashboard-export.service';
import type { DashboardImportService } from './dashboard-import.service';
import { readJsonUpload } from '../http/json-upload';
import { DashboardParams, DashboardSchema } from './dashboards.schemas';
import { presentDashboard } from './dashboards.presenter';

const tags = ['Dashboards'];

/**
 * Portable export and import of a dashboard (interface.md 4.3): the export
 * needs dashboards:view, the import dashboards:admin. The import reads its
 * body itself (up to DASHBOARD_IMPORT_MAX_BYTES, gzip allowed), so that the
 * format and version are checked before the shape and an export of a large
 * dashboard is never refused by the API's JSON body limit.
 */
export function registerDashboardExportRoutes(
  ctx: RouteContext,
  exporter: DashboardExportService,
  importer: DashboardImportService,
  maxImportBytes = DASHBOARD_IMPORT_MAX_BYTES,
): void {
  ctx.registry.register('DashboardImport', DashboardImportBody);

  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/:id/export',
    permission: 'dashboards:view',
    tags,
    params: DashboardParams,
    summary: `The dashboard as a portable ${EXPORT_FORMAT} payload (version ${EXPORT_VERSION}): widgets, filters, layout and the model of each source, without ids`,
    responses: { 200: { description: 'The payload, also offered as a file download', schema: DashboardExport } },
    handler: async ({ auth, params }, _req, res) => {
      const payload = await exporter.export(auth.organizationId, params.id);
      res.set('Content-Disposition', contentDisposition(`${exportIdFor(payload.dashboard.name, new Set())}.dashboard.json`));
      return { status: 200, body: payload };
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/import',
    permission: 'dashboards:admin',
    tags,
    rawBody: {
      contentTypes: ['application/json'],
      description:
        'A DashboardImport document (#/components/schemas/DashboardImport): an export payload with `dataSourceMappings` (exportId → a data source id of this organization) and an optional `name`; gzip allowed (Content-Encoding: gzip)',
    },
    summary: 'Create a dashboard from an export payload, its field references rewritten to the mapped sources; all or nothing',
    responses: {
      201: { description: 'The dashboard with its widgets', schema: DashboardSchema },
      413: { description: `Larger than ${maxImportBytes} bytes` },
      415: { description: 'Not application/json' },
    },
    handler: async ({ auth }, req) => {
      const input = parseDashboardImport(await readJsonUpload(req, maxImportBytes));
      const { dashboard, widgets } = await importer.import(auth.organizationId, auth.userId, input);
      return { status: 201, body: presentDashboard(dashboard, widgets) };
    },
  });
}
