import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Read-only shares of data store tables between organizations (interface.md
 * 2.8, 4.6). A revoked share keeps its row (revoked_at set) so the sources
 * built on it can say why they fail; the partial unique indexes decide races:
 * one active share of a table per recipient, and one active alias per name in
 * the recipient organization.
 *
 * A data source over a shared table names its share (share_id): revoking the
 * share disables those sources and empties their serving relations in the
 * same transaction, and every read checks the share is still active.
 */
export class CreateDataStoreShares1763800001700 implements MigrationInterface {
  name = 'CreateDataStoreShares1763800001700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE data_store_shares (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        owner_organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid,
        table_name text COLLATE "C" NOT NULL,
        shared_to_organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        alias text COLLATE "C" NOT NULL,
        read_only boolean NOT NULL DEFAULT true CHECK (read_only),
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (organization_id = owner_organization_id),
        CHECK (shared_to_organization_id <> organization_id)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX data_store_shares_active_key ON data_store_shares (organization_id, table_name, shared_to_organization_id)
      WHERE revoked_at IS NULL`);
    await q.query(`CREATE UNIQUE INDEX data_store_shares_alias_key ON data_store_shares (shared_to_organization_id, alias) WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX data_store_shares_granted ON data_store_shares (organization_id, created_at DESC) WHERE revoked_at IS NULL`);
    // No ON DELETE on purpose: a share row never goes while sources read through it (revocation keeps the row);
    // removing an organization that granted shares must close its recipients' sources first.
    await q.query(`ALTER TABLE data_sources ADD COLUMN share_id uuid REFERENCES data_store_shares(id)`);
    await q.query(`CREATE INDEX data_sources_share ON data_sources (share_id) WHERE share_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE data_sources DROP COLUMN share_id`);
    await q.query(`DROP TABLE data_store_shares`);
  }
}
