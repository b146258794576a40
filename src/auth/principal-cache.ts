import { NotifiedCache } from '../db/notified-cache';
import type { Logger } from '../logging/logger';
import type { TokenPrincipal } from './access-tokens.repository';

/**
 * Authenticated principals by token hash, so a request costs no token lookup.
 * The database announces every change that can end or alter one (migration
 * NotifyAuthChanges: revocation, expiry moved, membership or role changed,
 * organization gone) on `auth_changed`, and every notification empties the
 * cache (NotifiedCache: nothing is answered from memory while not listening).
 * A token's own expiry is checked on every use. At most 10,000 principals; a
 * minute at most, as a safety net.
 */
export class PrincipalCache extends NotifiedCache<TokenPrincipal> {
  constructor(databaseUrl: string, logger: Logger) {
    super(databaseUrl, 'auth_changed', logger, { maxEntries: 10_000, ttlMs: 60_000, fresh: (principal) => !expired(principal) });
  }

  /** The principal of `hash`: from memory while listening, else from `load` (kept when listening). */
  lookup(hash: string, load: () => Promise<TokenPrincipal | undefined>): Promise<TokenPrincipal | undefined> {
    return this.get(hash, load);
  }
}

const expired = (p: TokenPrincipal) =>
  (p.expiresAt !== null && new Date(p.expiresAt).getTime() <= Date.now()) || (p.session !== undefined && new Date(p.session.expiresAt).getTime() <= Date.now());
