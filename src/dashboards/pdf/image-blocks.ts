import type { BuiltBlock } from './html-blocks';
import { loadImage, type CheckedImage } from './image-source';
import type { Block } from './layout-model';
import { PdfInputTooLarge } from './pdf-errors';
import type { PdfLimits } from './pdf-limits';
import { PngChecker } from './png-image';
import { normalizeText } from './text-normalize';

const PX_TO_PT = 0.75;

/**
 * Loads every `<img>` of the document, in order, and checks the bounds:
 * an image that can be drawn becomes an image block sized from its
 * attributes (the missing side keeping the aspect ratio) or its pixels at
 * 96 dpi; any other source becomes its alt text, in italics. The same data
 * URI twice is loaded (and embedded) once.
 */
export async function resolveImages(blocks: BuiltBlock[], limits: PdfLimits): Promise<Block[]> {
  const loaded = new Map<string, CheckedImage | undefined>();
  let totalPixels = 0;
  let n = 0;
  const out: Block[] = [];
  const pngs = new PngChecker();
  try {
    for (const block of blocks) {
      if (block.kind !== 'image-request') {
        out.push(block);
        continue;
      }
      n++;
      let image = loaded.get(block.src);
      if (!loaded.has(block.src)) {
        const label = `Image ${n}${block.alt ? ` ("${block.alt.slice(0, 40)}")` : ''}`;
        image = await loadImage(block.src, limits, label, pngs);
        loaded.set(block.src, image);
        if (image) {
          totalPixels += image.width * image.height;
          if (totalPixels > limits.maxTotalImagePixels) {
            throw new PdfInputTooLarge('maxTotalImagePixels', `The images have more than ${limits.maxTotalImagePixels} pixels together`);
          }
        }
      }
      if (image) {
        const aspect = image.height / image.width;
        const width = block.width ?? (block.height !== undefined ? block.height / aspect : image.width * PX_TO_PT);
        const height = block.height ?? width * aspect;
        out.push({ kind: 'image', image, width, height, align: block.align, indent: block.indent, spaceBefore: block.spaceBefore });
      } else if (block.alt.trim()) {
        const run = { text: normalizeText(block.alt.trim()), style: { ...block.style, italic: true } };
        out.push({ kind: 'text', runs: [run], align: block.align, indent: block.indent, spaceBefore: block.spaceBefore, keepWithNext: false });
      }
    }
  } finally {
    pngs.close();
  }
  return out;
}
