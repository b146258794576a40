import type { Rgba } from './css-style';
import type { TableBlock, TableCell } from './layout-model';
import type { PageWriter } from './page-writer';
import { selectFont, setFill, setStroke } from './pdf-fonts';
import { breakSpans, drawSpanLines, linesHeight, runSpans, type SpanLine, type StyledSpan } from './span-lines';

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
 * A cell's runs are laid out by `breakSpans`, which measures text in several
 * fonts and sizes (a CJK name beside Latin text, a 28pt number under its
 * label), so the row's height is known before it is drawn.
 */
export function* drawTable(writer: PageWriter, block: TableBlock): Generator<void, void, void> {
  const { doc } = writer;
  writer.space(block.spaceBefore);
  const x0 = writer.left + block.indent;
  const widths = columnWidths(doc, block, Math.max(40, writer.contentWidth - block.indent));
  const tallest = writer.contentHeight;
  const headerRows = block.header.map((row) => layoutRow(doc, row, widths));
  const headerHeights = headerRows.map((row) => Math.min(row.height, tallest));
  // A header taller than a third of the page is drawn once, not repeated.
  const repeat = headerHeights.reduce((a, b) => a + b, 0) <= tallest / 3;
  const headerHeight = repeat ? headerHeights.reduce((a, b) => a + b, 0) : 0;
  const bodyTallest = tallest - headerHeight;

  const drawHeader = () => block.header.forEach((row, i) => drawRow(writer, row, headerRows[i].lines, widths, x0, headerHeights[i], true));
  const first = block.body.length > 0 ? layoutRow(doc, block.body[0], widths) : undefined;
  writer.ensure(headerHeights.reduce((a, b) => a + b, 0) + Math.min(first?.height ?? 0, bodyTallest));
  drawHeader();
  for (let i = 0; i < block.body.length; i++) {
    const row = block.body[i];
    const laid = i === 0 ? first! : layoutRow(doc, row, widths);
    const height = Math.min(laid.height, bodyTallest);
    if (!writer.fits(height)) {
      writer.newPage();
      if (repeat) drawHeader();
    }
    drawRow(writer, row, laid.lines, widths, x0, Math.min(height, writer.bottom - writer.y), false);
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

/** The lines of each cell of a row at its width, and the row's height (its tallest cell, at least a thin row). */
function layoutRow(doc: PDFKit.PDFDocument, row: TableCell[], widths: number[]): { lines: SpanLine[][]; height: number } {
  const lines = cellWidths(row, widths).map((width, i) => breakSpans(doc, runSpans(row[i].runs), width - 2 * PAD, row[i].style));
  const height = Math.max(2 * PAD + 4, ...lines.map((cell) => linesHeight(cell, LINE_GAP) + 2 * PAD));
  return { lines, height };
}

function drawRow(writer: PageWriter, row: TableCell[], lines: SpanLine[][], widths: number[], x0: number, height: number, header: boolean): void {
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
    drawSpanLines(doc, lines[i], { x: x + PAD, y: y + PAD, width: width - 2 * PAD, height: height - 2 * PAD, gap: LINE_GAP, align: cell.align });
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
      if (cell.colspan === 1) natural[column] = Math.max(natural[column], widestLine(doc, runSpans(cell.runs)) + 2 * PAD + 1);
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

/** The width of the widest hard line of the spans, each part at its own size. */
function widestLine(doc: PDFKit.PDFDocument, spans: StyledSpan[]): number {
  let widest = 0;
  let line = 0;
  for (const span of spans) {
    selectFont(doc, span.font, span.style.fontSize);
    span.text.split('\n').forEach((segment, i) => {
      if (i > 0) line = 0;
      line += doc.widthOfString(segment);
      widest = Math.max(widest, line);
    });
  }
  return widest;
}
