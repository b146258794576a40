import { PassThrough, type Readable } from 'node:stream';
import PDFDocument from 'pdfkit';
import { loadFonts } from './font-files';
import { BlockBuilder } from './html-blocks';
import { parseHtml } from './html-tree';
import { resolveImages } from './image-blocks';
import type { CheckedImage } from './image-source';
import type { Block, ImageBlock, SvgBlock } from './layout-model';
import { PageWriter } from './page-writer';
import { PdfInputInvalid, PdfInputTooLarge } from './pdf-errors';
import { resolveOptions, type PdfRenderOptions, type ResolvedPdfOptions } from './pdf-options';
import { setStroke } from './pdf-fonts';
import { parseViewBox } from './svg-size';
import { drawSvg } from './svg-writer';
import { drawTable } from './table-writer';
import { drawTextBlock } from './text-writer';

/** Page margin on every side, in points (about 14 mm). */
export const PAGE_MARGIN = 40;
/** The longest the renderer works before giving the event loop a turn. */
const SLICE_MS = 15;
/** How much PDF may wait in the stream for a slow reader before rendering pauses. */
const OUTPUT_HIGH_WATER = 256 * 1024;
const PX_TO_PT = 0.75;

/**
 * pdfkit's parsed image. `doc.openImage` is public in pdfkit (reuse one image
 * many times, embedded once) but missing from @types/pdfkit, so it is typed here.
 */
type OpenedImage = { width: number; height: number };
const openImageOf = (doc: PDFKit.PDFDocument) => (doc as unknown as { openImage(src: Buffer): OpenedImage }).openImage.bind(doc);

/**
 * Renders `html` to a PDF with pdfkit. Everything that can refuse the input
 * happens before the promise resolves: the options are checked, the HTML is
 * parsed and bounded (`PdfLimits`), every image is decoded and checked. It
 * rejects with `PdfInputTooLarge` (413) or `PdfInputInvalid` (400) and
 * nothing is written. The stream it resolves to then receives the PDF as
 * pages are laid out: in slices of a few milliseconds, pausing while the
 * reader is behind, and stopping if the stream is destroyed (the client
 * went away). Nothing is fetched and no script runs. Text is drawn in
 * embedded Unicode fonts, subset to the glyphs used: DejaVu, and Noto Sans
 * SC and KR for CJK (font-files.ts, pdf-fonts.ts), read once per process.
 */
export async function renderPdf(html: string, options: PdfRenderOptions = {}): Promise<Readable> {
  if (typeof html !== 'string') throw new PdfInputInvalid('html must be a string');
  const resolved = resolveOptions(options);
  const { limits } = resolved;
  const bytes = Buffer.byteLength(html, 'utf8');
  if (bytes > limits.maxHtmlBytes) {
    throw new PdfInputTooLarge('maxHtmlBytes', `The HTML is ${bytes} bytes; at most ${limits.maxHtmlBytes}`);
  }
  const root = await parseHtml(html, limits);
  const built = await new BlockBuilder(resolved.width - 2 * PAGE_MARGIN, limits).build(root);
  const blocks = await resolveImages(built, limits);
  await loadFonts(html);
  return writePdf(blocks, resolved);
}

function writePdf(blocks: Block[], options: ResolvedPdfOptions): Readable {
  const doc = new PDFDocument({
    size: [options.width, options.height],
    margin: PAGE_MARGIN,
    // pdfkit reads every info value it is given (an undefined Title throws), so Title is there only when set.
    info: { ...(options.title !== undefined && { Title: options.title.slice(0, 1000) }), Producer: 'Flowbase', Creator: 'Flowbase' },
    displayTitle: options.title !== undefined,
  });
  const out = new PassThrough({ highWaterMark: OUTPUT_HIGH_WATER });
  doc.on('data', (chunk: Buffer) => {
    if (!out.destroyed) out.write(chunk);
  });
  doc.on('end', () => out.end());
  doc.on('error', (error: Error) => out.destroy(error));
  drawAll(doc, blocks, out).catch((error: Error) => out.destroy(error));
  return out;
}

