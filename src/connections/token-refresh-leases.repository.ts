import { type DataSource } from 'typeorm';

/** A lease on refreshing one connection's token: the config as it was when taken, and the lease's end (which releases only it). */
export interface TokenRefreshLease {
  configEncrypted: string;
  /** token_refresh_until as PostgreSQL's text (microseconds kept, which a JS Date would drop). */
  until: string;
}

/**
 * The `token_refresh_until` lease of connections (one refresh at a time
 * across processes) and the compare-and-swap that stores a refreshed
 * config. Each method is one statement: nothing holds a connection or a
 * transaction while the vendor is asked. Times are the database's, which
 * every process shares. Every method takes the organization.
 */
export class TokenRefreshLeases {
  constructor(private readonly db: DataSource) {}

  /** Takes the lease for `ms` unless another holds it; undefined when held (or there is no such connection). */
  async take(organizationId: string, id: string, ms: number): Promise<TokenRefreshLease | undefined> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows]: [Array<{ config_encrypted: string; until: string }>, number] = await this.db.query(
      `UPDATE connections SET token_refresh_until = now() + make_interval(secs => $3::double precision / 1000)
       WHERE organization_id = $1 AND id = $2 AND (token_refresh_until IS NULL OR token_refresh_until < now())
       RETURNING config_encrypted, token_refresh_until::text AS until`,
      [organizationId, id, ms],
    );
    return rows[0] && { configEncrypted: rows[0].config_encrypted, until: rows[0].until };
  }

  /** Whether someone holds the lease now; undefined when the connection is gone. */
  async held(organizationId: string, id: string): Promise<boolean | undefined> {
    const rows: Array<{ held: boolean }> = await this.db.query(
      `SELECT coalesce(token_refresh_until >= now(), false) AS held FROM connections WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return rows[0]?.held;
  }

  /** Ends our lease; one that ran out and was taken by another process since is left alone. */
  async release(organizationId: string, id: string, lease: TokenRefreshLease): Promise<void> {
    await this.db.query(`UPDATE connections SET token_refresh_until = NULL WHERE organization_id = $1 AND id = $2 AND token_refresh_until = $3::timestamptz`, [
      organizationId,
      id,
      lease.until,
    ]);
  }

  /**
   * Stores a refreshed config and ends the lease, only if the config is still
   * the one the refresh started from: false when it changed meanwhile (a user
   * replaced it with PATCH), whose config then stands. updated_at is left: a
   * refresh is not an edit of the connection.
   */
  async storeRefreshed(organizationId: string, id: string, previous: string, next: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.db.query(
      `UPDATE connections SET config_encrypted = $4, token_refresh_until = NULL
       WHERE organization_id = $1 AND id = $2 AND config_encrypted = $3 RETURNING id`,
      [organizationId, id, previous, next],
    );
    return rows.length > 0;
  }
}
