import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A token may be minted with a chosen list of permissions (issue 40): it then
 * acts with those of its member's current role that the list names, so a later
 * role change narrows it too, and never widens it beyond the list. NULL, the
 * tokens minted before and those minted without a list, means the role's
 * permissions. The list is set once, when the token is minted; it is added to
 * the columns whose update notifies `auth_changed` all the same, so a change
 * made by hand reaches every process's cached principals at once.
 */
export class TokenPermissions1763800004100 implements MigrationInterface {
  name = 'TokenPermissions1763800004100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_tokens ADD COLUMN permissions text[]`);
    await q.query(`DROP TRIGGER access_tokens_auth_changed ON access_tokens`);
    await q.query(`
      CREATE TRIGGER access_tokens_auth_changed
        AFTER UPDATE OF revoked_at, expires_at, user_id, organization_id, kind, issued_by, token_hash, permissions OR DELETE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER access_tokens_auth_changed ON access_tokens`);
    await q.query(`
      CREATE TRIGGER access_tokens_auth_changed
        AFTER UPDATE OF revoked_at, expires_at, user_id, organization_id, kind, issued_by, token_hash OR DELETE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
    await q.query(`ALTER TABLE access_tokens DROP COLUMN permissions`);
  }
}
