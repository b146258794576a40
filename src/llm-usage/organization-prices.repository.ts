import type { DataSource } from 'typeorm';
import type { PriceEntry } from './price-table';

/** The columns of organization_llm_prices as a PriceEntry (the day as written, never a Date shifted by a time zone). */
const SELECT = `SELECT provider, model, to_char(since, 'YYYY-MM-DD') AS since,
  input_per_million AS "inputPerMillion", output_per_million AS "outputPerMillion", currency
  FROM organization_llm_prices`;

/** An organization's own LLM price entries (migration OrganizationLlmPrices). */
export class OrganizationPricesRepository {
  constructor(private readonly db: DataSource) {}

  /** The organization's entries, by provider, model and newest `since` first. */
  list(organizationId: string): Promise<PriceEntry[]> {
    return this.db.query(`${SELECT} WHERE organization_id = $1 ORDER BY provider, model, since DESC`, [organizationId]);
  }

  /**
   * Replaces the organization's entries with `entries` in one transaction. The
   * organization's row is locked first, so two replacements run one after the
   * other (the later one wins whole) rather than interleaving their rows. The
   * table's trigger announces the change on `llm_prices_changed`.
   */
  async replace(organizationId: string, entries: readonly PriceEntry[]): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(`SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE`, [organizationId]);
      await m.query(`DELETE FROM organization_llm_prices WHERE organization_id = $1`, [organizationId]);
      if (!entries.length) return;
      await m.query(
        `INSERT INTO organization_llm_prices (organization_id, provider, model, since, input_per_million, output_per_million, currency)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::date[], $5::float8[], $6::float8[], $7::text[])`,
        [
          organizationId,
          entries.map((e) => e.provider),
          entries.map((e) => e.model),
          entries.map((e) => e.since),
          entries.map((e) => e.inputPerMillion),
          entries.map((e) => e.outputPerMillion),
          entries.map((e) => e.currency),
        ],
      );
    });
  }
}
