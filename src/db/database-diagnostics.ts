import type { DataSource } from 'typeorm';

/** Queries about the database itself: whether it answers (/healthz) and its clock (the diagnostics workflow). */
export class DatabaseDiagnostics {
  constructor(private readonly db: DataSource) {}

  /** True when the database answers a trivial query; rejects when it cannot be reached. */
  async reachable(): Promise<boolean> {
    const rows: Array<{ ok: number }> = await this.db.query('SELECT 1 AS ok');
    return rows[0]?.ok === 1;
  }

  /** The database clock and an organization's name (null when it does not exist), in one round trip. */
  async clockAndOrganizationName(organizationId: string): Promise<{ now: Date; organizationName: string | null }> {
    const rows: Array<{ now: Date; name: string | null }> = await this.db.query(`SELECT now() AS now, (SELECT name FROM organizations WHERE id = $1) AS name`, [
      organizationId,
    ]);
    return { now: rows[0].now, organizationName: rows[0].name };
  }
}
