import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An organization's own LLM prices (issue 41): entries shaped as LLM_PRICES'
 * (src/llm-usage/price-table.ts), one per provider, model and `since` day,
 * replacing the defaults' and LLM_PRICES' entries for the models they name
 * when that organization's calls are priced. Gone with the organization.
 * Every change notifies `llm_prices_changed`, so workers drop the price tables
 * they cached (src/llm-usage/organization-price-tables.ts), as auth_changed
 * does for principals. Costs already recorded stay as they were.
 */
export class OrganizationLlmPrices1763800004300 implements MigrationInterface {
  name = 'OrganizationLlmPrices1763800004300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_llm_prices (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        provider text NOT NULL,
        model text NOT NULL,
        since date NOT NULL,
        input_per_million double precision NOT NULL CHECK (input_per_million >= 0),
        output_per_million double precision NOT NULL CHECK (output_per_million >= 0),
        currency text NOT NULL,
        PRIMARY KEY (organization_id, provider, model, since)
      )`);
    await q.query(`
      CREATE FUNCTION notify_llm_prices_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('llm_prices_changed', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER organization_llm_prices_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organization_llm_prices
        FOR EACH STATEMENT EXECUTE FUNCTION notify_llm_prices_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE organization_llm_prices`);
    await q.query(`DROP FUNCTION notify_llm_prices_changed()`);
  }
}
