import { collect, countPixels, inspectPdf, type InspectedPage } from './testing/pdf-inspect';
import { JPEG_4X3, dataUri, solidPng } from './testing/fixtures';
import { renderPdf } from './render';

const render = async (html: string, options: Parameters<typeof renderPdf>[1] = {}) => collect(await renderPdf(html, options));

/** The page's pixels within `half` of the text item whose string includes `text` (pdf.js y is from the bottom). */
function inkNear(page: InspectedPage, text: string, half = 12): number {
  const item = page.items.find((i) => i.str.includes(text));
  if (!item) throw new Error(`"${text}" is not on the page`);
  const top = Math.round(page.height - item.y - half);
  return countPixels(page, (r, g, b) => r < 100 && g < 100 && b < 100, { x: Math.round(item.x), y: top, width: 150, height: 2 * half });
}

const red = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const blue = (r: number, g: number, b: number) => r < 60 && g < 60 && b > 200;
const green = (r: number, g: number, b: number) => r < 80 && g > 180 && b < 80;

describe('renderPdf: a document with every supported element, read back with pdf.js', () => {
  const html = `<!doctype html><html><head><title>ignored</title><style>h1 { color: red }</style><script>document.write('script ran')</script></head>
  <body>
    <h1>Quarterly report</h1>
    <h2>Heading two</h2><h3>Heading three</h3><h4>Heading four</h4><h5>Heading five</h5><h6>Heading six</h6>
    <p>Plain <b>bold</b> <strong>strong</strong> <i>italic</i> <em>emphasis</em> <span style="font-weight: 700; font-style: italic; color: #0000ff; font-size: 14px">styled</span>
       first line<br>second line</p>
    <p style="text-align: right">Right aligned</p>
    <ul><li>Apples</li><li>Pears<ul><li>Nested pear</li></ul></li></ul>
    <ol start="4"><li>Fourth</li><li>Fifth</li></ol>
    <table><thead><tr><th>Region</th><th>Revenue</th></tr></thead><tbody><tr><td>North</td><td>1,200</td></tr><tr><td><b>Total</b></td><td>1,200</td></tr></tbody></table>
    <svg width="300" height="150" viewBox="0 0 300 150">
      <rect x="0" y="0" width="300" height="150" fill="#ff0000"/>
      <g transform="translate(10, 10) scale(2)"><circle cx="10" cy="10" r="5" fill="white" stroke="black" stroke-width="1"/></g>
      <polyline points="0,150 100,100 200,120 300,20" fill="none" stroke="#000" stroke-width="2"/>
      <line x1="0" y1="149" x2="300" y2="149" stroke="black"/>
      <path d="M 200 140 L 250 90 L 290 140 Z" fill="white"/>
      <text x="150" y="75" font-size="12" text-anchor="middle">Chart title</text>
    </svg>
    <img src="${dataUri('image/png', solidPng(40, 20, [0, 0, 255]))}" alt="blue png">
    <img src="${dataUri('image/jpeg', JPEG_4X3)}" width="40" alt="green jpeg">
    <img src="https://example.com/logo.png" alt="Remote logo">
    <div style="page-break-after: always"></div>
    <p>Second page text</p>
    <section style="break-before: page"><p>Third page text</p></section>
  </body></html>`;
  let pages: InspectedPage[];
  let title: string | null;

  beforeAll(async () => {
    ({ pages, title } = await inspectPdf(await render(html, { title: 'Quarterly “report” — Q3' })));
  });

  it('breaks pages where asked: after the div, before the section', () => {
    expect(pages).toHaveLength(3);
    expect(pages[1].text).toContain('Second page text');
    expect(pages[2].text).toContain('Third page text');
  });

  it('writes the title into the metadata only', () => {
    expect(title).toBe('Quarterly “report” — Q3');
    expect(pages.map((p) => p.text).join(' ')).not.toContain('ignored');
  });

  it('shows the text of headings, paragraphs, inline styles, lists and tables, and no script or style sheet', () => {
    const text = pages[0].text.replace(/\s+/g, ' ');
    for (const expected of [
      'Quarterly report',
      'Heading two',
      'Heading six',
      'bold',
      'strong',
      'italic',
      'emphasis',
      'styled',
      'Right aligned',
      'Apples',
      'Nested pear',
      '4.',
      'Fourth',
      '5.',
      'Region',
      'North',
      'Total',
      'Chart title',
      'Remote logo',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('script ran');
    expect(text).not.toContain('h1 {');
  });

  it('puts a <br> on a new line and right-aligns a right-aligned paragraph', () => {
    const first = pages[0].items.find((i) => i.str.includes('first line'))!;
    const second = pages[0].items.find((i) => i.str.includes('second line'))!;
    expect(second.y).toBeLessThan(first.y);
    const right = pages[0].items.find((i) => i.str.includes('Right aligned'))!;
    expect(right.x).toBeGreaterThan(pages[0].width / 2);
  });

  it('draws the chart as vector operators: filled and stroked paths and its text', () => {
    const ops = pages[0].ops;
    expect(ops['constructPath:fill'] ?? 0).toBeGreaterThanOrEqual(2);
    expect((ops['constructPath:stroke'] ?? 0) + (ops['constructPath:fillStroke'] ?? 0)).toBeGreaterThanOrEqual(2);
    expect(ops.clip).toBeGreaterThanOrEqual(1);
  });

  it('embeds the PNG and the JPEG from their data URIs, and nothing for the remote image', () => {
    expect(pages[0].ops.paintImageXObject).toBe(2);
    expect(countPixels(pages[0], blue)).toBeGreaterThan(400);
    expect(countPixels(pages[0], green)).toBeGreaterThan(300);
  });

  it('as an image: the heading text is inked and the chart is drawn', () => {
    expect(inkNear(pages[0], 'Quarterly report')).toBeGreaterThan(150);
    // 300 × 150 px at 0.75 pt/px, one pixel per point: about 225 × 112 red pixels less the shapes over them.
    expect(countPixels(pages[0], red)).toBeGreaterThan(15_000);
  });
});

describe('renderPdf: tables across pages', () => {
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => `<tr><td>Row ${i + 1}</td><td>${(i + 1) * 7}</td><td>Customer number ${i + 1}</td></tr>`).join('');

  it('spreads a 200-row table over several pages with the thead header on each', async () => {
    const { pages } = await inspectPdf(
      await render(`<h1>Orders</h1><table><thead><tr><th>Order</th><th>Amount</th><th>Customer</th></tr></thead><tbody>${rows(200)}</tbody></table>`),
      { draw: false },
    );
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const page of pages) {
      const header = page.items.filter((i) => i.str === 'Order' || i.str === 'Amount' || i.str === 'Customer');
      expect(header).toHaveLength(3);
      // The header is the topmost row of the page's table (pdf.js y grows upwards).
      const headerY = header[0].y;
      const rowYs = page.items.filter((i) => /^Row \d+$/.test(i.str)).map((i) => i.y);
      expect(Math.max(...rowYs)).toBeLessThan(headerY);
    }
    // Every row exactly once, whole, in order.
    const seen = pages.flatMap((p) => p.items.filter((i) => /^Row \d+$/.test(i.str)).map((i) => Number(i.str.slice(4))));
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('repeats a first row of <th> cells when there is no thead, in landscape Letter', async () => {
    const html = `<table><tr><th>Key</th><th>Value</th></tr>${rows(120).replace(/<td>Customer number \d+<\/td>/g, '')}</table>`;
    const { pages } = await inspectPdf(await render(html, { landscape: true, pageSize: 'Letter' }), { draw: false });
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(pages[0].width).toBe(792);
    expect(pages[0].height).toBe(612);
    for (const page of pages) expect(page.items.filter((i) => i.str === 'Key')).toHaveLength(1);
  });
});

describe('renderPdf: inline styles inside table cells', () => {
  it('draws each run of a cell in its own style: the number of a KPI tile at 28pt under its label, the row as tall as both', async () => {
    const html = `<table><tr>
      <td><span style="font-size:9pt;color:#666666">Revenue</span><br><b style="font-size:28pt">1,234</b></td>
      <td>Orders <i>this week</i><br><b style="font-size:20pt;color:#ff0000">56</b></td>
    </tr><tr><td>below</td><td>row two</td></tr></table>`;
    const [page] = (await inspectPdf(await render(html))).pages;
    const item = (str: string) => page.items.find((i) => i.str === str)!;
    expect(item('Revenue').size).toBe(9);
    expect(item('1,234').size).toBe(28);
    expect(item('56').size).toBe(20);
    expect(item('this week').size).toBe(10);
    // The number sits under its label, and the next row starts under the number (pdf.js y grows upwards).
    expect(item('1,234').y).toBeLessThan(item('Revenue').y - 20);
    expect(item('below').y).toBeLessThan(item('1,234').y - 5);
    // The 20pt number keeps its own colour.
    expect(countPixels(page, red)).toBeGreaterThan(40);
  });
});
