import type { TextAlign } from './css-style';
import type { Run, TextStyle } from './layout-model';
import { applyTextStyle, fontSpans, selectFont, type FontSpan } from './pdf-fonts';

/** A stretch of text in one font and one style: a run of a paragraph or a table cell, cut by `fontSpans`. */
export interface StyledSpan extends FontSpan {
  style: TextStyle;
}

/** The runs as spans, each run cut where its characters need another font (DejaVu, a CJK fallback). */
export function runSpans(runs: Run[]): StyledSpan[] {
  return runs.flatMap((run) => fontSpans(run.text, run.style).map((span) => ({ ...span, style: run.style })));
}

/** Part of a line in one font and style, with its width in points. */
interface LinePart {
  span: StyledSpan;
  text: string;
  width: number;
}

export interface SpanLine {
  parts: LinePart[];
  /** Without the spaces at its end. */
  width: number;
  /** The line's height and the distance from its top to the baseline: those of its largest text, so runs of several sizes share a baseline. */
  height: number;
  ascent: number;
}

/** Draws spans side by side on one line from (x, y), without wrapping; returns the width drawn. */
export function drawSpans(doc: PDFKit.PDFDocument, spans: FontSpan[], x: number, y: number, size: number, options: PDFKit.Mixins.TextOptions = {}): number {
  let left = x;
  for (const span of spans) {
    selectFont(doc, span.font, size);
    doc.text(span.text, left, y, { ...options, lineBreak: false, oblique: span.oblique });
    left += doc.widthOfString(span.text);
  }
  return left - x;
}

/** Wide characters (CJK, kana, Hangul, full-width forms): a line may break before and after each. */
const WIDE = '\\u1100-\\u11ff\\u2e80-\\ua4cf\\uac00-\\ud7af\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uffef\\u{20000}-\\u{3ffff}';
/** A word with the spaces after it, a wide character with the spaces after it, or spaces. */
const UNITS = new RegExp(`[^ ${WIDE}]+ *|[${WIDE}] *| +`, 'gu');

/**
 * Breaks styled text (runs in several fonts and sizes) into lines at most
 * `width` points wide: after spaces, around wide characters, and inside a
 * word only when the word alone is too wide; `\n` ends a line. For a table
 * cell, whose height must be known before it is drawn, which pdfkit's own
 * line breaking (one font and size a call) cannot measure. `base` is the
 * style of an empty line (the cell's own).
 */
export function breakSpans(doc: PDFKit.PDFDocument, spans: StyledSpan[], width: number, base: TextStyle): SpanLine[] {
  const lines: SpanLine[] = [];
  let line: LinePart[] = [];
  let lineWidth = 0;
  const endLine = () => {
    lines.push({ parts: line, width: trimmedWidth(doc, line), ...lineMetrics(doc, line, base) });
    line = [];
    lineWidth = 0;
  };
  const place = (span: StyledSpan, text: string, unitWidth: number) => {
    const last = line[line.length - 1];
    if (last && last.span === span) {
      last.text += text;
      last.width += unitWidth;
    } else {
      line.push({ span, text, width: unitWidth });
    }
    lineWidth += unitWidth;
  };
  spans.forEach((span) => {
    selectFont(doc, span.font, span.style.fontSize);
    span.text.split('\n').forEach((segment, i) => {
      if (i > 0) endLine();
      for (const [unit] of segment.matchAll(UNITS)) {
        if (line.length === 0 && unit.trim() === '') continue;
        const unitWidth = doc.widthOfString(unit);
        const inkWidth = unit.endsWith(' ') ? doc.widthOfString(unit.trimEnd()) : unitWidth;
        if (line.length > 0 && lineWidth + inkWidth > width) {
          endLine();
          if (unit.trim() === '') continue;
        }
        if (inkWidth <= width) {
          place(span, unit, unitWidth);
          continue;
        }
        // A word wider than the line: as many characters as fit on each line.
        for (const ch of unit) {
          const chWidth = doc.widthOfString(ch);
          if (line.length > 0 && lineWidth + chWidth > width && ch !== ' ') endLine();
          place(span, ch, chWidth);
        }
      }
    });
  });
  if (line.length > 0 || lines.length === 0) endLine();
  return lines;
}

