import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../crypto/secret-box';

/** A signing secret as stored (encrypted, in a list): the current one has no end; a rotated-out one ends when its overlap does. */
interface StoredSecret {
  secret: string;
  expiresAt: string | null;
}

/** Rotating again within an overlap keeps the older secrets still in theirs, up to this many at once. */
const MAX_SECRETS = 3;

/** A secret for senders we configure ourselves (the generic `hmac` scheme), when the trigger was given none. */
export function generateSigningSecret(): string {
  return 'whsig_' + randomBytes(32).toString('base64url');
}

/**
 * A trigger's signing secrets, sealed under its organization's data key and
 * bound to the trigger (a ciphertext copied to another trigger does not open).
 */
export class SigningSecrets {
  constructor(private readonly box: SecretBox) {}

  /** The sealed list holding only `secret`. */
  seal(organizationId: string, triggerId: string, secret: string): Promise<string> {
    return this.box.encryptJson(organizationId, record(triggerId), [{ secret, expiresAt: null }] satisfies StoredSecret[]);
  }

  /** Every secret that verifies at `now`: the current one and those still in their overlap. */
  async valid(organizationId: string, triggerId: string, sealed: string, now: Date): Promise<string[]> {
    const list = await this.box.decryptJson<StoredSecret[]>(organizationId, record(triggerId), sealed);
    return list.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime()).map((s) => s.secret);
  }

  /**
   * `next` becomes the current secret; the current one keeps verifying for
   * `overlapSeconds` (0: it stops at once), and older ones until their own
   * end. Returns the sealed list and when the last overlap ends (null: none).
   */
  async rotate(
    organizationId: string,
    triggerId: string,
    sealed: string | null,
    next: string,
    overlapSeconds: number,
    now: Date,
  ): Promise<{ sealed: string; overlapUntil: Date | null }> {
    const previous = sealed ? await this.box.decryptJson<StoredSecret[]>(organizationId, record(triggerId), sealed) : [];
    const until = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
    const kept = previous
      .map((s) => (s.expiresAt === null ? { ...s, expiresAt: until } : s))
      .filter((s) => overlapSeconds > 0 && Date.parse(s.expiresAt!) > now.getTime() && s.secret !== next)
      .slice(0, MAX_SECRETS - 1);
    const list: StoredSecret[] = [{ secret: next, expiresAt: null }, ...kept];
    const ends = kept.map((s) => Date.parse(s.expiresAt!));
    return {
      sealed: await this.box.encryptJson(organizationId, record(triggerId), list),
      overlapUntil: ends.length > 0 ? new Date(Math.max(...ends)) : null,
    };
  }
}

const record = (triggerId: string) => `webhook-trigger:${triggerId}`;
