/** The frame markers pdfkit stops at (its MARKERS list: 0xFFC0–0xFFCF but DHT, 0xFFC4). */
const SOF_MARKERS = new Set([0xffc0, 0xffc1, 0xffc2, 0xffc3, 0xffc5, 0xffc6, 0xffc7, 0xffc8, 0xffc9, 0xffca, 0xffcb, 0xffcc, 0xffcd, 0xffce, 0xffcf]);

export interface JpegHeader {
  width: number;
  height: number;
  channels: number;
}

export const isJpeg = (bytes: Buffer) => bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;

/**
 * The frame size of a JPEG, found the way pdfkit finds it (pdfkit embeds the
 * bytes as they are, DCT-encoded, so the two must agree); undefined when there
 * is no usable frame header. The decoding itself is the PDF viewer's.
 */
export function readJpegHeader(bytes: Buffer): JpegHeader | undefined {
  let pos = 2;
  while (pos < bytes.length) {
    while (pos < bytes.length && bytes[pos] !== 0xff) pos++;
    if (pos + 4 > bytes.length) return undefined;
    const marker = bytes.readUInt16BE(pos);
    pos += 2;
    if (SOF_MARKERS.has(marker)) {
      if (pos + 8 > bytes.length) return undefined;
      const header = { height: bytes.readUInt16BE(pos + 3), width: bytes.readUInt16BE(pos + 5), channels: bytes[pos + 7] };
      const valid = bytes[pos + 2] === 8 && header.width > 0 && header.height > 0 && [1, 3, 4].includes(header.channels);
      return valid ? header : undefined;
    }
    pos += bytes.readUInt16BE(pos);
  }
  return undefined;
}
