import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Every change that can end or alter an authenticated principal notifies
 * `auth_changed`, so API processes drop their cached principals at once
 * (src/auth/principal-cache.ts). In the database, so no code path can forget
 * it: a token revoked, re-dated or deleted; a membership added, re-roled or
 * removed (a delegated token's issuer too); an organization renamed or
 * deleted. A token's `touch` (last_used_at only) does not notify.
 */
export class NotifyAuthChanges1763800002100 implements MigrationInterface {
  name = 'NotifyAuthChanges1763800002100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('auth_changed', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER access_tokens_auth_changed
        AFTER UPDATE OF revoked_at, expires_at, user_id, organization_id, kind, issued_by, token_hash OR DELETE OR TRUNCATE ON access_tokens
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
    await q.query(`
      CREATE TRIGGER memberships_auth_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
    await q.query(`
      CREATE TRIGGER organizations_auth_changed
        AFTER UPDATE OF suid OR DELETE OR TRUNCATE ON organizations
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER organizations_auth_changed ON organizations`);
    await q.query(`DROP TRIGGER memberships_auth_changed ON memberships`);
    await q.query(`DROP TRIGGER access_tokens_auth_changed ON access_tokens`);
    await q.query(`DROP FUNCTION notify_auth_changed()`);
  }
}
