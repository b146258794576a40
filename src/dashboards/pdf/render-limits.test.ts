import { randomFillSync } from 'node:crypto';
import type { PassThrough } from 'node:stream';
import PDFDocument from 'pdfkit';
import { PNG } from 'pngjs';
import { PdfInputInvalid, PdfInputTooLarge } from './pdf-errors';
import { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf-limits';
import { renderPdf } from './render';
import { JPEG_4X3, corruptPng, dataUri, pngHeaderOnly, solidPng } from './testing/fixtures';
import { collect } from './testing/pdf-inspect';

const render = async (html: string, limits: Partial<PdfLimits> = {}) => collect(await renderPdf(html, { limits }));

async function refused(html: string, limits: Partial<PdfLimits>, limit: keyof PdfLimits) {
  const error = await renderPdf(html, { limits }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PdfInputTooLarge);
  expect(error).toMatchObject({ status: 413, code: 'pdf_input_too_large', limit });
  return error as PdfInputTooLarge;
}

const isPdf = (pdf: Buffer) => pdf.subarray(0, 5).toString() === '%PDF-' && pdf.subarray(-6).toString().includes('%%EOF');

describe('renderPdf bounds: each refused with PdfInputTooLarge (413) before any byte', () => {
  it('HTML larger than maxHtmlBytes (default 5 MiB, counted in UTF-8 bytes)', async () => {
    const error = await refused('x'.repeat(DEFAULT_PDF_LIMITS.maxHtmlBytes + 1), {}, 'maxHtmlBytes');
    expect(error.message).toMatch(/at most 5242880/);
    await refused('é'.repeat(600), { maxHtmlBytes: 1000 }, 'maxHtmlBytes');
    expect(isPdf(await render('x'.repeat(1000), { maxHtmlBytes: 1000 }))).toBe(true);
  });

  it('more elements than maxElements', async () => {
    await refused('<span>a</span>'.repeat(101), { maxElements: 100 }, 'maxElements');
    expect(isPdf(await render('<span>a</span>'.repeat(100), { maxElements: 100 }))).toBe(true);
  });

  it('nesting deeper than maxDepth, also through elements whose content is dropped', async () => {
    await refused('<div>'.repeat(11), { maxDepth: 10 }, 'maxDepth');
    await refused(`<script>${'<div>'.repeat(5)}</script><object>${'<div>'.repeat(11)}</object>`, { maxDepth: 10 }, 'maxDepth');
    expect(isPdf(await render('<div>'.repeat(10) + 'deep', { maxDepth: 10 }))).toBe(true);
  });

  it('an <svg> with more than maxSvgElements elements', async () => {
    const svg = (n: number) => `<svg>${'<rect width="1" height="1"/>'.repeat(n - 1)}</svg>`;
    await refused(svg(51), { maxSvgElements: 50 }, 'maxSvgElements');
    // The count is per chart.
    expect(isPdf(await render(svg(50) + svg(50), { maxSvgElements: 50 }))).toBe(true);
  });

  it('an image larger than maxImageBytes, judged from its data URI before decoding', async () => {
    const png = solidPng(64, 64, [1, 2, 3]);
    await refused(`<img src="${dataUri('image/png', png)}">`, { maxImageBytes: png.length - 1 }, 'maxImageBytes');
    await refused(`<img src="data:image/png;base64,${'A'.repeat(4000)}">`, { maxImageBytes: 1000 }, 'maxImageBytes');
  });

  it('an image wider or taller than maxImageSide, or with more than maxImagePixels pixels, read from its header', async () => {
    await refused(`<img src="${dataUri('image/png', pngHeaderOnly(10_001, 10))}">`, {}, 'maxImageSide');
    await refused(`<img src="${dataUri('image/png', pngHeaderOnly(10, 10_001))}">`, {}, 'maxImageSide');
    await refused(`<img src="${dataUri('image/png', pngHeaderOnly(8000, 6000))}">`, {}, 'maxImagePixels');
    await refused(`<img src="${dataUri('image/jpeg', JPEG_4X3)}">`, { maxImageSide: 3 }, 'maxImageSide');
  });

  it('images with more than maxTotalImagePixels pixels together; one image used twice counts once', async () => {
    const a = dataUri('image/png', solidPng(10, 10, [1, 1, 1]));
    const b = dataUri('image/png', solidPng(10, 10, [2, 2, 2]));
    await refused(`<img src="${a}"><img src="${b}">`, { maxTotalImagePixels: 150 }, 'maxTotalImagePixels');
    expect(isPdf(await render(`<img src="${a}"><img src="${a}">`, { maxTotalImagePixels: 150 }))).toBe(true);
  });

  it('more explicit page breaks than maxPageBreaks', async () => {
    await refused('<div style="page-break-after: always">x</div>'.repeat(6), { maxPageBreaks: 5 }, 'maxPageBreaks');
  });
});

describe('renderPdf: input refused as invalid (PdfInputInvalid, 400)', () => {
  const invalid = async (html: string, pattern: RegExp, options = {}) => {
    const error = await renderPdf(html, options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PdfInputInvalid);
    expect(error).toMatchObject({ status: 400, code: 'pdf_input_invalid' });
    expect((error as Error).message).toMatch(pattern);
  };

  it('a PNG whose bytes are corrupt, naming the image', () =>
    invalid(`<img alt="logo" src="${dataUri('image/png', corruptPng())}">`, /Image 1 \("logo"\) is not a valid PNG/));
  it('a PNG header without pixel data', () => invalid(`<img src="${dataUri('image/png', pngHeaderOnly(10, 10))}">`, /not a valid PNG/));
  it('a JPEG without a frame header', () => invalid(`<img src="${dataUri('image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xd9]))}">`, /not a valid JPEG/));
  it('a data URI declared PNG whose bytes are something else', () => invalid(`<img src="data:image/png;base64,aGVsbG8=">`, /declared PNG/));
  it('a page size outside A4, Letter, Legal', () => invalid('<p>x</p>', /pageSize must be one of A4, Letter, Legal/, { pageSize: 'A3' }));
  it('html that is not a string', () => invalid(42 as unknown as string, /html must be a string/));
});

describe('renderPdf: unsupported and broken HTML degrades to its text', () => {
  it('renders tag soup, unknown elements, forms, MathML, bad SVG and non-drawable images without throwing', async () => {
    const html = `<<<div>>><p <b>unclosed <table><tr><td>cell one<td>cell two</table></i></b>&amp;&bogus; &lt;tag&gt;
      <marquee>Moving text</marquee><custom-element>Custom text</custom-element><math><mi>x</mi></math>
      <form><input value="v"><button>Press me</button><select><option>Choice</option></select></form>
      <svg viewBox="0 0 10"><rect width="abc" height="-5"/><path d="M 1e400 0 L 5 5"/><path d="garbage"/><circle r="NaN"/>
        <polyline points="1,2,3"/><text x="1e30" y="5">far away</text><g transform="rotate(nonsense) scale(1e400)"><rect width="5" height="5"/></g>
        <linearGradient id="g"><stop offset="0" stop-color="#123456"/></linearGradient><rect width="5" height="5" fill="url(#g)"/><rect fill="url(#missing)" width="1" height="1"/></svg>
      <img src="javascript:alert(1)" alt="js image"><img src="/relative.png" alt="relative image"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="gif image"><img>
      <iframe src="http://example.com">frame text</iframe><script>alert('x')</script>
      <p style="color: notacolor; font-size: 99999px; font-weight: heavy; text-align: sideways; display: inline-block">odd styles</p>
      <div style="page-break-before: always; page-break-after: always"></div>
      <ol type="i"><li>roman</li></ol><ol style="list-style-type: upper-alpha" start="27"><li>alpha</li></ol><ul style="list-style-type: none"><li>no bullet</li></ul>
      <table></table><table><tr></tr></table><table><caption>Just a caption</caption></table><td>stray cell</td><li>stray item</li>
      <pre>  pre   formatted
    text\ttab</pre><hr><blockquote>quoted</blockquote><p hidden>hidden text</p><p style="display:none">none text</p>
      Привет 😀 中文 e\u0301`;
    const pdf = await render(html);
    expect(isPdf(pdf)).toBe(true);
  });

  it('never throws on random tag soup', async () => {
    const pieces = [
      '<div>',
      '</div>',
      '<p>',
      '<b>',
      '</i>',
      '<table>',
      '<tr>',
      '<td>',
      '</td>',
      '<ul>',
      '<li>',
      '<svg>',
      '<rect width="5" height="5"/>',
      '<path d="M0 0 L',
      '<text>',
      'word ',
      '&nbsp;',
      '<br>',
      '<img src="data:image/png;base64,',
      '"',
      '<h1>',
      '<ol start="-3">',
      '<th>',
      '<thead>',
      'style="',
      'page-break-after: always',
      '>',
      '<',
      '\n',
      'é',
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 60; i++) {
      const html = Array.from({ length: 200 }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      // A cut-off data URI is a broken image: a typed 400, never anything else.
      const pdf = await render(html).catch((error: unknown) => {
        if (error instanceof PdfInputInvalid) return undefined;
        throw error;
      });
      if (pdf) expect(isPdf(pdf)).toBe(true);
    }
  });
});

describe('renderPdf: streaming', () => {
  const big = () => {
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `<tr><td>Row ${i}</td><td>${i * 3}</td><td>Customer ${i} with a longer name</td><td>${i % 7}</td></tr>`,
    ).join('');
    const chart = `<svg width="500" height="200" viewBox="0 0 500 200">${Array.from({ length: 50 }, (_, i) => `<rect x="${i * 10}" y="${200 - i * 4}" width="8" height="${i * 4}" fill="#36c"/>`).join('')}</svg>`;
    return `<h1>Big</h1>${chart.repeat(20)}<table><thead><tr><th>A</th><th>B</th><th>C</th><th>D</th></tr></thead>${rows}</table>`;
  };

  /** Spies on pdfkit's documents: pages added, images drawn and documents finished, each by the document that did it. */
  const spyOnDocuments = () => {
    const spies = {
      addPage: jest.spyOn(PDFDocument.prototype, 'addPage'),
      image: jest.spyOn(PDFDocument.prototype, 'image'),
      end: jest.spyOn(PDFDocument.prototype, 'end'),
    };
    const by = (spy: jest.SpyInstance, doc: unknown) => spy.mock.contexts.filter((c) => c === doc).length;
    return {
      /** The document a render made: the one whose constructor added the first page after `pagesBefore` pages were added. */
      docAfter: (pagesBefore: number) => spies.addPage.mock.contexts[pagesBefore],
      pagesAdded: () => spies.addPage.mock.calls.length,
      pages: (doc: unknown) => by(spies.addPage, doc),
      images: (doc: unknown) => by(spies.image, doc),
      ended: (doc: unknown) => by(spies.end, doc) > 0,
    };
  };
  afterEach(() => jest.restoreAllMocks());

  const once = (emitter: NodeJS.EventEmitter, event: string) => new Promise<void>((resolve) => emitter.once(event, () => resolve()));

  it('lays out in slices: other work gets event loop turns between the pages of a 2,000-row table and 20 charts', async () => {
    // How long the loop is held is a figure of `npm run bench:dashboards` (bench/lib/dashboard-pdf.ts), beside pdfkit alone.
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    const turnsAtPage: number[] = [];
    const addPage = PDFDocument.prototype.addPage;
    jest.spyOn(PDFDocument.prototype, 'addPage').mockImplementation(function (this: PDFKit.PDFDocument, ...args) {
      turnsAtPage.push(turns);
      return addPage.apply(this, args);
    });
    setImmediate(count);
    try {
      expect(isPdf(await render(big()))).toBe(true);
    } finally {
      counting = false;
    }
    expect(turnsAtPage.length).toBeGreaterThan(10);
    // Had the render held the loop from its first page to its last, every page would have seen the same count.
    expect(new Set(turnsAtPage).size).toBeGreaterThan(1);
  });

  it('pauses while nobody reads, so a stalled reader does not make it buffer the document', async () => {
    const documents = spyOnDocuments();
    // Twelve different images of noise: about 3 MB of PDF that does not compress.
    const noise = Array.from({ length: 12 }, () => {
      const png = new PNG({ width: 300, height: 300, colorType: 2 });
      randomFillSync(png.data);
      return `<img src="${dataUri('image/png', PNG.sync.write(png, { colorType: 2, filterType: 0 }))}">`;
    });
    const stream = await renderPdf(noise.join(''));
    const doc = documents.docAfter(0);
    // The render waits for 'drain' only when its reader is behind: the moment it starts to wait is the pause.
    // Had it written the whole document without waiting, the stream would have finished (taken the last byte) first.
    const paused = new Promise<'paused'>((resolve) => {
      const pause = (event: string | symbol) => {
        if (event !== 'drain') return;
        stream.off('newListener', pause);
        resolve('paused');
      };
      stream.on('newListener', pause);
    });
    expect(await Promise.race([paused, once(stream, 'finish').then(() => 'finished')])).toBe('paused');
    // The stream is the renderer's PassThrough: what waits on either side of it is what is buffered.
    const { readableLength, writableLength } = stream as PassThrough;
    expect(readableLength + writableLength).toBeLessThan(1024 * 1024);
    expect(documents.images(doc)).toBeLessThan(12);
    const pdf = await collect(stream);
    expect(documents.images(doc)).toBe(12);
    expect(pdf.length).toBeGreaterThan(2.5 * 1024 * 1024);
    expect(isPdf(pdf)).toBe(true);
  });

  it('stops when the stream is destroyed (the client went away): no page is drawn after, and the document is never finished', async () => {
    const documents = spyOnDocuments();
    const stream = await renderPdf(big());
    const doc = documents.docAfter(0);
    // Read as a client does, and go away once the third page is under way.
    stream.on('data', () => {
      if (documents.pages(doc) >= 3) stream.destroy();
    });
    await once(stream, 'close');
    const pagesAtClose = documents.pages(doc);
    expect(pagesAtClose).toBeGreaterThanOrEqual(3);

    // A whole render of the same HTML gives the loop to the first render between each of its slices: had that one gone on, it would have drawn more.
    const pagesBefore = documents.pagesAdded();
    expect(isPdf(await render(big()))).toBe(true);
    const whole = documents.docAfter(pagesBefore);
    expect(documents.ended(whole)).toBe(true);
    expect(documents.pages(whole)).toBeGreaterThan(pagesAtClose);
    expect(documents.pages(doc)).toBe(pagesAtClose);
    expect(documents.ended(doc)).toBe(false);
  });
});
