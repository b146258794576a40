import { ChannelListener } from '../db/channel-listener';
import type { Logger } from '../logging/logger';
import { DEFAULT_PRICES, PriceTable, type PriceEntry } from './price-table';

/** Organizations whose tables are kept at most, by default; the least recently used go first. */
const MAX_ENTRIES = 1_000;
/** A safety net only: every change is announced at once (llm_prices_changed). */
const TTL_MS = 60_000;

/** What the model-call activities price with. */
export interface OrganizationPrices {
  /** The service-wide table (defaults with LLM_PRICES): the token metric labels only models it knows, never an organization's own names. */
  readonly service: PriceTable;
  /** The table an organization's calls are priced with: its own entries over the service-wide table. */
  forOrganization(organizationId: string): Promise<PriceTable>;
}

interface Entry {
  table: PriceTable;
  cachedAt: number;
}

/**
 * Each organization's effective price table, kept in memory so a model call
 * costs no price query. The table organization_llm_prices announces every
 * change on `llm_prices_changed` (migration OrganizationLlmPrices); a
 * connection of its own LISTENs, as PrincipalCache does for auth_changed, and
 * every notification empties the cache. While it is not listening (not yet
 * started, lost, reconnecting) every lookup reads the database. The listener
 * starts at the first lookup: a process that makes no model call holds no
 * connection for it.
 */
export class OrganizationPriceTables implements OrganizationPrices {
  readonly service: PriceTable;
  private readonly entries = new Map<string, Entry>();
  private readonly listener: ChannelListener;
  private started = false;
  private listening = false;
  /** Bumped at every clear: a load that started before it must not refill the cache with what it read. */
  private generation = 0;

  constructor(
    databaseUrl: string,
    logger: Logger,
    private readonly setting: readonly PriceEntry[],
    private readonly load: (organizationId: string) => Promise<PriceEntry[]>,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    this.service = new PriceTable(DEFAULT_PRICES, setting);
    this.listener = new ChannelListener(databaseUrl, 'llm_prices_changed', logger, {
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

  async forOrganization(organizationId: string): Promise<PriceTable> {
    if (!this.started) {
      this.started = true;
      this.listener.start();
    }
    const cached = this.listening ? this.entries.get(organizationId) : undefined;
    if (cached && Date.now() - cached.cachedAt < TTL_MS) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.entries.delete(organizationId);
      this.entries.set(organizationId, cached);
      return cached.table;
    }
    if (cached) this.entries.delete(organizationId);
    const generation = this.generation;
    const own = await this.load(organizationId);
    // An organization without entries prices as the service does: no table of its own to build or keep apart.
    const table = own.length ? new PriceTable(DEFAULT_PRICES, this.setting, own) : this.service;
    if (this.listening && generation === this.generation) {
      this.entries.set(organizationId, { table, cachedAt: Date.now() });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return table;
  }

  /** Empties the cache. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Whether lookups may be answered from memory (for tests). */
  get isListening(): boolean {
    return this.listening;
  }

  /** How many organizations' tables are kept (for tests). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    await this.listener.close();
  }
}
