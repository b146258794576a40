/**
 * The bounds of one render. Each is checked before the first byte of the PDF
 * is written; past one, `renderPdf` rejects with `PdfInputTooLarge` (413).
 */
export interface PdfLimits {
  /** UTF-8 bytes of the HTML, data URIs included. */
  maxHtmlBytes: number;
  /** Elements in the document, SVG elements included. */
  maxElements: number;
  /** How deep elements may nest (`<html>` is 1). */
  maxDepth: number;
  /** Elements inside one `<svg>` (itself included). */
  maxSvgElements: number;
  /** Decoded bytes of one data-URI image. */
  maxImageBytes: number;
  /** Width or height of one image, in pixels. */
  maxImageSide: number;
  /** Width × height of one image. */
  maxImagePixels: number;
  /** Width × height of all images of one document together. */
  maxTotalImagePixels: number;
  /** Explicit page breaks (CSS page-break/break properties). */
  maxPageBreaks: number;
}

export const DEFAULT_PDF_LIMITS: Readonly<PdfLimits> = Object.freeze({
  maxHtmlBytes: 5 * 1024 * 1024,
  maxElements: 100_000,
  maxDepth: 128,
  maxSvgElements: 20_000,
  maxImageBytes: 4 * 1024 * 1024,
  maxImageSide: 10_000,
  maxImagePixels: 16_000_000,
  maxTotalImagePixels: 40_000_000,
  maxPageBreaks: 1_000,
});
