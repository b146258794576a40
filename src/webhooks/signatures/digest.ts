import { createHmac, timingSafeEqual } from 'node:crypto';

export type DigestAlgorithm = 'sha1' | 'sha256' | 'sha512';
export type DigestEncoding = 'hex' | 'base64';

/** HMAC of a message given in pieces, so a large body is never copied to prepend a timestamp. */
export function hmac(algorithm: DigestAlgorithm, secret: string, message: readonly Buffer[]): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const piece of message) mac.update(piece);
  return mac.digest();
}

// Buffer.from(text, 'hex' | 'base64') skips what it cannot read instead of refusing it,
// so a value with garbage around a valid signature would decode to that signature.
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of a presented signature, or undefined when it is not well-formed in its encoding. */
export function decodeSignature(text: string, encoding: DigestEncoding): Buffer | undefined {
  if (encoding === 'hex') return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
  if (text === '' || !BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Unused low bits in the last character must be zero, or two texts would decode alike.
  return bytes.toString('base64') === text ? bytes : undefined;
}

/**
 * Whether any presented signature is the HMAC of any candidate message under
 * any secret. Every combination is computed and compared in constant time, so
 * the time taken says nothing about how close a wrong signature came; a
 * presented value of another length cannot match and is skipped (the length of
 * a digest is no secret).
 */
export function signedByAny(algorithm: DigestAlgorithm, secrets: readonly string[], messages: readonly Buffer[][], presented: readonly Buffer[]): boolean {
  let matched = false;
  for (const secret of secrets) {
    for (const message of messages) {
      const expected = hmac(algorithm, secret, message);
      for (const signature of presented) {
        if (signature.length === expected.length && timingSafeEqual(signature, expected)) matched = true;
      }
    }
  }
  return matched;
}
