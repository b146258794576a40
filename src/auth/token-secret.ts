import { createHash, randomBytes } from 'node:crypto';

/**
 * A new secret: 32 random bytes, so a fast hash is safe to store. The prefix
 * tells kinds apart at a glance (`fbt_` access tokens, `fbi_` invitation codes, `fbs_` console sessions).
 */
export function generateToken(kind: 'fbt_' | 'fbi_' | 'fbs_' = 'fbt_'): { token: string; hash: string; prefix: string } {
  const token = kind + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token), prefix: token.slice(0, kind.length + 6) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
