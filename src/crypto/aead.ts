import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

export class DecryptionError extends Error {
  constructor() {
    // Deliberately vague: the cause (wrong key, wrong record, tampering) is not for callers.
    super('Ciphertext could not be decrypted');
    this.name = 'DecryptionError';
  }
}

/**
 * Encrypts with AES-256-GCM. `aad` binds the ciphertext to its owner (the
 * organization and the record), so a ciphertext copied elsewhere fails to open.
 * Output: `v1.<iv>.<ciphertext>.<tag>`, each part base64url.
 */
export function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** Reverses `seal`; throws DecryptionError on any mismatch of key, aad or bytes. */
export function open(key: Buffer, envelope: string, aad: string): Buffer {
  const parts = envelope.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new DecryptionError();
  const [, iv, body, tag] = parts.map((p) => Buffer.from(p, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new DecryptionError();
  try {
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DecryptionError();
  }
}
