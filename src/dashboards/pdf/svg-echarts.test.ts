import PDFDocument from 'pdfkit';
import { chartSvg } from '../charts/svg-render';
import { widgetView } from '../charts/widget-view';
import { fontSpans, spansWidth } from './pdf-fonts';
import { renderPdf } from './render';
import { collect, countPixels, inspectPdf } from './testing/pdf-inspect';

const render = async (html: string) => (await inspectPdf(await collect(await renderPdf(html)))).pages[0];
const red = (r: number, g: number, b: number) => r > 200 && g < 60 && b < 60;
const widthOf = (text: string, size: number) => spansWidth(new PDFDocument(), fontSpans(text, { bold: false, italic: false, mono: false }), size);

describe('SVG as ECharts draws it (server-side rendering)', () => {
  it('places text by its transform, text-anchor and dominant-baseline', async () => {
    const page = await render(`<svg width="400" height="200" viewBox="0 0 400 200" xmlns="http://www.w3.org/2000/svg">
      <text style="font-size:20px;font-family:sans-serif;" transform="translate(60 60)">Alpha</text>
      <text dominant-baseline="central" style="font-size:20px;font-family:sans-serif;" transform="translate(200 60)">Central</text>
      <text dominant-baseline="central" text-anchor="end" style="font-size:20px;" transform="translate(200 150)">Right</text>
      <text dominant-baseline="central" text-anchor="middle" style="font-size:20px;" xml:space="preserve" y="5" transform="translate(200 110)">|</text>
    </svg>`);
    const item = (str: string) => page.items.find((i) => i.str === str)!;
    const size = item('Alpha').size;
    const scale = size / 20;
    expect(item('Central').size).toBe(size);
    // central: the baseline moves down by half of ascender + descender (DejaVu Sans: (0.928 - 0.236) / 2 of the size); pdf.js y grows upwards.
    expect(item('Alpha').y - item('Central').y).toBeCloseTo(0.346 * size, 0);
    // end: the text ends at its x; start (default): begins there; middle: centred on it, y moved by its y attribute.
    expect(item('Right').x + widthOf('Right', size)).toBeCloseTo(item('Alpha').x + 140 * scale, 0);
    expect(item('|').x + widthOf('|', size) / 2).toBeCloseTo(item('Alpha').x + 140 * scale, 0);
    expect(item('Central').y - item('|').y).toBeCloseTo((110 + 5 - 60) * scale, 0);
  });

  it('clips an element to its clipPath', async () => {
    const shape = (clip: string) => `<svg width="200" height="100" viewBox="0 0 200 100">
      <defs><clipPath id="c"><path d="M0 0l100 0l0 100l-100 0Z"/></clipPath></defs>
      <rect x="0" y="0" width="200" height="100" fill="#ff0000" ${clip}/></svg>`;
    const whole = countPixels(await render(shape('')), red);
    const clipped = countPixels(await render(shape('clip-path="url(#c)"')), red);
    expect(whole).toBeGreaterThan(5_000);
    expect(clipped / whole).toBeGreaterThan(0.45);
    expect(clipped / whole).toBeLessThan(0.55);
  });

  it('draws a bar chart from chartSvg: bars, axis labels at the chart text size, no style sheet text', async () => {
    const ds = 'ds_x';
    const view = widgetView(
      { title: 'Sales', chartType: 'bar', queryConfig: { measures: [`${ds}.amount`], dimensions: [`${ds}.region`] } },
      {
        data: [
          { [`${ds}.region`]: 'North', [`${ds}.amount`]: '1200' },
          { [`${ds}.region`]: 'South', [`${ds}.amount`]: '800' },
        ],
      },
      { timeZone: 'UTC' },
    );
    if (view.kind !== 'chart') throw new Error(view.kind);
    const svg = chartSvg({ ...view.option, color: ['#ff0000'] }, { width: 500, height: 250 });
    const page = await render(svg);
    const labels = page.items.filter((i) => ['North', 'South', '0', '1,200'].includes(i.str));
    expect(labels.map((i) => i.str).sort()).toEqual(['0', '1,200', 'North', 'South']);
    expect(new Set(labels.map((i) => i.size)).size).toBe(1);
    expect(page.text).not.toMatch(/zr0|hover|cursor/);
    expect(countPixels(page, red)).toBeGreaterThan(2_000);
    // The value axis: labels end at one x (text-anchor end), left of the category labels.
    const north = page.items.find((i) => i.str === 'North')!;
    const zero = page.items.find((i) => i.str === '0')!;
    expect(zero.x).toBeLessThan(north.x);
  });
});
