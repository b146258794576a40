import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { DistinctValuesBody, ExportBody, Filter, MetaEntry, QueryBody } from './analytics.schemas';
import type { AnalyticsService } from './analytics.service';
import { csvAttachment } from './csv-export';

const tags = ['Analytics'];

/** Analytics (interface.md 4.4): any member with dashboards:view may query. */
export function registerAnalyticsRoutes(ctx: RouteContext, service: AnalyticsService): void {
  // Queries name their filters by reference (the depth check in front of them hides the shape), so the shape is a component.
  ctx.registry.register('AnalyticsFilter', Filter);
  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/analytics/meta',
    permission: 'dashboards:view',
    tags,
    summary: 'One entry per data source: its cube name, measures and dimensions',
    responses: { 200: { description: 'Metadata', schema: z.array(MetaEntry) } },
    handler: async ({ auth }) => ({ status: 200, body: await service.meta(auth.organizationId) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/analytics/query',
    permission: 'dashboards:view',
    tags,
    body: QueryBody,
    summary: 'Run a query; rows are keyed by qualified member names',
    responses: {
      201: {
        description: 'Rows, Cube annotation and the query as run; `unknownMembers` lists members that match nothing (then data is empty)',
        schema: z.object({
          data: z.array(z.record(z.string(), z.unknown())),
          annotation: z.record(z.string(), z.unknown()),
          query: z.record(z.string(), z.unknown()),
          unknownMembers: z.array(z.string()).optional(),
        }),
      },
    },
    handler: async ({ auth, body }) => ({ status: 201, body: await service.query(auth.organizationId, body.query) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/analytics/export-csv',
    permission: 'dashboards:view',
    tags,
    body: ExportBody,
    summary: "Stream every row of a query as CSV, named from the title and today's date",
    responses: { 200: { description: 'CSV', contentType: 'text/csv', schema: z.string() } },
    handler: async ({ auth, body }, _req, res) => {
      await service.exportCsv(auth.organizationId, body.query, { start: csvAttachment(res, body.title) });
      return undefined;
    },
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/analytics/distinct-values',
    permission: 'dashboards:view',
    tags,
    body: DistinctValuesBody,
    summary: 'Sorted distinct values of a string dimension; unknown or disabled sources give an empty list',
    responses: { 201: { description: 'Values', schema: z.object({ values: z.array(z.string()) }) } },
    handler: async ({ auth, body }) => ({ status: 201, body: { values: await service.distinctValues(auth.organizationId, body) } }),
  });
}
