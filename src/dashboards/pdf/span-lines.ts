import type { TextAlign } from './css-style';
import { selectFont, type FontSpan } from './pdf-fonts';

/** Part of a line in one font, with its width in points. */
interface LinePart {
  span: FontSpan;
  text: string;
  width: number;
}

export interface SpanLine {
  parts: LinePart[];
  /** Without the spaces at its end. */
  width: number;
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
 * Breaks text in several fonts into lines at most `width` points wide: after
 * spaces, around wide characters, and inside a word only when the word alone
 * is too wide. For a table cell whose text mixes fonts, which pdfkit's own
 * line breaking (one font a call) cannot measure; `\n` ends a line.
 */
export function breakSpans(doc: PDFKit.PDFDocument, spans: FontSpan[], size: number, width: number): SpanLine[] {
  const lines: SpanLine[] = [];
  let line: LinePart[] = [];
  let lineWidth = 0;
  const endLine = () => {
    lines.push({ parts: line, width: trimmedWidth(doc, line, size) });
    line = [];
    lineWidth = 0;
  };
  const place = (span: FontSpan, text: string, unitWidth: number) => {
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
    selectFont(doc, span.font, size);
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

function trimmedWidth(doc: PDFKit.PDFDocument, parts: LinePart[], size: number): number {
  const last = parts[parts.length - 1];
  if (!last || !last.text.endsWith(' ')) return parts.reduce((sum, part) => sum + part.width, 0);
  selectFont(doc, last.span.font, size);
  const trailing = last.width - doc.widthOfString(last.text.trimEnd());
  return parts.reduce((sum, part) => sum + part.width, 0) - trailing;
}

/**
 * Draws lines from `breakSpans` from (x, y), `lineHeight` apart, aligned in
 * `width`; at most `maxLines`, the last one then ending in "…" (in `ellipsis`,
 * the style's own font).
 */
export function drawSpanLines(
  doc: PDFKit.PDFDocument,
  lines: SpanLine[],
  box: { x: number; y: number; width: number; lineHeight: number; maxLines: number; align: TextAlign; size: number; ellipsis: FontSpan['font'] },
): void {
  const shown = lines.slice(0, Math.max(1, box.maxLines));
  if (shown.length < lines.length) shown[shown.length - 1] = withEllipsis(doc, shown[shown.length - 1], box.width, box.size, box.ellipsis);
  shown.forEach((line, i) => {
    const free = Math.max(0, box.width - line.width);
    const offset = box.align === 'center' ? free / 2 : box.align === 'right' ? free : 0;
    drawSpans(
      doc,
      line.parts.map((part) => ({ ...part.span, text: part.text })),
      box.x + offset,
      box.y + i * box.lineHeight,
      box.size,
    );
  });
}

/** The line cut so that "…" fits after it. */
function withEllipsis(doc: PDFKit.PDFDocument, line: SpanLine, width: number, size: number, font: FontSpan['font']): SpanLine {
  selectFont(doc, font, size);
  const room = width - doc.widthOfString('…');
  const parts = line.parts.map((part) => ({ ...part }));
  let total = parts.reduce((sum, part) => sum + part.width, 0);
  while (parts.length > 0 && (total > room || parts[parts.length - 1].text.endsWith(' '))) {
    const last = parts[parts.length - 1];
    const chars = [...last.text];
    chars.pop();
    const text = chars.join('');
    selectFont(doc, last.span.font, size);
    const narrower = doc.widthOfString(text);
    total -= last.width - narrower;
    if (text) {
      last.text = text;
      last.width = narrower;
    } else {
      parts.pop();
    }
  }
  const ellipsis: LinePart = { span: { text: '…', font, oblique: false }, text: '…', width: width - room };
  return { parts: [...parts, ellipsis], width: total + ellipsis.width };
}
