import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateOrganizationKeys1763800000200 implements MigrationInterface {
  name = 'CreateOrganizationKeys1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organization_keys (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        wrapped_key text NOT NULL,
        master_key_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX organization_keys_master_idx ON organization_keys (master_key_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE organization_keys`);
  }
}
