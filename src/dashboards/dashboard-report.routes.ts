import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import type { DashboardReportService, ReportRequest } from './dashboard-report.service';
import { DashboardParams, FilterValuesById, TimeZone } from './dashboards.schemas';
import { PDF_PAGE_SIZE_NAMES } from './pdf';

const PageSize = z.enum(PDF_PAGE_SIZE_NAMES).default('A4');

export const ReportBody = z
  .strictObject({
    filters: FilterValuesById.optional().openapi({ description: "Filter id → values, in place of the dashboard's defaults ([] clears one)" }),
    timezone: TimeZone.optional().openapi({ description: "The viewer's zone: used when the dashboard's timezone is null" }),
    pageSize: PageSize,
    landscape: z.boolean().default(true),
  })
  .openapi('DashboardReportRequest');

const FILTER_PREFIX = 'filter.';

/** The GET form: `?filter.<id>=value` (repeated for several values, once empty to clear one), `timezone`, `pageSize`, `landscape`. */
export const ReportQuery = z
  .object({
    timezone: TimeZone.optional(),
    pageSize: PageSize,
    landscape: z.enum(['true', 'false']).default('true').openapi({ description: 'Landscape pages (default true)' }),
  })
  .catchall(z.union([z.string(), z.array(z.string())]))
  .superRefine((q, ctx) => {
    for (const key of Object.keys(q)) {
      if (!['timezone', 'pageSize', 'landscape'].includes(key) && !key.startsWith(FILTER_PREFIX)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `is not a parameter of the report: filter values are filter.<filter id>=<value>` });
      }
    }
  })
  .transform((q): ReportRequest => {
    const filters: Record<string, string[]> = {};
    for (const [key, value] of Object.entries(q)) {
      if (!key.startsWith(FILTER_PREFIX)) continue;
      filters[key.slice(FILTER_PREFIX.length)] = (Array.isArray(value) ? value : [value]).filter((v) => v !== '');
    }
    return {
      filters: Object.keys(filters).length > 0 ? filters : undefined,
      timezone: q.timezone as string | undefined,
      pageSize: q.pageSize as ReportRequest['pageSize'],
      landscape: q.landscape === 'true',
    };
  });

const responses = {
  200: { description: 'The report, named after the dashboard', schema: z.string().openapi({ format: 'binary' }), contentType: 'application/pdf' },
  413: { description: 'The report is over a renderer limit (the message names it)' },
  429: { description: '`pdf_busy`: too many PDF renders waiting' },
};

const summary =
  "Print the dashboard with fresh data: its widgets run as POST /dashboards/{id}/data runs them, charts drawn as the console draws them, laid out on the dashboard's grid";

/**
 * GET and POST /dashboards/{id}/report.pdf. Registered before
 * registerDashboardRoutes, so `/dashboards/:id` does not take the path.
 */
export function registerDashboardReportRoutes(ctx: RouteContext, service: DashboardReportService): void {
  const send = (res: Response) => async (disposition: string, pdf: NodeJS.ReadableStream) => {
    res.status(200).type('application/pdf').setHeader('Content-Disposition', disposition);
    await pipeline(pdf, res);
  };
  const left = (res: Response) => () => !res.socket || res.socket.destroyed;
  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/:id/report.pdf',
    permission: 'dashboards:view',
    tags: ['Dashboards'],
    params: DashboardParams,
    query: ReportQuery,
    summary,
    responses,
    handler: async ({ auth, params, query }, _req, res) => {
      await service.report(auth.organizationId, params.id, query, send(res), left(res));
      return undefined;
    },
  });
  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/:id/report.pdf',
    permission: 'dashboards:view',
    tags: ['Dashboards'],
    params: DashboardParams,
    body: ReportBody,
    summary,
    responses,
    handler: async ({ auth, params, body }, _req, res) => {
      await service.report(auth.organizationId, params.id, body, send(res), left(res));
      return undefined;
    },
  });
}