async function drawAll(doc: PDFKit.PDFDocument, blocks: Block[], out: PassThrough): Promise<void> {
  const writer = new PageWriter(doc);
  const opened = new Map<CheckedImage, OpenedImage | null>();
  // Nothing is drawn before renderPdf has handed the stream over.
  if (!(await breathe(out))) return;
  let sliceStart = performance.now();
  for (const block of blocks) {
    for (const _ of drawBlock(writer, block, opened)) {
      if (performance.now() - sliceStart > SLICE_MS) {
        if (!(await breathe(out))) return;
        sliceStart = performance.now();
      }
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      if (!(await breathe(out))) return;
      sliceStart = performance.now();
    }
  }
  doc.end();
}

/** Gives the event loop a turn, then waits while the reader is behind; false once the stream is gone. */
async function breathe(out: PassThrough): Promise<boolean> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (out.writableNeedDrain && !out.destroyed) {
    await new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        resolve();
      };
      out.on('drain', done);
      out.on('close', done);
    });
  }
  return !out.destroyed;
}

/** Draws one block; a generator so that long blocks (tables) can yield part-way. */
function* drawBlock(writer: PageWriter, block: Block, opened: Map<CheckedImage, OpenedImage | null>): Generator<void, void, void> {
  switch (block.kind) {
    case 'text':
      return yield* drawTextBlock(writer, block);
    case 'table':
      return yield* drawTable(writer, block);
    case 'svg':
      return drawBox(writer, block, (box) => {
        const viewBox = parseViewBox(block.element.attrs.viewbox) ?? { x: 0, y: 0, width: block.width / PX_TO_PT, height: block.height / PX_TO_PT };
        drawSvg(writer.doc, block.element, box, viewBox);
      });
    case 'image':
      return drawBox(writer, block, (box) => {
        const image = openImage(writer.doc, block.image, opened);
        // doc.image takes an opened image where its types say a Buffer.
        if (image) writer.doc.image(image as unknown as Buffer, box.x, box.y, { width: box.width, height: box.height });
      });
    case 'rule': {
      writer.space(block.spaceBefore);
      writer.ensure(1);
      const y = writer.y + 0.5;
      setStroke(writer.doc, { rgb: [180, 180, 180], alpha: 1 });
      writer.doc
        .lineWidth(0.75)
        .moveTo(writer.left + block.indent, y)
        .lineTo(writer.left + writer.contentWidth, y)
        .stroke();
      return writer.advance(y + 0.5);
    }
    case 'page-break':
      if (writer.pageHasContent) writer.newPage();
      return;
  }
}

/**
 * Places a chart or image: scaled down (never up) to the width left by its
 * indent and to the page height, aligned by text-align, on the next page
 * when it does not fit below.
 */
function drawBox(writer: PageWriter, block: SvgBlock | ImageBlock, draw: (box: { x: number; y: number; width: number; height: number }) => void): void {
  const available = Math.max(40, writer.contentWidth - block.indent);
  const scale = Math.min(1, available / block.width, writer.contentHeight / block.height);
  const width = block.width * scale;
  const height = block.height * scale;
  writer.space(block.spaceBefore);
  writer.ensure(height);
  const offset = block.align === 'center' ? (available - width) / 2 : block.align === 'right' ? available - width : 0;
  const box = { x: writer.left + block.indent + offset, y: writer.y, width, height };
  const { x, y } = writer.doc;
  draw(box);
  // Text drawn inside a chart moves pdfkit's cursor; the flow is the page writer's.
  writer.doc.x = x;
  writer.doc.y = y;
  writer.advance(box.y + height);
}

/** pdfkit's parsed image, once per distinct image; null when pdfkit cannot read it (nothing is drawn). */
function openImage(doc: PDFKit.PDFDocument, image: CheckedImage, opened: Map<CheckedImage, OpenedImage | null>): OpenedImage | null {
  if (!opened.has(image)) {
    try {
      opened.set(image, openImageOf(doc)(image.bytes));
    } catch {
      opened.set(image, null);
    }
  }
  return opened.get(image) ?? null;
}
