import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Runs started by a schedule trigger and runs started by an agent's workflow
 * tool get modes of their own; an agent step records each model and tool call
 * as a sub-step under its own record (`parent_step_id`), ordered by
 * `sub_seq` after the step itself (which keeps 0).
 */
export class ScheduleAndAgentRuns1763800001900 implements MigrationInterface {
  name = 'ScheduleAndAgentRuns1763800001900';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_mode_check`);
    await q.query(`ALTER TABLE executions ADD CONSTRAINT executions_mode_check CHECK (mode IN ('webhook', 'api', 'test', 'rerun', 'schedule', 'agent'))`);
    await q.query(`ALTER TABLE execution_steps ADD COLUMN parent_step_id text, ADD COLUMN sub_seq integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM execution_steps WHERE parent_step_id IS NOT NULL`);
    await q.query(`ALTER TABLE execution_steps DROP COLUMN parent_step_id, DROP COLUMN sub_seq`);
    await q.query(`DELETE FROM executions WHERE mode IN ('schedule', 'agent')`);
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_mode_check`);
    await q.query(`ALTER TABLE executions ADD CONSTRAINT executions_mode_check CHECK (mode IN ('webhook', 'api', 'test', 'rerun'))`);
  }
}
