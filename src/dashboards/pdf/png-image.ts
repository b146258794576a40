import path from 'node:path';
import { Worker } from 'node:worker_threads';

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

/** Whether the image has a tRNS chunk before its pixel data (a bounded walk; pngjs checks the chunks properly). */
function hasTransparencyChunk(bytes: Buffer): boolean {
  for (let pos = 8; pos + 8 <= bytes.length;) {
    const type = bytes.toString('latin1', pos + 4, pos + 8);
    if (type === 'tRNS') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    pos += 12 + bytes.readUInt32BE(pos);
  }
  return false;
}

/**
 * Decodes PNGs with pngjs on a worker thread of its own, one at a time, for
 * one render: pngjs proves an image whole (chunk lengths, CRCs, zlib data,
 * scanline filters) but maps the pixels synchronously at the end, about
 * 35 ms a megapixel on the development machine, which must not stall the
 * service. `close()` ends the thread.
 */
export class PngChecker {
  private worker: Worker | undefined;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (bytes: Buffer | undefined) => void; reject: (error: Error) => void }>();

  /**
   * The bytes to embed: pdfkit's PNG reader (png-js) trusts what it reads (a
   * wrong chunk length loops forever; a bad filter byte throws inside a zlib
   * callback, out of any try/catch) and splits alpha channels synchronously,
   * so it only gets PNGs it embeds without decoding: opaque non-interlaced
   * ones as they are, others (alpha, tRNS, interlaced) laid over white as
   * 8-bit RGB, as they look on the page. Rejects when the image is corrupt.
   */
  async check(bytes: Buffer, header: PngHeader): Promise<Buffer> {
    const flatten = header.interlaced || header.colorType === 4 || header.colorType === 6 || hasTransparencyChunk(bytes);
    const out = await this.send(bytes, flatten);
    return out ?? bytes;
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private send(bytes: Buffer, flatten: boolean): Promise<Buffer | undefined> {
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, bytes, flatten });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(path.join(__dirname, 'png-decode-worker.cjs'));
    worker.unref();
    worker.on('message', (message: { id: number; bytes?: Uint8Array; error?: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new Error(message.error));
      else waiting?.resolve(message.bytes ? Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength) : undefined);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the PNG decoder stopped')));
    this.worker = worker;
    return worker;
  }
}
