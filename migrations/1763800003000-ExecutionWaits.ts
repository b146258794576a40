import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Runs parked at a `core.wait` step: the execution's own status says
 * `waiting`, and `execution_waits` holds the wait itself. The API reads it to
 * check an event (its name and JSON Schema) before the run hears of it, and a
 * resume link is found here by the SHA-256 of its token, never by the token.
 * A wait ends once (`ended_at`); a link is claimed once (`link_claimed_at`).
 */
export class ExecutionWaits1763800003000 implements MigrationInterface {
  name = 'ExecutionWaits1763800003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_status_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_status_check
         CHECK (status IN ('running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'))`,
    );
    await q.query(`
      CREATE TABLE execution_waits (
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        step_id text NOT NULL,
        organization_id uuid NOT NULL,
        event_name text,
        event_schema jsonb,
        link_hash bytea UNIQUE,
        wakes_at timestamptz,
        started_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz,
        link_claimed_at timestamptz,
        PRIMARY KEY (execution_id, step_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE execution_waits`);
    await q.query(`UPDATE executions SET status = 'running' WHERE status = 'waiting'`);
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_status_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_status_check
         CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'))`,
    );
  }
}
