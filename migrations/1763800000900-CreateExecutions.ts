import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Executions (one row per Temporal run, id = Temporal workflow id) and the
 * steps each ran, with rendered input and output already masked of secrets.
 * Executions outlive their workflow: deleting a workflow keeps its history.
 */
export class CreateExecutions1763800000900 implements MigrationInterface {
  name = 'CreateExecutions1763800000900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE executions (
        id text PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL,
        workflow_name text NOT NULL,
        workflow_version integer NOT NULL,
        trigger_id uuid,
        trigger_name text,
        environment_id uuid,
        mode text NOT NULL CHECK (mode IN ('webhook', 'api', 'test', 'rerun')),
        status text NOT NULL DEFAULT 'running'
          CHECK (status IN ('running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out')),
        input jsonb NOT NULL,
        error jsonb,
        rerun_of text,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX executions_org_started ON executions (organization_id, started_at DESC, id DESC)`);
    await q.query(`CREATE INDEX executions_workflow_started ON executions (organization_id, workflow_id, started_at DESC)`);
    await q.query(`
      CREATE TABLE execution_steps (
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        step_id text NOT NULL,
        step_type text NOT NULL,
        seq integer NOT NULL,
        status text NOT NULL CHECK (status IN ('completed', 'failed')),
        attempt integer NOT NULL,
        input jsonb,
        output jsonb,
        error text,
        started_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL,
        PRIMARY KEY (execution_id, step_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE execution_steps`);
    await q.query(`DROP TABLE executions`);
  }
}
