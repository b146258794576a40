import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Until when one process is refreshing a connection's OAuth access token
 * (src/connections/oauth-tokens.ts). The API and the workers share the
 * database, not memory: the lease is how only one of them asks the vendor,
 * which rotates the refresh token on use. NULL or past: nobody is.
 */
export class ConnectionTokenRefreshLease1763800002500 implements MigrationInterface {
  name = 'ConnectionTokenRefreshLease1763800002500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections ADD COLUMN token_refresh_until timestamptz NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP COLUMN token_refresh_until`);
  }
}
