import { NotifiedCache } from '../db/notified-cache';
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

/**
 * Each organization's effective price table, kept in memory so a model call
 * costs no price query. The table organization_llm_prices announces every
 * change on `llm_prices_changed` (migration OrganizationLlmPrices), which
 * empties the cache (NotifiedCache, as the principal cache does for
 * auth_changed); while it is not listening every lookup reads the database.
 * The listener starts at the first lookup: a process that makes no model call
 * holds no connection for it.
 */
export class OrganizationPriceTables implements OrganizationPrices {
  readonly service: PriceTable;
  private readonly cache: NotifiedCache<PriceTable>;
  private started = false;

  constructor(
    databaseUrl: string,
    logger: Logger,
    private readonly setting: readonly PriceEntry[],
    private readonly load: (organizationId: string) => Promise<PriceEntry[]>,
    maxEntries = MAX_ENTRIES,
  ) {
    this.service = new PriceTable(DEFAULT_PRICES, setting);
    this.cache = new NotifiedCache(databaseUrl, 'llm_prices_changed', logger, { maxEntries, ttlMs: TTL_MS });
  }

  async forOrganization(organizationId: string): Promise<PriceTable> {
    if (!this.started) {
      this.started = true;
      this.cache.start();
    }
    const table = await this.cache.get(organizationId, async () => {
      const own = await this.load(organizationId);
      // An organization without entries prices as the service does: no table of its own to build or keep apart.
      return own.length ? new PriceTable(DEFAULT_PRICES, this.setting, own) : this.service;
    });
    return table!;
  }

  /** Whether lookups may be answered from memory (for tests). */
  get isListening(): boolean {
    return this.cache.isListening;
  }

  /** How many organizations' tables are kept (for tests). */
  get size(): number {
    return this.cache.size;
  }

  async close(): Promise<void> {
    await this.cache.close();
  }
}
