import { BlockBuilder, type BuiltBlock } from './html-blocks';
import { parseHtml } from './html-tree';
import type { TableBlock, TableCell, TextBlock } from './layout-model';
import { DEFAULT_PDF_LIMITS } from './pdf-limits';

const cellText = (cell: TableCell) => cell.runs.map((run) => run.text).join('');

async function blocks(html: string): Promise<BuiltBlock[]> {
  return await new BlockBuilder(515, DEFAULT_PDF_LIMITS).build(await parseHtml(html, DEFAULT_PDF_LIMITS));
}
const texts = (list: BuiltBlock[]) => list.filter((b): b is TextBlock => b.kind === 'text').map((b) => b.runs.map((r) => r.text).join(''));

describe('HTML to blocks', () => {
  it('makes headings bold, larger and kept with what follows', async () => {
    const [h1, h6, p] = (await blocks('<h1>Title</h1><h6>Small</h6><p>Body</p>')) as TextBlock[];
    expect(h1.runs[0].style).toMatchObject({ bold: true, fontSize: 20 });
    expect(h1.keepWithNext).toBe(true);
    expect(h6.runs[0].style.fontSize).toBeCloseTo(9);
    expect(p.runs[0].style).toMatchObject({ bold: false, fontSize: 10 });
  });

  it('splits a paragraph into styled runs, collapsing whitespace as a browser does', async () => {
    const [p] = (await blocks(
      '<p>  a  <b>bold</b>\n<i>it</i> <strong><em>both</em></strong> <span style="color:#00f;font-size:20px">big</span>  </p>',
    )) as TextBlock[];
    expect(p.runs.map((r) => r.text).join('')).toBe('a bold it both big');
    const style = (text: string) => p.runs.find((r) => r.text === text)!.style;
    expect(style('bold')).toMatchObject({ bold: true, italic: false });
    expect(style('it')).toMatchObject({ italic: true });
    expect(style('both')).toMatchObject({ bold: true, italic: true });
    expect(style('big')).toMatchObject({ fontSize: 15, color: { rgb: [0, 0, 255], alpha: 1 } });
  });

  it('turns <br> into a line break and keeps <pre> whitespace in monospace', async () => {
    expect(texts(await blocks('<p>one<br>two</p>'))).toEqual(['one\ntwo']);
    const [pre] = (await blocks('<pre>a  b\n  c</pre>')) as TextBlock[];
    expect(pre.runs[0]).toMatchObject({ text: 'a  b\n  c', style: { mono: true } });
  });

  it('numbers and bullets list items, nested lists indented further', async () => {
    const list = (await blocks('<ol start="3"><li>c</li><li>d<ul><li>inner</li></ul></li></ol><ul><li>x</li></ul>')) as TextBlock[];
    expect(list.map((b) => [b.marker?.text, b.runs[0]?.text, b.indent])).toEqual([
      ['3.', 'c', 18],
      ['4.', 'd', 18],
      ['\u25e6', 'inner', 36],
      ['\u2022', 'x', 18],
    ]);
  });

  it('finds table header rows in thead, or a first row of th cells', async () => {
    const [a] = (await blocks(
      '<table><thead><tr><th>H</th></tr></thead><tbody><tr><td>1</td></tr></tbody><tfoot><tr><td>F</td></tr></tfoot></table>',
    )) as TableBlock[];
    expect(a.header.map((r) => r.map(cellText))).toEqual([['H']]);
    expect(a.body.map((r) => r.map(cellText))).toEqual([['1'], ['F']]);
    const [b] = (await blocks('<table><tr><th>K</th><th>V</th></tr><tr><td>a</td><td colspan="2"><b>b</b><br>c</td></tr></table>')) as TableBlock[];
    expect(b.header[0].map(cellText)).toEqual(['K', 'V']);
    expect(b.body[0][1]).toMatchObject({ colspan: 2, style: { bold: false } });
    expect(b.body[0][1].runs).toEqual([
      { text: 'b\n', style: expect.objectContaining({ bold: true }) },
      { text: 'c', style: expect.objectContaining({ bold: false }) },
    ]);
    expect(b.columns).toBe(3);
  });

  it('keeps the inline style of each run of a cell, whitespace collapsed across runs', async () => {
    const [t] = (await blocks(
      '<table><tr><td style="font-size:9pt">  <span style="color:#666">Revenue</span> <br>\n <b style="font-size:28pt"> 1,234 </b> <i>EUR</i></td></tr></table>',
    )) as TableBlock[];
    expect(t.body[0][0].runs.map((r) => [r.text, r.style.fontSize, r.style.bold, r.style.italic])).toEqual([
      ['Revenue\n', 9, false, false],
      ['1,234 ', 28, true, false],
      ['EUR', 9, false, true],
    ]);
    expect(t.body[0][0].runs[0].style.color.rgb).toEqual([102, 102, 102]);
  });

  it('emits page breaks for page-break-before/after and break-before/after, and collects images and charts', async () => {
    const list = await blocks(
      '<p>a</p><div style="page-break-after: always"></div><h2 style="break-before: page">b</h2><svg width="100" height="50"></svg><img src="x.png" alt="pic" width="20">',
    );
    expect(list.map((b) => b.kind)).toEqual(['text', 'page-break', 'page-break', 'text', 'svg', 'image-request']);
    expect(list[4]).toMatchObject({ width: 75, height: 37.5 });
    expect(list[5]).toMatchObject({ alt: 'pic', width: 15 });
  });

  it('shows the text of unknown elements and nothing of hidden ones, scripts or styles', async () => {
    const list = await blocks(
      '<custom-thing>Custom</custom-thing><p hidden>no</p><p style="display: none">no</p><script>no()</script><style>p{}</style><marquee>Moving</marquee>',
    );
    // Both are inline and nothing separates them, as in a browser.
    expect(texts(list)).toEqual(['CustomMoving']);
  });

  it('keeps text as sent, in NFC (the fonts are chosen when it is drawn)', async () => {
    expect(texts(await blocks('<p>Café — “ok” Привет 😀 東京 e\u0301</p>'))).toEqual(['Café — “ok” Привет 😀 東京 é']);
  });
});
