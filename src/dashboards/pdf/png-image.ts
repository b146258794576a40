import { PNG } from 'pngjs';

/** What the PNG header (IHDR) says, read without decoding anything. */
export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export const isPng = (bytes: Buffer) => bytes.length >= 8 && bytes.subarray(0, 8).equals(SIGNATURE);

/** The IHDR fields, or undefined when the first chunk is not a whole IHDR. */
export function readPngHeader(bytes: Buffer): PngHeader | undefined {
  if (!isPng(bytes) || bytes.length < 33 || bytes.toString('latin1', 12, 16) !== 'IHDR' || bytes.readUInt32BE(8) !== 13) return undefined;
  return {
    width: bytes.readUInt32BE(16),
    height: bytes.readUInt32BE(20),
    bitDepth: bytes[24],
    colorType: bytes[25],
    interlaced: bytes[28] === 1,
  };
}

/** Whether the image has a tRNS chunk (walks the chunk list; the bytes were already checked by pngjs). */
function hasTransparencyChunk(bytes: Buffer): boolean {
  for (let pos = 8; pos + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(pos);
    const type = bytes.toString('latin1', pos + 4, pos + 8);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    pos += 12 + length;
  }
  return false;
}

function decode(bytes: Buffer): Promise<PNG> {
  return new Promise((resolve, reject) => {
    new PNG().parse(bytes, (error, png) => (error ? reject(error) : resolve(png)));
  });
}

function encode(png: PNG): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    png
      .pack()
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

/**
 * Proves a PNG whole (chunk lengths, CRCs, zlib data, scanline filters) by
 * decoding it with pngjs, asynchronously, and answers the bytes to embed.
 * pdfkit's own PNG reader (png-js) trusts what it reads: a wrong chunk length
 * sends it into an endless loop, and a bad filter byte throws inside a zlib
 * callback, out of reach of any try/catch. It also mis-decodes interlaced
 * images and palette images with transparency below 8 bits per pixel, so
 * those are re-encoded from the decoded pixels as plain 8-bit RGBA.
 * Rejects (with pngjs's error) when the image is corrupt.
 */
export async function checkedPng(bytes: Buffer, header: PngHeader): Promise<Buffer> {
  const png = await decode(bytes);
  const paletteAlpha = header.colorType === 3 && header.bitDepth < 8 && hasTransparencyChunk(bytes);
  return header.interlaced || paletteAlpha ? encode(png) : bytes;
}
