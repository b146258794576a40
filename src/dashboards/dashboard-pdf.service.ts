import type { Readable } from 'node:stream';
import { Semaphore } from '../lib/semaphore';
import { TooManyRequestsError } from '../errors/errors';
import { pdfRenders } from '../observability/metrics';
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
/** Requests that may wait for a render slot, each holding its parsed body (up to 12 MB); more are refused with 429. */
export const PDF_RENDERS_WAITING = 8;
const RETRY_AFTER_SECONDS = 5;

/**
 * POST /dashboards/{id}/export-pdf: the HTML the caller sends, as a PDF named
 * after `title` or the dashboard (interface.md 4.3). Widgets are not re-run;
 * the dashboard is read only to prove it is the caller's and to name the file.
 */
export class DashboardPdfService {
  constructor(private readonly dashboards: Pick<DashboardsService, 'get'>) {}

  /**
   * Hands `write` the Content-Disposition value and the PDF stream; the render
   * slot is held until `write` has sent it all (or the caller left). Input the
   * renderer refuses (PdfInputTooLarge 413, PdfInputInvalid 400) fails before
   * `write` is called, so the caller still gets an error body.
   */
  async export(
    organizationId: string,
    dashboardId: string,
    request: PdfExportRequest,
    write: (disposition: string, pdf: Readable) => Promise<void>,
    callerLeft: () => boolean = () => false,
  ) {
    const dashboard = await this.dashboards.get(organizationId, dashboardId);
    await renderInTurn(callerLeft, async () => {
      const pdf = await renderPdf(request.html, { title: request.title ?? dashboard.name, landscape: request.landscape, pageSize: request.pageSize });
      await write(pdfFileName(request.title, dashboard.name), pdf);
    });
  }
}

// One set of render slots per process, shared by the HTML export and the dashboard report.
const renders = new Semaphore(PDF_RENDERS_AT_ONCE);
let waiting = 0;

/**
 * Runs `render` in one of the process's PDF render slots (429 `pdf_busy` when
 * PDF_RENDERS_WAITING requests already wait); a caller that left while
 * waiting is not rendered for.
 */
export async function renderInTurn(callerLeft: () => boolean, render: () => Promise<void>): Promise<void> {
  if (waiting >= PDF_RENDERS_WAITING) {
    throw new TooManyRequestsError('Too many PDF exports are waiting to render; try again shortly', 'pdf_busy', RETRY_AFTER_SECONDS);
  }
  waiting++;
  pdfRenders.inc({ state: 'waiting' });
  await renders.run(async () => {
    waiting--;
    pdfRenders.dec({ state: 'waiting' });
    if (callerLeft()) return;
    pdfRenders.inc({ state: 'rendering' });
    try {
      await render();
    } finally {
      pdfRenders.dec({ state: 'rendering' });
    }
  });
}
