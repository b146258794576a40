import type { Request } from 'express';
import { AppError } from '../errors/errors';
import { assertSafeInput } from './json-guard';
import { uploadStream } from './upload';

/**
 * A JSON document sent as the request body (Content-Type application/json,
 * optionally gzip-compressed), read whole up to `maxBytes`: 415 for another
 * content type, 413 past the bound (counted after decompression), 400
 * `invalid_json` when it does not parse. For uploads larger than the API's
 * JSON body limit (a dashboard import, a package).
 */
export async function readJsonUpload(req: Request, maxBytes: number): Promise<unknown> {
  const type = req.is('application/json');
  if (type === null) throw new AppError(400, 'validation_failed', 'The request has no body: send the JSON file as the body');
  if (type === false) throw new AppError(415, 'unsupported_media_type', 'Send the file as application/json (gzip allowed)');
  const chunks: Buffer[] = [];
  for await (const chunk of uploadStream(req, maxBytes)) chunks.push(chunk as Buffer);
  let json: unknown;
  try {
    // A byte order mark, which some editors write, is not JSON.
    json = JSON.parse(
      Buffer.concat(chunks)
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
    );
  } catch {
    throw new AppError(400, 'invalid_json', 'The file is not valid JSON');
  }
  assertSafeInput(json, 'body');
  return json;
}
