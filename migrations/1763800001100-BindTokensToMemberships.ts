import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Every access token belongs to exactly one membership (user + organization)
 * and dies with it. `kind` says whose credential it is: `personal` (the user
 * minted it, or an operator did) or `delegated` (another member minted it; it
 * acts only while that member still outranks its user). `parent_id` links a
 * token to the one it was minted with, so revoking one revokes what it minted.
 *
 * Existing tokens keep working where the model allows them: a token whose
 * membership is gone could only ever act through X-Organization-Id elsewhere,
 * which the model forbids, so it is deleted; every other token stays, and
 * delegated ones are judged against their issuer at each request.
 */
export class BindTokensToMemberships1763800001100 implements MigrationInterface {
  name = 'BindTokensToMemberships1763800001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM access_tokens t
       WHERE NOT EXISTS (SELECT 1 FROM memberships m WHERE m.organization_id = t.organization_id AND m.user_id = t.user_id)`);
    await q.query(`ALTER TABLE access_tokens ADD COLUMN kind text NOT NULL DEFAULT 'personal' CHECK (kind IN ('personal', 'delegated'))`);
    await q.query(`UPDATE access_tokens SET kind = 'delegated' WHERE issued_by IS NOT NULL AND issued_by <> user_id`);
    await q.query(`ALTER TABLE access_tokens ALTER COLUMN kind DROP DEFAULT`);
    await q.query(`
      ALTER TABLE access_tokens
        ADD CONSTRAINT access_tokens_membership_fk FOREIGN KEY (organization_id, user_id)
          REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE`);
    await q.query(`ALTER TABLE access_tokens ADD COLUMN parent_id uuid REFERENCES access_tokens(id) ON DELETE CASCADE`);
    await q.query(`CREATE INDEX access_tokens_membership_idx ON access_tokens (organization_id, user_id)`);
    await q.query(`CREATE INDEX access_tokens_parent_idx ON access_tokens (parent_id) WHERE parent_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX access_tokens_parent_idx`);
    await q.query(`DROP INDEX access_tokens_membership_idx`);
    await q.query(`ALTER TABLE access_tokens DROP COLUMN parent_id`);
    await q.query(`ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_membership_fk`);
    await q.query(`ALTER TABLE access_tokens DROP COLUMN kind`);
  }
}
