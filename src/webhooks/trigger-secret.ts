import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whs_';

/** A new webhook secret (32 random bytes) and the SHA-256 that is stored in its place. */
export function generateTriggerSecret(): { secret: string; hash: string } {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashTriggerSecret(secret) };
}

export function hashTriggerSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares a presented secret with the stored hash in constant time (both sides are fixed-length digests). */
export function triggerSecretMatches(presented: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashTriggerSecret(presented), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
