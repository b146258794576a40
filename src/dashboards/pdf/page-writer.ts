/**
 * The flow of blocks down the pages of one document: where the next block
 * goes, whether it fits, and a fresh page when it does not. pdfkit adds pages
 * by itself when a paragraph runs past the bottom; `pageAdded` keeps the
 * count and the "anything on this page yet" flag right either way.
 */
export class PageWriter {
  /** Top of the next block, in points from the top of the page. */
  y: number;
  /** Whether anything has been drawn on the current page (so a page break or a too-tall block needs a new one). */
  pageHasContent = false;
  pages = 1;

  constructor(readonly doc: PDFKit.PDFDocument) {
    this.y = this.top;
    doc.on('pageAdded', () => {
      this.pages++;
      this.pageHasContent = false;
      this.y = this.top;
    });
  }

  get left(): number {
    return this.doc.page.margins.left;
  }

  get top(): number {
    return this.doc.page.margins.top;
  }

  get bottom(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  get contentWidth(): number {
    return this.doc.page.width - this.doc.page.margins.left - this.doc.page.margins.right;
  }

  get contentHeight(): number {
    return this.bottom - this.top;
  }

  newPage(): void {
    this.doc.addPage();
  }

  /** The collapsed margin above a block; none at the top of a page. */
  space(points: number): void {
    if (this.pageHasContent) this.y += points;
  }

  fits(height: number): boolean {
    return this.y + height <= this.bottom + 0.01;
  }

  /** A new page unless `height` fits below, or this page is still empty (then nothing would fit better). */
  ensure(height: number): void {
    if (!this.fits(height) && this.pageHasContent) this.newPage();
  }

  /** Moves below a block just drawn. */
  advance(to: number): void {
    this.y = to;
    this.pageHasContent = true;
  }
}
