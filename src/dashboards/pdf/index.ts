// The server-side PDF renderer of POST /dashboards/{id}/export-pdf: HTML in, a PDF stream out.
export { renderPdf, PAGE_MARGIN } from './render';
export { pdfFileName } from './file-name';
export { PdfInputTooLarge, PdfInputInvalid } from './pdf-errors';
export { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf-limits';
export { PDF_PAGE_SIZES, PDF_PAGE_SIZE_NAMES, type PdfPageSize, type PdfRenderOptions } from './pdf-options';
