import { PNG } from 'pngjs';
import { loadImage } from './image-source';
import { PdfInputInvalid } from './pdf-errors';
import { DEFAULT_PDF_LIMITS } from './pdf-limits';
import { PngChecker, readPngHeader } from './png-image';
import { JPEG_4X3, dataUri, solidPng } from './testing/fixtures';

const pngs = new PngChecker();
afterAll(() => pngs.close());
const load = (src: string) => loadImage(src, DEFAULT_PDF_LIMITS, 'Image 1', pngs);

describe('loadImage', () => {
  it('accepts PNG and JPEG data URIs by their bytes, whatever type they declare', async () => {
    const png = solidPng(5, 4, [0, 0, 0]);
    expect(await load(dataUri('image/png', png))).toMatchObject({ width: 5, height: 4 });
    expect(await load(dataUri('application/octet-stream', png))).toMatchObject({ width: 5, height: 4 });
    expect(await load(dataUri('image/jpeg', JPEG_4X3))).toMatchObject({ width: 4, height: 3 });
  });

  it('fetches nothing: remote, relative and script URLs, and formats pdfkit cannot embed, are left to the alt text', async () => {
    for (const src of [
      'https://example.com/a.png',
      'http://127.0.0.1/a.png',
      '/a.png',
      'file:///etc/passwd',
      'javascript:alert(1)',
      '',
      'data:image/gif;base64,R0lGODlhAQABAAAAACw=',
      'data:image/svg+xml,<svg/>',
    ]) {
      expect(await load(src)).toBeUndefined();
    }
  });

  it('passes an opaque PNG through as it is, and lays a transparent one over white as 8-bit RGB', async () => {
    const opaque = solidPng(3, 3, [10, 20, 30], false);
    expect((await load(dataUri('image/png', opaque)))!.bytes).toEqual(opaque);
    const translucent = new PNG({ width: 1, height: 1 });
    translucent.data.set([255, 0, 0, 128]);
    const image = await load(dataUri('image/png', PNG.sync.write(translucent)));
    expect(readPngHeader(image!.bytes)).toMatchObject({ colorType: 2, bitDepth: 8, interlaced: false });
    expect([...PNG.sync.read(image!.bytes).data]).toEqual([255, 127, 127, 255]);
  });

  it('re-encodes an interlaced PNG, which pdfkit would mis-decode, as plain 8-bit RGB', async () => {
    // pngjs writes no interlaced PNGs: flip the interlace flag of a 1 × 1 image and write its one pass (Adam7 pass 1 holds pixel 0,0).
    const plain = solidPng(1, 1, [255, 0, 0]);
    const interlaced = Buffer.from(plain);
    interlaced[28] = 1;
    const { crc32 } = await import('node:zlib');
    interlaced.writeUInt32BE(crc32(interlaced.subarray(12, 29)), 29);
    const image = await load(dataUri('image/png', interlaced));
    expect(readPngHeader(image!.bytes)).toMatchObject({ interlaced: false, bitDepth: 8, colorType: 2 });
    expect([...PNG.sync.read(image!.bytes).data]).toEqual([255, 0, 0, 255]);
  });

  it('refuses a data URI that is not decodable', async () => {
    await expect(load('data:image/png,%E0%A4%A')).rejects.toBeInstanceOf(PdfInputInvalid);
  });
});
