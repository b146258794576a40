import fsPromises from 'node:fs/promises';
import { MISSING_GLYPH } from './pdf-fonts';
import { renderPdf } from './render';
import { collect, countPixels, inspectPdf, type InspectedPage } from './testing/pdf-inspect';

const render = async (html: string) => collect(await renderPdf(html));
const compact = (text: string) => text.replace(/\s+/g, '');
const dark = (r: number, g: number, b: number) => r < 110 && g < 110 && b < 110;

/** Dark pixels over the text item that holds `text`, as wide as pdf.js measured it at `size` points a character (pdf.js y is from the bottom). */
function inkOver(page: InspectedPage, text: string, size = 10): number {
  const item = page.items.find((i) => i.str.includes(text));
  if (!item) throw new Error(`"${text}" is not an item of the page`);
  const width = Math.max(12, [...item.str].length * size * 0.6);
  return countPixels(page, dark, { x: Math.floor(item.x), y: Math.floor(page.height - item.y - size), width: Math.ceil(width), height: Math.ceil(size * 1.3) });
}

const CYRILLIC = 'Отчёт за квартал';
const GREEK = 'Καλημέρα κόσμε';
const ACCENTED = 'Café naïve Zürich Łódź São Paulo Ærø';
const SYMBOLS = 'Status ✓ → €100 ≤ ∑ ★';
const CHINESE = '销售报告第三季度';
const JAPANESE = 'こんにちは世界';
const KOREAN = '안녕하세요';

describe('renderPdf: Unicode text in embedded fonts, read back with pdf.js', () => {
  const html = `<h1>${CYRILLIC}</h1>
    <p>${GREEK}</p>
    <p>${ACCENTED}</p>
    <p>${SYMBOLS}</p>
    <p><b>${CHINESE}</b> ${JAPANESE} ${KOREAN}</p>
    <p><i>Umsatz 東京 Σ</i></p>
    <ul><li>пункт один</li></ul>
    <table><tr><th>Город</th><th>城市</th></tr><tr><td>Москва</td><td>北京市 Beijing ✓</td></tr></table>
    <svg width="300" height="60" viewBox="0 0 300 60"><text x="10" y="30" font-size="12">Продажи 销售</text></svg>
    <pre>код: 中文 ✓</pre>
    <p>family \u{1f468}\u200d\u{1f469}\u200d\u{1f467} flag \u{1f1e9}\u{1f1ea} private \ue000 end</p>`;
  let pdf: Buffer;
  let page: InspectedPage;

  beforeAll(async () => {
    pdf = await render(html);
    const inspected = await inspectPdf(pdf, { scale: 1 });
    expect(inspected.pages).toHaveLength(1);
    page = inspected.pages[0];
  });

  it('gives back every string as sent: headings, paragraphs, bold, italic, list, table cells, chart text, monospace', () => {
    const text = compact(page.text);
    for (const expected of [
      CYRILLIC,
      GREEK,
      ACCENTED,
      SYMBOLS,
      CHINESE,
      JAPANESE,
      KOREAN,
      'Umsatz東京Σ',
      'пунктодин',
      'Город',
      '城市',
      'Москва',
      '北京市Beijing✓',
      'Продажи销售',
      'код:中文✓',
    ]) {
      expect(text).toContain(compact(expected));
    }
    expect(text).toContain('\u2022');
    expect(text).not.toContain('?');
  });

  it('inks every script on the page', () => {
    const samples = [
      [CYRILLIC, 20],
      [GREEK, 10],
      ['Zürich', 10],
      ['✓', 10],
      ['€100', 10],
      [CHINESE, 10],
      [JAPANESE, 10],
      [KOREAN, 10],
      ['Продажи', 12],
    ] as const;
    // Every sample has ink over it; a list so that a failure names the sample.
    const faint = samples.map(([sample, size]) => [sample, inkOver(page, sample, size)] as const).filter(([, ink]) => ink <= 15);
    expect(faint).toEqual([]);
  });

  it('draws one visible MISSING_GLYPH for each emoji sequence, flag and character no font has', () => {
    expect(compact(page.text)).toContain(`family${MISSING_GLYPH}flag${MISSING_GLYPH}private${MISSING_GLYPH}end`);
    expect([...page.text].filter((ch) => ch === MISSING_GLYPH)).toHaveLength(3);
    expect(inkOver(page, MISSING_GLYPH)).toBeGreaterThan(15);
  });

  it('embeds subsets of DejaVu and Noto (TrueType), and no standard font', () => {
    const raw = pdf.toString('latin1');
    for (const font of [
      'DejaVuSans',
      'DejaVuSans-Bold',
      'DejaVuSans-Oblique',
      'DejaVuSansMono',
      'NotoSansSC-Regular',
      'NotoSansSC-Bold',
      'NotoSansKR-Regular',
    ]) {
      expect(raw).toMatch(new RegExp(`/BaseFont /[A-Z]{6}\\+${font}\\b`));
    }
    expect(raw).toContain('/FontFile2');
    expect(raw).not.toMatch(/\/BaseFont \/(Helvetica|Courier)/);
    // Subsets: the whole fonts are 0.3-0.8 MB (DejaVu) and 6-10.5 MB (Noto) each.
    expect(pdf.length).toBeLessThan(80 * 1024);
  });
});

