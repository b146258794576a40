import { pipeline } from 'node:stream/promises';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import type { DashboardPdfService } from './dashboard-pdf.service';
import { PDF_PAGE_SIZE_NAMES } from './pdf';

const Params = z.object({ id: z.uuid() });

const Body = z
  .strictObject({
    html: z.string().describe('the page to print; PNG and JPEG images only as data: URIs (README "PDF export" lists the HTML and CSS honoured)'),
    title: z.string().max(200).optional().describe('PDF title and file name; the dashboard name when absent'),
    landscape: z.boolean().default(false),
    pageSize: z.enum(PDF_PAGE_SIZE_NAMES).default('A4'),
  })
  .openapi('DashboardPdfRequest');

export function registerDashboardPdfRoutes(ctx: RouteContext, service: DashboardPdfService): void {
  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/:id/export-pdf',
    permission: 'dashboards:view',
    tags: ['Dashboards'],
    params: Params,
    body: Body,
    // The renderer's own bound is 5 MiB of HTML (413); JSON escaping of its quotes makes the body larger than that.
    bodyLimit: '12mb',
    summary: 'Render the supplied HTML to a PDF attachment, server-side (widgets are not re-run)',
    responses: {
      200: { description: 'The PDF, named from `title` or the dashboard', schema: z.string().openapi({ format: 'binary' }), contentType: 'application/pdf' },
      413: { description: 'The HTML, an image or the element count is over its limit (the message names it)' },
    },
    handler: async ({ auth, params, body }, _req, res) => {
      await service.export(
        auth.organizationId,
        params.id,
        body,
        async (disposition, pdf) => {
          res.status(200).type('application/pdf').setHeader('Content-Disposition', disposition);
          await pipeline(pdf, res);
        },
        () => !res.socket || res.socket.destroyed,
      );
      return undefined;
    },
  });
}
