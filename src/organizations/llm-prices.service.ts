import type { OrganizationPricesRepository } from '../llm-usage/organization-prices.repository';
import { DEFAULT_PRICES, PriceTable, type PriceEntry, type SourcedPriceEntry } from '../llm-usage/price-table';

/**
 * An organization's LLM price table: the built-in defaults, the operator's
 * LLM_PRICES over them, the organization's own entries over both (per
 * provider and model). Runs price their model calls with the same layers
 * (src/llm-usage/organization-price-tables.ts); costs already recorded stay.
 */
export class LlmPricesService {
  constructor(
    private readonly repository: OrganizationPricesRepository,
    /** LLM_PRICES. */
    private readonly setting: readonly PriceEntry[],
  ) {}

  /** Every entry in effect for the organization, with where it comes from. */
  async effective(organizationId: string): Promise<SourcedPriceEntry[]> {
    return new PriceTable(DEFAULT_PRICES, this.setting, await this.repository.list(organizationId)).entries();
  }

  /** Replaces the organization's own entries (validated: ReplacePricesBody); answers the table now in effect. */
  async replace(organizationId: string, entries: readonly PriceEntry[]): Promise<SourcedPriceEntry[]> {
    await this.repository.replace(organizationId, entries);
    return this.effective(organizationId);
  }
}
