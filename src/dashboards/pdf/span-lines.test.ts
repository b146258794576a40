import PDFDocument from 'pdfkit';
import { fontSpans, primaryFont, type FontStyle } from './pdf-fonts';
import { breakSpans, drawSpanLines, type SpanLine } from './span-lines';
import { collect, inspectPdf } from './testing/pdf-inspect';

const style: FontStyle = { bold: false, italic: false, mono: false };
const SIZE = 10;
const texts = (lines: SpanLine[]) => lines.map((line) => line.parts.map((part) => part.text).join(''));

describe('breakSpans: lines of text in several fonts', () => {
  const doc = new PDFDocument();

  it('breaks after spaces and between CJK characters, every line within the width, no text lost', () => {
    const text = 'Revenue 收入 ✓ 123 € — a long mixed cell 这是一个很长的中文句子需要换行 end';
    const lines = breakSpans(doc, fontSpans(text, style), SIZE, 100);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(100);
    expect(texts(lines).join('')).toBe(text);
    // A CJK run is broken inside, not moved whole to a line of its own.
    expect(texts(lines).some((line) => /[a-z] [\u4e00-\u9fff]+$/.test(line.trimEnd()))).toBe(true);
  });

  it('cuts a word wider than the line between its characters, and starts a new line at \\n', () => {
    const lines = breakSpans(doc, fontSpans('東京 Supercalifragilisticexpialidocious\nnext', style), SIZE, 50);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(50);
    expect(texts(lines).join('')).toBe('東京 Supercalifragilisticexpialidociousnext');
    expect(texts(lines)[texts(lines).length - 1]).toBe('next');
  });
});

describe('drawSpanLines', () => {
  it('draws at most maxLines lines, the last one ending in "…"', async () => {
    const doc = new PDFDocument({ size: 'A4', margin: 40 });
    const pdf = collect(doc);
    const lines = breakSpans(doc, fontSpans('一二三四五六七八九十 Москва 東京 ✓ '.repeat(6), style), SIZE, 80);
    expect(lines.length).toBeGreaterThan(3);
    drawSpanLines(doc, lines, { x: 40, y: 40, width: 80, lineHeight: 13, maxLines: 2, align: 'left', size: SIZE, ellipsis: primaryFont(style) });
    doc.end();
    const [page] = (await inspectPdf(await pdf, { draw: false })).pages;
    const ys = [...new Set(page.items.map((item) => Math.round(item.y)))];
    expect(ys).toHaveLength(2);
    expect(page.text.trimEnd().endsWith('…')).toBe(true);
  });
});
