import type { DataSource } from 'typeorm';

/** An answer nobody collected within this long (the caller gave up) is deleted at the next write. */
const STALE_AFTER = '1 hour';

/** Sealed responses of return steps (see SealedResponseVault; table execution_answers); scoped by organization like every execution read. */
export class SealedResponsesRepository {
  constructor(private readonly db: DataSource) {}

  /** Stores (or, for a retried step, replaces) the sealed answer, in an execution of this organization only. */
  async put(organizationId: string, executionId: string, sealed: string): Promise<void> {
    await this.db.query(
      `INSERT INTO execution_answers (execution_id, organization_id, sealed)
       SELECT e.id, e.organization_id, $3 FROM executions e WHERE e.id = $2 AND e.organization_id = $1
       ON CONFLICT (execution_id) DO UPDATE SET sealed = EXCLUDED.sealed, created_at = now()`,
      [organizationId, executionId, sealed],
    );
    await this.db.query(`DELETE FROM execution_answers WHERE created_at < now() - interval '${STALE_AFTER}'`);
  }

  /** Returns the sealed answer and leaves it: a webhook delivery's duplicates are owed the same answer, until it goes stale. */
  async read(organizationId: string, executionId: string): Promise<string | undefined> {
    const rows: Array<{ sealed: string }> = await this.db.query(
      `SELECT sealed FROM execution_answers WHERE organization_id = $1 AND execution_id = $2 AND created_at >= now() - interval '${STALE_AFTER}'`,
      [organizationId, executionId],
    );
    return rows[0]?.sealed;
  }

  /** Removes and returns the sealed answer: it is collected once. */
  async take(organizationId: string, executionId: string): Promise<string | undefined> {
    const [rows]: [Array<{ sealed: string }>, number] = await this.db.query(
      `DELETE FROM execution_answers WHERE organization_id = $1 AND execution_id = $2 RETURNING sealed`,
      [organizationId, executionId],
    );
    return rows[0]?.sealed;
  }
}
