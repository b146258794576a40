// The server-side PDF renderer of POST /dashboards/{id}/export-pdf: HTML in, a PDF stream out.
import type { Readable } from 'node:stream';
import type { PdfRenderOptions } from './pdf-options';

/** Renders the HTML to a PDF stream (render.ts). pdfkit and the fonts load at the first PDF, not at every start. */
export async function renderPdf(html: string, options?: PdfRenderOptions): Promise<Readable> {
  const { renderPdf: render } = await import('./render.js');
  return render(html, options);
}
export { pdfFileName } from './file-name';
export { PdfInputTooLarge, PdfInputInvalid } from './pdf-errors';
export { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf-limits';
export { PDF_PAGE_SIZES, PDF_PAGE_SIZE_NAMES, type PdfPageSize, type PdfRenderOptions } from './pdf-options';
