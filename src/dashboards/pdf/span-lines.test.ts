import PDFDocument from 'pdfkit';
import { BASE_STYLE } from './element-style';
import { breakSpans, drawSpanLines, runSpans, type SpanLine } from './span-lines';
import { collect, inspectPdf } from './testing/pdf-inspect';

const spans = (text: string) => runSpans([{ text, style: BASE_STYLE }]);
const texts = (lines: SpanLine[]) => lines.map((line) => line.parts.map((part) => part.text).join(''));

describe('breakSpans: lines of text in several fonts', () => {
  const doc = new PDFDocument();

  it('breaks after spaces and between CJK characters, every line within the width, no text lost', () => {
    const text = 'Revenue 收入 ✓ 123 € — a long mixed cell 这是一个很长的中文句子需要换行 end';
    const lines = breakSpans(doc, spans(text), 100, BASE_STYLE);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(100);
    expect(texts(lines).join('')).toBe(text);
    // A CJK run is broken inside, not moved whole to a line of its own.
    expect(texts(lines).some((line) => /[a-z] [\u4e00-\u9fff]+$/.test(line.trimEnd()))).toBe(true);
  });

  it('cuts a word wider than the line between its characters, and starts a new line at \\n', () => {
    const lines = breakSpans(doc, spans('東京 Supercalifragilisticexpialidocious\nnext'), 50, BASE_STYLE);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(50);
    expect(texts(lines).join('')).toBe('東京 Supercalifragilisticexpialidociousnext');
    expect(texts(lines)[texts(lines).length - 1]).toBe('next');
  });
});

describe('drawSpanLines', () => {
  it('draws as many lines as fit in the height, the last one ending in "…"', async () => {
    const doc = new PDFDocument({ size: 'A4', margin: 40 });
    const pdf = collect(doc);
    const lines = breakSpans(doc, spans('一二三四五六七八九十 Москва 東京 ✓ '.repeat(6)), 80, BASE_STYLE);
    expect(lines.length).toBeGreaterThan(3);
    drawSpanLines(doc, lines, { x: 40, y: 40, width: 80, height: lines[0].height * 2 + 1, gap: 1, align: 'left' });
    doc.end();
    const [page] = (await inspectPdf(await pdf, { draw: false })).pages;
    const ys = [...new Set(page.items.map((item) => Math.round(item.y)))];
    expect(ys).toHaveLength(2);
    expect(page.text.trimEnd().endsWith('…')).toBe(true);
  });
});

describe('runs of several sizes', () => {
  it('a line is as tall as its largest run, and its runs share a baseline', async () => {
    const doc = new PDFDocument({ size: 'A4', margin: 40 });
    const pdf = collect(doc);
    const big = { ...BASE_STYLE, fontSize: 28, bold: true };
    const lines = breakSpans(
      doc,
      runSpans([
        { text: 'Total ', style: BASE_STYLE },
        { text: '1,234', style: big },
      ]),
      300,
      BASE_STYLE,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0].height).toBeGreaterThan(28);
    drawSpanLines(doc, lines, { x: 40, y: 40, width: 300, height: 100, gap: 1, align: 'left' });
    doc.end();
    const [page] = (await inspectPdf(await pdf, { draw: false })).pages;
    const total = page.items.find((i) => i.str.startsWith('Total'))!;
    const number = page.items.find((i) => i.str === '1,234')!;
    expect([total.size, number.size]).toEqual([10, 28]);
    expect(number.y).toBeCloseTo(total.y, 1);
  });
});
