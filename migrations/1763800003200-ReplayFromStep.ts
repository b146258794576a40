import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Replays from a chosen step (POST /executions/{id}/replay, POST /executions/replay):
 * a `replay` mode, the execution a replay comes from and the step it runs
 * from, how each step record of a replay relates to the original's
 * (`replay_source`: its output `reused` or `replaced`; NULL when it ran
 * again), and bulk replays with the runs each selected (fixed when the bulk
 * is created) and how far it got with each.
 *
 * The mode CHECK names every mode, `workflow` and `error` included: the
 * sub-workflow migration (1763800003100) runs before this one and adds them.
 */
export class ReplayFromStep1763800003200 implements MigrationInterface {
  name = 'ReplayFromStep1763800003200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_mode_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_mode_check
         CHECK (mode IN ('webhook', 'api', 'test', 'rerun', 'schedule', 'agent', 'workflow', 'error', 'replay'))`,
    );
    await q.query(`ALTER TABLE executions ADD COLUMN replay_of text, ADD COLUMN replay_from_step_id text`);
    await q.query(`ALTER TABLE execution_steps ADD COLUMN replay_source text CHECK (replay_source IN ('reused', 'replaced'))`);
    await q.query(`
      CREATE TABLE execution_replay_bulks (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workflow_id uuid NOT NULL,
        request jsonb NOT NULL,
        status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
        total integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE execution_replay_bulk_items (
        bulk_id uuid NOT NULL REFERENCES execution_replay_bulks(id) ON DELETE CASCADE,
        position integer NOT NULL,
        original_id text NOT NULL,
        execution_id text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'started', 'failed')),
        error text,
        PRIMARY KEY (bulk_id, position),
        UNIQUE (bulk_id, original_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE execution_replay_bulk_items`);
    await q.query(`DROP TABLE execution_replay_bulks`);
    await q.query(`ALTER TABLE execution_steps DROP COLUMN replay_source`);
    await q.query(`ALTER TABLE executions DROP COLUMN replay_of, DROP COLUMN replay_from_step_id`);
    await q.query(`DELETE FROM executions WHERE mode = 'replay'`);
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_mode_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_mode_check
         CHECK (mode IN ('webhook', 'api', 'test', 'rerun', 'schedule', 'agent', 'workflow', 'error'))`,
    );
  }
}
