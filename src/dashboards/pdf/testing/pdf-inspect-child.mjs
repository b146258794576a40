/**
 * Reads a PDF with pdf.js (and draws its pages with @napi-rs/canvas), in a
 * process of its own: pdf.js is an ES module that Jest's CommonJS runtime
 * cannot load. Plain JavaScript so that Node runs it without a loader.
 * Run by pdf-inspect.ts as
 *   node pdf-inspect-child.mjs <pdf> <outDir> <scale> [draw|text-only]
 * it prints one JSON object: the Title metadata and, per page, its size,
 * text, text items, drawing operator counts and, when drawn, the path of its
 * RGBA pixels (<outDir>/page-N.rgba, beside page-N.png for a person to see).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';

const [pdfPath, outDir, scaleArg, mode] = process.argv.slice(2);
const scale = Number(scaleArg ?? '1');
const draw = mode !== 'text-only';
const opNames = new Map(Object.entries(pdfjs.OPS).map(([name, code]) => [code, name]));
const standardFontDataUrl = path.join(path.dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json'))), 'standard_fonts') + path.sep;

async function readPage(document, n) {
  const page = await document.getPage(n);
  const viewport = page.getViewport({ scale });
  const content = await page.getTextContent();
  const items = content.items
    .filter((item) => 'str' in item) // The font size is the text matrix's vertical scale (pdf.js folds the font size into it).
    .map((item) => ({
      str: item.str,
      x: item.transform[4],
      y: item.transform[5],
      size: Math.round(Math.hypot(item.transform[2], item.transform[3]) * 100) / 100,
    }));
  const operators = await page.getOperatorList();
  const ops = {};
  operators.fnArray.forEach((fn, i) => {
    let name = opNames.get(fn) ?? String(fn);
    // pdf.js folds a path's painting operator into constructPath's first argument.
    const folded = name === 'constructPath' ? opNames.get(operators.argsArray[i][0]) : undefined;
    if (folded) name = `constructPath:${folded}`;
    ops[name] = (ops[name] ?? 0) + 1;
  });
  const result = {
    width: Math.round(viewport.width),
    height: Math.round(viewport.height),
    text: items.map((item) => item.str).join(' '),
    items,
    ops,
    pixels: null,
  };
  if (!draw) return result;
  const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  await page.render({ canvas, canvasContext: context, viewport }).promise;
  result.pixels = path.join(outDir, `page-${n}.rgba`);
  await writeFile(result.pixels, context.getImageData(0, 0, canvas.width, canvas.height).data);
  await writeFile(path.join(outDir, `page-${n}.png`), canvas.toBuffer('image/png'));
  return { ...result, width: canvas.width, height: canvas.height };
}

try {
  const data = new Uint8Array(await readFile(pdfPath));
  const document = await pdfjs.getDocument({ data, standardFontDataUrl, disableFontFace: true, verbosity: 0 }).promise;
  const metadata = await document.getMetadata();
  const pages = [];
  for (let n = 1; n <= document.numPages; n++) pages.push(await readPage(document, n));
  process.stdout.write(JSON.stringify({ title: metadata.info.Title ?? null, pages }));
  await document.destroy();
} catch (error) {
  process.stderr.write(String(error?.stack ?? error));
  process.exitCode = 1;
}
