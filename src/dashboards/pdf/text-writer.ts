import { applyTextStyle } from './pdf-fonts';
import type { Run, TextBlock } from './layout-model';
import type { PageWriter } from './page-writer';

const LINE_GAP = 1.5;
/** The gutter a list marker sits in, left of the item's text. */
const MARKER_GUTTER = 16;
/** The most text handed to pdfkit in one call. */
const PIECE = 4000;

/**
 * Draws a paragraph of styled runs with pdfkit's line breaking (`continued`
 * chains the runs into one paragraph); pdfkit starts a new page when the
 * text reaches the bottom. A heading moves to the next page rather than sit
 * alone at the bottom of one. Long text goes to pdfkit a few thousand
 * characters at a time, yielding in between, so a huge paragraph does not
 * hold the event loop.
 */
export function* drawTextBlock(writer: PageWriter, block: TextBlock): Generator<void, void, void> {
  const { doc } = writer;
  writer.space(block.spaceBefore);
  const x = writer.left + block.indent;
  const width = Math.max(40, writer.contentWidth - block.indent);
  const first = block.runs[0] ?? block.marker;
  if (!first) return;
  applyTextStyle(doc, first.style);
  const lineHeight = doc.currentLineHeight(true) + LINE_GAP;
  writer.ensure(block.keepWithNext ? lineHeight * 3 : lineHeight);
  const top = writer.y;
  if (block.marker) {
    applyTextStyle(doc, block.marker.style);
    doc.text(block.marker.text, x - MARKER_GUTTER, top, { width: MARKER_GUTTER - 4, align: 'right', lineBreak: false });
  }
  if (block.runs.length === 0) {
    writer.advance(top + lineHeight);
    return;
  }
  // One pdfkit `continued` chain per hard line: pdfkit starts the line after a
  // "\n" inside a chain at the wrong x, and drops a "\n" that ends a fragment.
  let y = top;
  for (const line of hardLines(block.runs)) {
    if (line.length === 0) {
      y += lineHeight;
      continue;
    }
    const pieces = line.flatMap((run) => piecesOf(run.text).map((text) => ({ text, style: run.style })));
    for (let i = 0; i < pieces.length; i++) {
      const run = pieces[i];
      applyTextStyle(doc, run.style);
      const options: PDFKit.Mixins.TextOptions = {
        width,
        align: block.align,
        continued: i < pieces.length - 1,
        underline: run.style.underline,
        strike: run.style.strike,
        lineGap: LINE_GAP,
      };
      if (i === 0) doc.text(run.text, x, y, options);
      else doc.text(run.text, options);
      if (run.text.length >= PIECE / 2) yield;
    }
    y = doc.y;
  }
  writer.advance(y);
}

/** A long text cut after a space near every PIECE characters (or at PIECE when it has no space). */
function piecesOf(text: string): string[] {
  if (text.length <= PIECE) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > PIECE) {
    const space = text.lastIndexOf(' ', start + PIECE);
    const end = space > start + PIECE / 2 ? space + 1 : start + PIECE;
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** The runs split at their line breaks: one list of runs (none for an empty line) per line. */
function hardLines(runs: Run[]): Run[][] {
  const lines: Run[][] = [[]];
  for (const run of runs) {
    run.text.split('\n').forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1].push({ text: part, style: run.style });
    });
  }
  // A break at the very end draws nothing, as in a browser.
  if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
  return lines;
}
