import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class CreateConnections1763800000300 implements MigrationInterface {
  name = 'CreateConnections1763800000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connections (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id),
        name text NOT NULL,
        type text NOT NULL,
        variant text,
        config_encrypted text NOT NULL,
        settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT connections_org_name_key UNIQUE (organization_id, name)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE connections`);
  }
}
