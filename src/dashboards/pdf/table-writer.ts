import type { Rgba } from './css-style';
import type { TableBlock, TableCell } from './layout-model';
import type { PageWriter } from './page-writer';
import { applyTextStyle, fontSpans, primaryFont, setFill, setStroke, spansWidth } from './pdf-fonts';
import { breakSpans, drawSpanLines } from './span-lines';

const PAD = 3;
const LINE_GAP = 1;
const BORDER: Rgba = { rgb: [200, 200, 200], alpha: 1 };
const HEADER_FILL: Rgba = { rgb: [240, 240, 240], alpha: 1 };
/** Column widths are measured on the header and this many body rows: enough to be representative, bounded in cost. */
const SAMPLE_ROWS = 300;
/** Rows drawn between two chances for the event loop. */
const ROWS_PER_STEP = 40;

/**
 * Draws a table row by row, starting a new page when the next row does not
 * fit and drawing the header rows again at the top of it. A generator: it
 * yields every few rows so the caller can give the event loop a turn.
 * A row taller than a page is cut to the page, its cells' text ending in "…".
 * A cell in one font is laid out by pdfkit; one whose text needs several
 * (a CJK name beside Latin text) by `breakSpans`.
 */
export function* drawTable(writer: PageWriter, block: TableBlock): Generator<void, void, void> {
  const { doc } = writer;
  writer.space(block.spaceBefore);
  const x0 = writer.left + block.indent;
  const widths = columnWidths(doc, block, Math.max(40, writer.contentWidth - block.indent));
  const tallest = writer.contentHeight;
  let headerHeights = block.header.map((row) => rowHeight(doc, row, widths, tallest));
  // A header taller than a third of the page is drawn once, not repeated.
  const repeat = headerHeights.reduce((a, b) => a + b, 0) <= tallest / 3;
  if (!repeat) headerHeights = headerHeights.map((h) => Math.min(h, tallest));
  const headerHeight = repeat ? headerHeights.reduce((a, b) => a + b, 0) : 0;
  const bodyTallest = tallest - headerHeight;

  const drawHeader = () => block.header.forEach((row, i) => drawRow(writer, row, widths, x0, headerHeights[i], true));
  const firstHeight = block.body.length > 0 ? rowHeight(doc, block.body[0], widths, bodyTallest) : 0;
  writer.ensure(headerHeights.reduce((a, b) => a + b, 0) + firstHeight);
  drawHeader();
  for (let i = 0; i < block.body.length; i++) {
    const row = block.body[i];
    const height = i === 0 ? firstHeight : rowHeight(doc, row, widths, bodyTallest);
    if (!writer.fits(height)) {
      writer.newPage();
      if (repeat) drawHeader();
    }
    drawRow(writer, row, widths, x0, Math.min(height, writer.bottom - writer.y), false);
    if (i % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
  }
}

/** The width of each cell of a row, by its column span. */
function cellWidths(row: TableCell[], widths: number[]): number[] {
  const out: number[] = [];
  let column = 0;
  for (const cell of row) {
    if (column >= widths.length) break;
    const span = Math.min(cell.colspan, widths.length - column);
    out.push(widths.slice(column, column + span).reduce((a, b) => a + b, 0));
    column += span;
  }
  return out;
}

function rowHeight(doc: PDFKit.PDFDocument, row: TableCell[], widths: number[], tallest: number): number {
  let height = 0;
  cellWidths(row, widths).forEach((width, i) => {
    const cell = row[i];
    const spans = fontSpans(cell.text, cell.style);
    applyTextStyle(doc, cell.style, spans[0]?.font);
    const inner = width - 2 * PAD;
    const text = spans[0]?.text ?? '';
    let textHeight: number;
    if (spans.length > 1) textHeight = breakSpans(doc, spans, cell.style.fontSize, inner).length * (doc.currentLineHeight(true) + LINE_GAP) - LINE_GAP;
    else if (!text.includes('\n') && doc.widthOfString(text) <= inner) textHeight = doc.currentLineHeight(true);
    else textHeight = doc.heightOfString(text, { width: inner, lineGap: LINE_GAP });
    height = Math.max(height, textHeight + 2 * PAD);
  });
  return Math.min(Math.max(height, 2 * PAD + 4), tallest);
}

function drawRow(writer: PageWriter, row: TableCell[], widths: number[], x0: number, height: number, header: boolean): void {
  const { doc } = writer;
  const y = writer.y;
  const cells = cellWidths(row, widths);
  let x = x0;
  cells.forEach((width, i) => {
    const cell = row[i];
    const fill = cell.background ?? (header ? HEADER_FILL : undefined);
    if (fill) {
      setFill(doc, fill);
      doc.rect(x, y, width, height).fill();
    }
    const spans = fontSpans(cell.text, cell.style);
    applyTextStyle(doc, cell.style, spans[0]?.font);
    const inner = { x: x + PAD, y: y + PAD, width: width - 2 * PAD, height: height - 2 * PAD };
    if (spans.length === 1) {
      const [{ text, oblique }] = spans;
      doc.text(text, inner.x, inner.y, { width: inner.width, height: inner.height, align: cell.align, lineGap: LINE_GAP, ellipsis: true, oblique });
    } else if (spans.length > 1) {
      const lineHeight = doc.currentLineHeight(true) + LINE_GAP;
      drawSpanLines(doc, breakSpans(doc, spans, cell.style.fontSize, inner.width), {
        ...inner,
        lineHeight,
        maxLines: Math.floor((inner.height + LINE_GAP) / lineHeight),
        align: cell.align,
        size: cell.style.fontSize,
        ellipsis: primaryFont(cell.style),
      });
    }
    x += width;
  });
  // One stroke per row: the row's box and the lines between its cells.
  const total = widths.reduce((a, b) => a + b, 0);
  setStroke(doc, BORDER);
  doc.lineWidth(0.5).rect(x0, y, total, height);
  let edge = x0;
  for (const width of cells.slice(0, -1)) {
    edge += width;
    doc.moveTo(edge, y).lineTo(edge, y + height);
  }
  doc.stroke();
  writer.advance(y + height);
}

/**
 * Column widths filling the available width: each column's natural width
 * (its widest single-line cell, sampled) when all fit, the surplus shared
 * out in proportion; otherwise every column gets up to an equal share and
 * the rest goes to the columns that want more, in proportion to their want.
 */
export function columnWidths(doc: PDFKit.PDFDocument, block: TableBlock, available: number): number[] {
  const n = Math.max(1, block.columns);
  const natural = new Array<number>(n).fill(2 * PAD + 8);
  for (const row of [...block.header, ...block.body.slice(0, SAMPLE_ROWS)]) {
    let column = 0;
    for (const cell of row) {
      if (column >= n) break;
      if (cell.colspan === 1) {
        const widest = Math.max(...cell.text.split('\n').map((line) => spansWidth(doc, fontSpans(line, cell.style), cell.style.fontSize)));
        natural[column] = Math.max(natural[column], widest + 2 * PAD + 1);
      }
      column += cell.colspan;
    }
  }
  const sum = natural.reduce((a, b) => a + b, 0);
  if (sum <= available) return natural.map((w) => w + ((available - sum) * w) / sum);
  const fair = available / n;
  const widths = natural.map((w) => Math.min(w, fair));
  const spare = available - widths.reduce((a, b) => a + b, 0);
  const want = natural.map((w, i) => w - widths[i]);
  const wanted = want.reduce((a, b) => a + b, 0);
  return widths.map((w, i) => (wanted > 0 ? w + (spare * want[i]) / wanted : w));
}
