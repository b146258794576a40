/**
 * Reads a PDF with pdf.js (and draws its pages with @napi-rs/canvas), in a
 * process of its own: pdf.js is an ES module that Jest's CommonJS runtime
 * cannot load. Run by pdf-inspect.ts as
 *   node --import tsx pdf-inspect-child.ts <pdf> <outDir> <scale>
 * it prints one JSON object: per page its size, text, text items, drawing
 * operator counts and the path of its RGBA pixels (<outDir>/page-N.rgba,
 * plus page-N.png for a person to look at).
 */
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';

async function main() {
  const [pdfPath, outDir, scaleArg] = process.argv.slice(2);
  const scale = Number(scaleArg ?? '1');
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const opNames = new Map<number, string>(Object.entries(pdfjs.OPS).map(([name, code]) => [code as number, name]));
  const standardFontDataUrl = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep;
  const data = new Uint8Array(await readFile(pdfPath));
  const document = await pdfjs.getDocument({ data, standardFontDataUrl, disableFontFace: true, verbosity: 0 }).promise;
  const metadata = await document.getMetadata();
  const pages = [];
  for (let n = 1; n <= document.numPages; n++) {
    const page = await document.getPage(n);
    const viewport = page.getViewport({ scale });
    const content = await page.getTextContent();
    const items = content.items.flatMap((item) => ('str' in item ? [{ str: item.str, x: item.transform[4], y: item.transform[5] }] : []));
    const operators = await page.getOperatorList();
    const ops: Record<string, number> = {};
    operators.fnArray.forEach((fn, i) => {
      let name = opNames.get(fn) ?? String(fn);
      // pdf.js folds a path's painting operator into constructPath's first argument.
      const folded = name === 'constructPath' ? opNames.get((operators.argsArray[i] as unknown[])[0] as number) : undefined;
      if (folded) name = `constructPath:${folded}`;
      ops[name] = (ops[name] ?? 0) + 1;
    });
    const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const context = canvas.getContext('2d');
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    // pdf.js types its render target with the DOM's canvas types, which this Node project does not load.
    type RenderParameters = Parameters<typeof page.render>[0];
    await page.render({ canvas, canvasContext: context, viewport } as unknown as RenderParameters).promise;
    const pixels = path.join(outDir, `page-${n}.rgba`);
    writeFileSync(pixels, context.getImageData(0, 0, canvas.width, canvas.height).data);
    writeFileSync(path.join(outDir, `page-${n}.png`), canvas.toBuffer('image/png'));
    pages.push({
      width: canvas.width,
      height: canvas.height,
      text: items.map((item) => item.str).join(' '),
      items,
      ops,
      pixels,
    });
  }
  const info = metadata.info as { Title?: string };
  process.stdout.write(JSON.stringify({ title: info.Title ?? null, pages }));
  await document.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(String((error as Error).stack ?? error));
  process.exit(1);
});
