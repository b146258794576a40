import type { DataSource } from 'typeorm';

/** A wait that has begun: what the run waits for and until when (null: no deadline). */
export interface WaitRow {
  executionId: string;
  organizationId: string;
  stepId: string;
  eventName: string | null;
  eventSchema: Record<string, unknown> | null;
  wakesAt: Date | null;
  startedAt: Date;
}

const COLUMNS = `w.execution_id AS "executionId", w.organization_id AS "organizationId", w.step_id AS "stepId",
  w.event_name AS "eventName", w.event_schema AS "eventSchema", w.wakes_at AS "wakesAt", w.started_at AS "startedAt"`;

/** An open wait: not ended, its deadline not passed, its run still parked (a cancelled run leaves its wait behind). */
const OPEN = `w.ended_at IS NULL AND (w.wakes_at IS NULL OR w.wakes_at > now())
  AND EXISTS (SELECT 1 FROM executions e WHERE e.id = w.execution_id AND e.status = 'waiting')`;

/**
 * The waits of `core.wait` steps (table execution_waits) and the execution
 * status they set: `waiting` while any wait of the run is open, `running`
 * again once none is. Every read is scoped to an organization, except the
 * resume link's, whose token is the credential.
 */
export class ExecutionWaitsRepository {
  constructor(private readonly db: DataSource) {}

  /** Records the wait (again, for a retried activity) and marks the run waiting; into an execution of the organization only. */
  async begin(
    organizationId: string,
    executionId: string,
    wait: { stepId: string; eventName: string | null; eventSchema: unknown; linkHash: Buffer | null; wakesAt: Date | null },
  ): Promise<void> {
    await this.db.query(
      `WITH w AS (
         INSERT INTO execution_waits (execution_id, step_id, organization_id, event_name, event_schema, link_hash, wakes_at)
         SELECT e.id, $3, e.organization_id, $4, $5::jsonb, $6, $7 FROM executions e WHERE e.id = $2 AND e.organization_id = $1
         ON CONFLICT (execution_id, step_id) DO UPDATE SET event_name = EXCLUDED.event_name, event_schema = EXCLUDED.event_schema,
           link_hash = EXCLUDED.link_hash, wakes_at = EXCLUDED.wakes_at, started_at = now(), ended_at = NULL, event_claimed_at = NULL
         RETURNING execution_id)
       UPDATE executions SET status = 'waiting' WHERE id IN (SELECT execution_id FROM w) AND status = 'running'`,
      [
        organizationId,
        executionId,
        wait.stepId,
        wait.eventName,
        wait.eventSchema == null ? null : JSON.stringify(wait.eventSchema),
        wait.linkHash,
        wait.wakesAt,
      ],
    );
  }

  /** Ends the wait (its link dies with it); the run is `running` again unless another of its waits is open. */
  async end(organizationId: string, executionId: string, stepId: string): Promise<void> {
    await this.db.query(
      `WITH ended AS (
         UPDATE execution_waits SET ended_at = now()
          WHERE organization_id = $1 AND execution_id = $2 AND step_id = $3 AND ended_at IS NULL RETURNING execution_id)
       UPDATE executions e SET status = 'running'
        WHERE e.organization_id = $1 AND e.id = $2 AND e.status = 'waiting'
          AND NOT EXISTS (SELECT 1 FROM execution_waits o WHERE o.execution_id = $2 AND o.step_id <> $3 AND o.ended_at IS NULL)`,
      [organizationId, executionId, stepId],
    );
  }

  /** The run's open waits, oldest first (a run waits at one step at a time; the list keeps the API's shape if that changes). */
  open(organizationId: string, executionId: string): Promise<WaitRow[]> {
    return this.db.query(
      `SELECT ${COLUMNS} FROM execution_waits w WHERE w.organization_id = $1 AND w.execution_id = $2 AND ${OPEN} ORDER BY w.started_at LIMIT 50`,
      [organizationId, executionId],
    );
  }

  /** The open wait a resume link opens, found by its token's hash; undefined for a link unknown, used, or expired. */
  async byLink(linkHash: Buffer): Promise<WaitRow | undefined> {
    const rows: WaitRow[] = await this.db.query(`SELECT ${COLUMNS} FROM execution_waits w WHERE w.link_hash = $1 AND w.event_claimed_at IS NULL AND ${OPEN}`, [
      linkHash,
    ]);
    return rows[0];
  }

  /**
   * Takes the wait's one event for one sender, a member's (through the API)
   * or a link holder's alike: true for exactly one of any number of
   * concurrent claims, while the wait is open. The row is the arbiter: the
   * run's own check (the update's validator) can accept several events that
   * arrive in one workflow task.
   */
  async claimEvent(organizationId: string, executionId: string, stepId: string): Promise<boolean> {
    const [, claimed]: [unknown, number] = await this.db.query(
      `UPDATE execution_waits w SET event_claimed_at = now()
        WHERE w.organization_id = $1 AND w.execution_id = $2 AND w.step_id = $3 AND w.event_claimed_at IS NULL AND ${OPEN}`,
      [organizationId, executionId, stepId],
    );
    return claimed === 1;
  }

  /** claimEvent through a resume link: the token's hash finds the wait. */
  async claimLink(linkHash: Buffer): Promise<boolean> {
    const [, claimed]: [unknown, number] = await this.db.query(
      `UPDATE execution_waits w SET event_claimed_at = now() WHERE w.link_hash = $1 AND w.event_claimed_at IS NULL AND ${OPEN}`,
      [linkHash],
    );
    return claimed === 1;
  }

  /** Gives a claimed event back when it could not be delivered (Temporal unreachable): the sender may try again. */
  async releaseEvent(organizationId: string, executionId: string, stepId: string): Promise<void> {
    await this.db.query(
      `UPDATE execution_waits SET event_claimed_at = NULL WHERE organization_id = $1 AND execution_id = $2 AND step_id = $3 AND ended_at IS NULL`,
      [organizationId, executionId, stepId],
    );
  }
}
