import type { Readable } from 'node:stream';
import { Semaphore } from '../data-stores/semaphore';
import type { DashboardsService } from './dashboards.service';
import { pdfFileName, type PdfPageSize, renderPdf } from './pdf';

export interface PdfExportRequest {
  html: string;
  title?: string;
  landscape: boolean;
  pageSize: PdfPageSize;
}

/** Renders at once, per process: a render near the image bounds holds a few hundred MB for a moment. */
export const PDF_RENDERS_AT_ONCE = 2;

/**
 * POST /dashboards/{id}/export-pdf: the HTML the caller sends, as a PDF named
 * after `title` or the dashboard (interface.md 4.3). Widgets are not re-run;
 * the dashboard is read only to prove it is the caller's and to name the file.
 */
export class DashboardPdfService {
  private readonly renders = new Semaphore(PDF_RENDERS_AT_ONCE);

  constructor(private readonly dashboards: Pick<DashboardsService, 'get'>) {}

  /**
   * Hands `write` the Content-Disposition value and the PDF stream; the render
   * slot is held until `write` has sent it all (or the caller left). Input the
   * renderer refuses (PdfInputTooLarge 413, PdfInputInvalid 400) fails before
   * `write` is called, so the caller still gets an error body.
   */
  async export(organizationId: string, dashboardId: string, request: PdfExportRequest, write: (disposition: string, pdf: Readable) => Promise<void>) {
    const dashboard = await this.dashboards.get(organizationId, dashboardId);
    await this.renders.run(async () => {
      const pdf = await renderPdf(request.html, { title: request.title ?? dashboard.name, landscape: request.landscape, pageSize: request.pageSize });
      await write(pdfFileName(request.title, dashboard.name), pdf);
    });
  }
}
