import { isJpeg, readJpegHeader } from './jpeg-image';
import { PdfInputInvalid, PdfInputTooLarge } from './pdf-errors';
import type { PdfLimits } from './pdf-limits';
import { isPng, readPngHeader, type PngChecker } from './png-image';

/** An image ready for pdfkit: its bytes (PNG or JPEG) and pixel size. */
export interface CheckedImage {
  bytes: Buffer;
  width: number;
  height: number;
}

const DATA_URI = /^data:([^,;]*)((?:;[^,;]*)*?),/i;

/**
 * The bytes of a `data:` URI, or undefined for anything else (http:, file:,
 * relative paths…: the renderer fetches nothing). The decoded size is bounded
 * from the encoded length before anything is decoded.
 */
export function dataUriBytes(src: string, maxBytes: number, label: string): Buffer | undefined {
  const trimmed = src.trim();
  const match = DATA_URI.exec(trimmed.slice(0, 512));
  if (!match) return undefined;
  const payload = trimmed.slice(match[0].length);
  const base64 = /;base64$/i.test(match[2]);
  const estimate = base64 ? Math.floor((payload.length * 3) / 4) : payload.length;
  if (estimate > maxBytes * 1.02 + 16) {
    throw new PdfInputTooLarge('maxImageBytes', `${label} is larger than ${maxBytes} bytes`);
  }
  let bytes: Buffer;
  try {
    bytes = base64 ? Buffer.from(payload.replace(/\s+/g, ''), 'base64') : Buffer.from(decodeURIComponent(payload), 'latin1');
  } catch {
    throw new PdfInputInvalid(`${label} is not a valid data URI`);
  }
  if (bytes.length > maxBytes) throw new PdfInputTooLarge('maxImageBytes', `${label} is larger than ${maxBytes} bytes`);
  return bytes;
}

function checkSize(width: number, height: number, limits: PdfLimits, label: string) {
  if (width > limits.maxImageSide || height > limits.maxImageSide) {
    throw new PdfInputTooLarge('maxImageSide', `${label} is ${width}×${height} pixels; at most ${limits.maxImageSide} per side`);
  }
  if (width * height > limits.maxImagePixels) {
    throw new PdfInputTooLarge('maxImagePixels', `${label} has ${width * height} pixels; at most ${limits.maxImagePixels}`);
  }
}

/**
 * Loads an `<img src>`: a data URI holding a PNG or JPEG (told by its bytes,
 * not its declared type) becomes a checked image; anything else (remote or
 * relative URLs, GIF, WebP, SVG…) is undefined, and the caller shows the alt
 * text. Bytes that claim PNG or JPEG but are broken are `PdfInputInvalid`;
 * past a size bound, `PdfInputTooLarge`.
 */
export async function loadImage(src: string, limits: PdfLimits, label: string, pngs: PngChecker): Promise<CheckedImage | undefined> {
  const bytes = dataUriBytes(src, limits.maxImageBytes, label);
  if (!bytes) return undefined;
  if (isPng(bytes)) {
    const header = readPngHeader(bytes);
    if (!header || header.width === 0 || header.height === 0) throw new PdfInputInvalid(`${label} is not a valid PNG (no image header)`);
    checkSize(header.width, header.height, limits, label);
    try {
      return { bytes: await pngs.check(bytes, header), width: header.width, height: header.height };
    } catch (error) {
      throw new PdfInputInvalid(`${label} is not a valid PNG (${(error as Error).message})`);
    }
  }
  if (isJpeg(bytes)) {
    const header = readJpegHeader(bytes);
    if (!header) throw new PdfInputInvalid(`${label} is not a valid JPEG (no 8-bit frame header)`);
    checkSize(header.width, header.height, limits, label);
    return { bytes, width: header.width, height: header.height };
  }
  const declared = /^data:image\/(png|jpe?g)\b/i.exec(src.trim());
  if (declared) throw new PdfInputInvalid(`${label} is declared ${declared[1].toUpperCase()} but its bytes are not`);
  return undefined;
}
