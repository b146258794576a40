import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Console sign-in sessions (src/auth/console-sessions.repository.ts). A
 * session is an HttpOnly cookie standing for one access token: it dies with
 * that token (revoked, expired, deleted with its membership) and on sign-out.
 * Only the cookie's SHA-256 is stored. Ending one notifies auth_changed, like
 * every other change that ends a principal, so no API process answers from a
 * cached principal after a sign-out.
 */
export class CreateConsoleSessions1763800002900 implements MigrationInterface {
  name = 'CreateConsoleSessions1763800002900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY,
        token_id uuid NOT NULL REFERENCES access_tokens(id) ON DELETE CASCADE,
        session_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      )`);
    await q.query(`CREATE INDEX console_sessions_by_token ON console_sessions (token_id, created_at)`);
    // Row triggers with conditions: a sign-in (an insert, a clean-up of dead sessions) changes no principal and must
    // not empty every process's cache; notifications of one transaction are delivered once.
    await q.query(`
      CREATE TRIGGER console_sessions_ended
        AFTER UPDATE OF ended_at, expires_at, token_id, session_hash ON console_sessions
        FOR EACH ROW WHEN (OLD.ended_at IS NULL) EXECUTE FUNCTION notify_auth_changed()`);
    await q.query(`
      CREATE TRIGGER console_sessions_deleted
        AFTER DELETE ON console_sessions
        FOR EACH ROW WHEN (OLD.ended_at IS NULL AND OLD.expires_at > now()) EXECUTE FUNCTION notify_auth_changed()`);
    await q.query(`
      CREATE TRIGGER console_sessions_truncated
        AFTER TRUNCATE ON console_sessions
        FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_sessions`);
  }
}
