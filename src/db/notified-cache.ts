import type { Logger } from '../logging/logger';
import { ChannelListener } from './channel-listener';

export interface NotifiedCacheOptions<V> {
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  /** A safety net only: every change that matters is announced on the channel. */
  ttlMs: number;
  /** Whether a cached value may still be answered (a token past its expiry may not); default: always. */
  fresh?: (value: V) => boolean;
}

interface Entry<V> {
  value: V;
  cachedAt: number;
}

/**
 * Values read from the database, kept in memory by key, emptied whenever the
 * database announces a change on `channel` (a trigger's NOTIFY). A connection
 * of its own LISTENs (ChannelListener); while it is not listening (not yet
 * started, lost, reconnecting) nothing is answered from memory, and the cache
 * starts empty again once it listens. The principal cache and the
 * organizations' LLM price tables are two of these.
 */
export class NotifiedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly listener: ChannelListener;
  private listening = false;
  /** Bumped at every clear: a load that started before it must not refill the cache with what it read. */
  private generation = 0;

  constructor(
    databaseUrl: string,
    channel: string,
    logger: Logger,
    private readonly options: NotifiedCacheOptions<V>,
  ) {
    this.listener = new ChannelListener(databaseUrl, channel, logger, {
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

  /** The value of `key`: from memory while listening, else from `load` (kept when listening; undefined is never kept). */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.listening ? this.entries.get(key) : undefined;
    if (cached && Date.now() - cached.cachedAt < this.options.ttlMs && (this.options.fresh?.(cached.value) ?? true)) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached.value;
    }
    if (cached) this.entries.delete(key);
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && this.listening && generation === this.generation) {
      this.entries.set(key, { value, cachedAt: Date.now() });
      if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Empties the cache (a process's own change may call it before the notification arrives). */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Whether the cache may answer from memory (for tests and diagnostics). */
  get isListening(): boolean {
    return this.listening;
  }

  /** How many values are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    await this.listener.close();
  }
}