describe('renderPdf: fonts', () => {
  it('keeps a Latin-only PDF small: DejaVu subset to the glyphs used', async () => {
    const pdf = await render('<h1>Quarterly report</h1><p>Revenue grew by 12% in the third quarter.</p>');
    expect(pdf.length).toBeLessThan(20 * 1024);
  });

  it('reads each font file once per process, not once per render', async () => {
    const reads = jest.spyOn(fsPromises, 'readFile');
    const fontReads = () => reads.mock.calls.filter(([file]) => /\.ttf$/.test(String(file))).length;
    try {
      // A module registry of its own: a process that has read no font yet.
      let fresh!: typeof renderPdf;
      jest.isolateModules(() => {
        fresh = jest.requireActual<{ renderPdf: typeof renderPdf }>('./render').renderPdf;
      });
      const html = '<p>Привет 東京 한국어 <b>粗体 굵게</b> <code>mono</code></p>';
      await collect(await fresh('<p>Latin only</p>'));
      // DejaVu: Sans and Sans Mono in four faces each; no CJK font before a document has CJK.
      expect(fontReads()).toBe(8);
      await collect(await fresh(html));
      // Noto Sans SC and KR, regular and bold.
      expect(fontReads()).toBe(12);
      await collect(await fresh(html));
      await collect(await fresh('<p>更多 中文</p>'));
      expect(fontReads()).toBe(12);
    } finally {
      reads.mockRestore();
    }
  });

  it('leaves the event loop free while it lays out a long CJK paragraph and a 500-row table of mixed scripts', async () => {
    const words = ['销售', '東京', 'Москва', '서울', 'Zürich', '✓', '报告', 'Ελλάδα'];
    const paragraph = Array.from({ length: 20_000 }, (_, i) => words[i % words.length]).join('');
    const rows = Array.from(
      { length: 500 },
      (_, i) => `<tr><td>${i}</td><td>${words[i % 8]} ${words[(i + 3) % 8]} ${i * 7} €</td><td>客户 ${i}</td></tr>`,
    ).join('');
    const html = `<p>${paragraph}</p><table><tr><th>#</th><th>Город 城市</th><th>客户</th></tr>${rows}</table>`;
    const stream = await renderPdf(html);
    // Counts event-loop turns while the pages are laid out rather than timing them: the machine's
    // load changes how long a turn takes, not how many the renderer gives (at least one per 15 ms
    // slice). This layout gives about 30 on a quiet 2-core machine, more on a loaded one; unsliced, none.
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const pdf = await collect(stream);
    counting = false;
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(turns).toBeGreaterThan(10);
  });
});
