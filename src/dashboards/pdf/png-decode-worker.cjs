// The PNG check of png-image.ts, on a worker thread: pngjs decodes a whole
// image synchronously at the end (about 35 ms a megapixel here), which must
// not hold the service's event loop. Plain CommonJS, so a Worker loads it as
// it is under tsx, Jest and plain Node alike.
//
// Message in: { id, bytes: Uint8Array, flatten: boolean }
// Message out: { id, bytes?: Uint8Array } (the flattened PNG when asked), or { id, error: string }.
const { parentPort } = require('node:worker_threads');
const zlib = require('node:zlib');
const { PNG } = require('pngjs');

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))));
  return Buffer.concat([head, data, crc]);
}

/** The decoded RGBA pixels laid over white, as an 8-bit RGB PNG with filter None. */
function flatten(png) {
  const { width, height, data } = png;
  const rowBytes = 1 + width * 3;
  const raw = Buffer.allocUnsafe(rowBytes * height);
  let o = 0;
  for (let y = 0, i = 0; y < height; y++) {
    raw[o++] = 0;
    for (let x = 0; x < width; x++, i += 4) {
      const alpha = data[i + 3];
      const white = 255 * (255 - alpha);
      raw[o++] = Math.round((data[i] * alpha + white) / 255);
      raw[o++] = Math.round((data[i + 1] * alpha + white) / 255);
      raw[o++] = Math.round((data[i + 2] * alpha + white) / 255);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

parentPort.on('message', ({ id, bytes, flatten: wanted }) => {
  try {
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const out = wanted ? flatten(png) : undefined;
    parentPort.postMessage({ id, bytes: out }, out ? [out.buffer] : []);
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
