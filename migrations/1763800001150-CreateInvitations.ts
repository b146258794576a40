import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Invitations: the only way into an organization besides creating it. One
 * grants nothing until the invited person accepts it with its code, which is
 * stored hashed.
 */
export class CreateInvitations1763800001150 implements MigrationInterface {
  name = 'CreateInvitations1763800001150';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        name text,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'analyst', 'viewer')),
        code_hash text NOT NULL UNIQUE,
        invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by uuid REFERENCES users(id) ON DELETE SET NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One open invitation per address and organization: inviting again replaces it.
    await q.query(`
      CREATE UNIQUE INDEX invitations_open_idx ON invitations (organization_id, email)
       WHERE accepted_at IS NULL AND revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invitations`);
  }
}
