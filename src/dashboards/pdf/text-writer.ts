import type { Run, TextBlock, TextStyle } from './layout-model';
import type { PageWriter } from './page-writer';
import { applyTextStyle, fontSpans, spansWidth, type FontSpan } from './pdf-fonts';
import { drawSpans } from './span-lines';

const LINE_GAP = 1.5;
/** The space between a list marker and its item's text. */
const MARKER_GAP = 4;
/** The most text handed to pdfkit in one call. */
const PIECE = 4000;
/**
 * The most of a word without spaces handed to pdfkit in one call: pdfkit
 * breaks a word wider than the line by measuring what is left of it again
 * for each line, so one 300,000-character word took it 49 s; in pieces of
 * this size each costs little, and pdfkit breaks the line between pieces.
 */
const WORD_PIECE = 100;
const ONE_WORD = /^[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]*$/;

/**
 * Draws a paragraph of styled runs with pdfkit's line breaking (`continued`
 * chains the runs into one paragraph); pdfkit starts a new page when the
 * text reaches the bottom. A heading moves to the next page rather than sit
 * alone at the bottom of one. Each run is cut into spans by font (DejaVu,
 * a CJK fallback) that continue one another on the line. Long text goes to
 * pdfkit a few thousand characters at a time, yielding in between, so a huge
 * paragraph does not hold the event loop.
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
    const { style } = block.marker;
    const spans = fontSpans(block.marker.text, style);
    applyTextStyle(doc, style);
    drawSpans(doc, spans, x - MARKER_GAP - spansWidth(doc, spans, style.fontSize), top, style.fontSize);
  }
  if (block.runs.length === 0) {
    writer.advance(top + lineHeight);
    return;
  }
  // One pdfkit `continued` chain per hard line: pdfkit starts the line after a
  // "\n" inside a chain at the wrong x, and drops a "\n" that ends a fragment.
  let y = top;
  for (const line of hardLines(block.runs)) {
    const queue = fragments(line);
    let next = queue.next();
    if (next.done) {
      y += lineHeight;
      continue;
    }
    let first = true;
    while (!next.done) {
      const { span, style, endsLongPiece } = next.value;
      next = queue.next();
      applyTextStyle(doc, style, span.font);
      const options: PDFKit.Mixins.TextOptions = {
        width,
        align: block.align,
        continued: !next.done,
        underline: style.underline,
        strike: style.strike,
        lineGap: LINE_GAP,
        oblique: span.oblique,
      };
      if (first) doc.text(span.text, x, y, options);
      else doc.text(span.text, options);
      first = false;
      if (endsLongPiece) yield;
    }
    y = doc.y;
  }
  writer.advance(y);
}

/** The line's text in pieces of at most PIECE characters, each cut into spans by font; spans are made one piece at a time. */
function* fragments(line: Run[]): Generator<{ span: FontSpan; style: TextStyle; endsLongPiece: boolean }, void, void> {
  for (const run of line) {
    for (const piece of piecesOf(run.text)) {
      const spans = fontSpans(piece, run.style);
      for (let i = 0; i < spans.length; i++) yield { span: spans[i], style: run.style, endsLongPiece: i === spans.length - 1 && piece.length >= PIECE / 2 };
    }
  }
}

/** A long text cut after a space near every PIECE characters (or at PIECE when it has no space, never inside a surrogate pair). */
function piecesOf(text: string): string[] {
  if (text.length <= PIECE) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > PIECE) {
    const space = text.lastIndexOf(' ', start + PIECE);
    // A window without a space is one word when its script breaks only at spaces (Latin, Greek, Cyrillic);
    // CJK text breaks between its characters, so pdfkit takes it in whole pieces.
    let end = space > start + PIECE / 2 ? space + 1 : start + (ONE_WORD.test(text.slice(start, start + PIECE)) ? WORD_PIECE : PIECE);
    if (/[\ud800-\udbff]/.test(text[end - 1])) end--;
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
