import type { Request } from 'express';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { AppError } from '../errors/errors';

const tooLarge = (maxBytes: number) => new AppError(413, 'payload_too_large', `The upload is larger than the limit of ${maxBytes} bytes (after decompression)`);

/**
 * The request body as a stream, decompressed when sent with
 * `Content-Encoding: gzip`, failing with 413 past `maxBytes` (counted after
 * decompression) and with 400 on broken gzip. If the consumer stops early,
 * the rest of the upload is drained so the client still reads the answer.
 */
export function uploadStream(req: Request, maxBytes: number): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    throw new AppError(415, 'unsupported_media_type', `Content-Encoding "${encoding}" is not supported; send gzip or nothing`);
  }
  const declared = Number(req.headers['content-length']);
  if (encoding === 'identity' && declared > maxBytes) throw tooLarge(maxBytes);

  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
  const body = new PassThrough();
  let stage: Readable = req;
  if (encoding === 'gzip') {
    const gunzip = createGunzip();
    gunzip.on('error', () => counted.destroy(new AppError(400, 'invalid_gzip', 'The body is not valid gzip')));
    stage = req.pipe(gunzip);
  }
  stage.pipe(counted).pipe(body);
  counted.on('error', (err) => body.destroy(err));
  // The failure reaches the consumer through `body.errored` and its own pipeline; it may not be listening yet.
  body.on('error', () => undefined);
  req.on('error', (err) => body.destroy(err));
  req.on('close', () => {
    if (!req.readableEnded) body.destroy(new AppError(400, 'upload_aborted', 'The upload ended before the body was complete'));
  });
  body.on('close', () => {
    if (!req.readableEnded) {
      req.unpipe();
      req.resume();
    }
  });
  return body;
}