/** Height and ascent of a line: of its largest part (an empty line: of `base`). */
function lineMetrics(doc: PDFKit.PDFDocument, parts: LinePart[], base: TextStyle): { height: number; ascent: number } {
  let height = 0;
  let ascent = 0;
  for (const { span } of parts.length > 0 ? parts : [{ span: { ...fontSpans(' ', base)[0], style: base } }]) {
    selectFont(doc, span.font, span.style.fontSize);
    height = Math.max(height, doc.currentLineHeight(true));
    ascent = Math.max(ascent, ascentOf(span));
  }
  return { height, ascent };
}

/** From the top of a line of this span's size to its baseline, in points. */
const ascentOf = (span: StyledSpan) => (span.font.font.ascent / span.font.font.unitsPerEm) * span.style.fontSize;

function trimmedWidth(doc: PDFKit.PDFDocument, parts: LinePart[]): number {
  const last = parts[parts.length - 1];
  if (!last || !last.text.endsWith(' ')) return parts.reduce((sum, part) => sum + part.width, 0);
  selectFont(doc, last.span.font, last.span.style.fontSize);
  const trailing = last.width - doc.widthOfString(last.text.trimEnd());
  return parts.reduce((sum, part) => sum + part.width, 0) - trailing;
}

/** The height of lines drawn `gap` apart. */
export const linesHeight = (lines: SpanLine[], gap: number) => lines.reduce((sum, line) => sum + line.height, 0) + gap * Math.max(0, lines.length - 1);

/**
 * Draws lines from `breakSpans` from (x, y), `gap` apart, aligned in
 * `width`, each part in its own style on the line's baseline; as many as fit
 * in `height` (at least one), the last one then ending in "…".
 */
export function drawSpanLines(
  doc: PDFKit.PDFDocument,
  lines: SpanLine[],
  box: { x: number; y: number; width: number; height: number; gap: number; align: TextAlign },
): void {
  let shown = 0;
  for (let used = 0; shown < lines.length && (shown === 0 || used + lines[shown].height <= box.height + 0.01); shown++) used += lines[shown].height + box.gap;
  const drawn = lines.slice(0, shown);
  if (shown < lines.length) drawn[shown - 1] = withEllipsis(doc, drawn[shown - 1], box.width);
  let top = box.y;
  for (const line of drawn) {
    const free = Math.max(0, box.width - line.width);
    let left = box.x + (box.align === 'center' ? free / 2 : box.align === 'right' ? free : 0);
    for (const part of line.parts) {
      const { span } = part;
      applyTextStyle(doc, span.style, span.font);
      const options = { lineBreak: false, oblique: span.oblique, underline: span.style.underline, strike: span.style.strike };
      doc.text(part.text, left, top + line.ascent - ascentOf(span), options);
      left += part.width;
    }
    top += line.height + box.gap;
  }
}

/** The line cut so that "…" (in the style of its last part) fits after it. */
function withEllipsis(doc: PDFKit.PDFDocument, line: SpanLine, width: number): SpanLine {
  const lastSpan = line.parts[line.parts.length - 1]?.span;
  if (!lastSpan) return line;
  const ellipsisSpan: StyledSpan = { ...lastSpan, text: '…' };
  selectFont(doc, ellipsisSpan.font, ellipsisSpan.style.fontSize);
  const ellipsisWidth = doc.widthOfString('…');
  const room = width - ellipsisWidth;
  const parts = line.parts.map((part) => ({ ...part }));
  let total = parts.reduce((sum, part) => sum + part.width, 0);
  while (parts.length > 0 && (total > room || parts[parts.length - 1].text.endsWith(' '))) {
    const last = parts[parts.length - 1];
    const chars = [...last.text];
    chars.pop();
    const text = chars.join('');
    selectFont(doc, last.span.font, last.span.style.fontSize);
    const narrower = doc.widthOfString(text);
    total -= last.width - narrower;
    if (text) {
      last.text = text;
      last.width = narrower;
    } else {
      parts.pop();
    }
  }
  const ellipsis: LinePart = { span: ellipsisSpan, text: '…', width: ellipsisWidth };
  return { ...line, parts: [...parts, ellipsis], width: total + ellipsis.width };
}
