import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PREFIX = 'fbt_';

/** A new bearer token: 32 random bytes, so a fast hash is safe to store. */
export function generateToken(): { token: string; hash: string; prefix: string } {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, TOKEN_PREFIX.length + 6) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
