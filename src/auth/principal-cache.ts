import { ChannelListener } from '../db/channel-listener';
import type { Logger } from '../logging/logger';
import type { TokenPrincipal } from './access-tokens.repository';

/** Principals kept at most; the least recently used go first. */
const MAX_ENTRIES = 10_000;
/** A safety net only: every change that matters is announced at once (auth_changed). */
const TTL_MS = 60_000;

interface Entry {
  principal: TokenPrincipal;
  cachedAt: number;
}

/**
 * Authenticated principals by token hash, so a request costs no token lookup.
 * The database announces every change that can end or alter one (migration
 * NotifyAuthChanges: revocation, expiry moved, membership or role changed,
 * organization gone) on `auth_changed`; a dedicated connection LISTENs and
 * every notification empties the cache. While that connection is not
 * listening (starting, lost, reconnecting), nothing is answered from memory,
 * and the cache starts empty again once it listens. A token's own expiry is
 * checked on every use.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly listener: ChannelListener;
  private listening = false;
  /** Bumped at every clear: a lookup that started before it must not refill the cache with what it read. */
  private generation = 0;

  constructor(databaseUrl: string, logger: Logger) {
    this.listener = new ChannelListener(databaseUrl, 'auth_changed', logger, {
      notified: () => this.clear(),
      listening: () => {
        this.clear();
        this.listening = true;
      },
      lost: () => {
        this.listening = false;
        this.clear();
      },
    });
  }

  /** Starts listening; the cache answers once the LISTEN is in place. */
  start(): void {
    this.listener.start();
  }

  /** The principal of `hash`: from memory while listening, else from `load` (kept when listening). */
  async lookup(hash: string, load: () => Promise<TokenPrincipal | undefined>): Promise<TokenPrincipal | undefined> {
    const cached = this.listening ? this.entries.get(hash) : undefined;
    if (cached && Date.now() - cached.cachedAt < TTL_MS && !expired(cached.principal)) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.entries.delete(hash);
      this.entries.set(hash, cached);
      return cached.principal;
    }
    if (cached) this.entries.delete(hash);
    const generation = this.generation;
    const principal = await load();
    if (principal && this.listening && generation === this.generation) {
      this.entries.set(hash, { principal, cachedAt: Date.now() });
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
    return principal;
  }

  /** Empties the cache (also called by this process's own revocations, before the notification arrives). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Whether the cache may answer from memory (for tests and diagnostics). */
  get isListening(): boolean {
    return this.listening;
  }

  async close(): Promise<void> {
    await this.listener.close();
  }
}

const expired = (p: TokenPrincipal) =>
  (p.expiresAt !== null && new Date(p.expiresAt).getTime() <= Date.now()) || (p.session !== undefined && new Date(p.session.expiresAt).getTime() <= Date.now());
