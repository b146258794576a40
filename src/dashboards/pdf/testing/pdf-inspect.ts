import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

/** One page of a PDF as pdf.js reads and draws it. */
export interface InspectedPage {
  /** Size of the drawn page in pixels (1 px per point at scale 1). */
  width: number;
  height: number;
  /** The page's text items joined by spaces. */
  text: string;
  /** Text items where they start (pdf.js coordinates: y grows upwards), with their font size in points. */
  items: { str: string; x: number; y: number; size: number }[];
  /** How often each drawing operator occurs, e.g. `constructPath:fill`, `paintImageXObject`, `showText`. */
  ops: Record<string, number>;
  /** The page's pixels, RGBA, row by row from the top (empty when not drawn). */
  rgba: Buffer;
}

export interface InspectedPdf {
  title: string | null;
  pages: InspectedPage[];
}

const run = promisify(execFile);
const CHILD = path.join(__dirname, 'pdf-inspect-child.mjs');

/**
 * Turns a PDF into text, operators and images, page by page, through pdf.js
 * and @napi-rs/canvas (both from npm, prebuilt: nothing to install beyond
 * `npm install`). `draw: false` reads text and operators only (much
 * faster); `PDF_INSPECT_KEEP=<dir>` keeps the drawn pages as PNGs there.
 */
export async function inspectPdf(pdf: Buffer, { scale = 1, draw = true } = {}): Promise<InspectedPdf> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pdf-inspect-'));
  try {
    const file = path.join(dir, 'in.pdf');
    writeFileSync(file, pdf);
    const { stdout } = await run(process.execPath, [CHILD, file, dir, String(scale), draw ? 'draw' : 'text-only'], { maxBuffer: 256 * 1024 * 1024 });
    const parsed = JSON.parse(stdout) as { title: string | null; pages: (Omit<InspectedPage, 'rgba'> & { pixels: string | null })[] };
    const keep = process.env.PDF_INSPECT_KEEP;
    return {
      title: parsed.title,
      pages: parsed.pages.map(({ pixels, ...page }, i) => {
        if (keep && pixels) writeFileSync(path.join(keep, `page-${i + 1}.png`), readFileSync(path.join(dir, `page-${i + 1}.png`)));
        return { ...page, rgba: pixels ? readFileSync(pixels) : Buffer.alloc(0) };
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pixels of a page in a rectangle (page pixels) that `match` accepts. */
export function countPixels(
  page: InspectedPage,
  match: (r: number, g: number, b: number) => boolean,
  area = { x: 0, y: 0, width: page.width, height: page.height },
): number {
  let count = 0;
  const x1 = Math.min(page.width, area.x + area.width);
  const y1 = Math.min(page.height, area.y + area.height);
  for (let y = Math.max(0, area.y); y < y1; y++) {
    for (let x = Math.max(0, area.x); x < x1; x++) {
      const i = (y * page.width + x) * 4;
      if (match(page.rgba[i], page.rgba[i + 1], page.rgba[i + 2])) count++;
    }
  }
  return count;
}

/** Collects a stream into one Buffer. */
export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
