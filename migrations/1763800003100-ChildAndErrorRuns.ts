import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Runs started by other runs: a `core.workflow` step's child (mode
 * `workflow`) and an error workflow's run (mode `error`) get modes of their
 * own, and every run started by another (agent workflow tools included)
 * names it: `parent_execution_id`, and `parent_step_id` for the step that
 * started it (null for an error run). No foreign key: retention prunes runs
 * by age, a parent may go before its children, and the link is then a
 * dangling id, which is what it should say. The index answers "children of"
 * in the list's order; built CONCURRENTLY (so outside a transaction) as runs
 * keep being written.
 */
export class ChildAndErrorRuns1763800003100 implements MigrationInterface {
  name = 'ChildAndErrorRuns1763800003100';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE executions ADD COLUMN IF NOT EXISTS parent_execution_id text, ADD COLUMN IF NOT EXISTS parent_step_id text`);
    await q.query(`ALTER TABLE executions DROP CONSTRAINT IF EXISTS executions_mode_check`);
    await q.query(
      `ALTER TABLE executions ADD CONSTRAINT executions_mode_check CHECK (mode IN ('webhook', 'api', 'test', 'rerun', 'schedule', 'agent', 'workflow', 'error'))`,
    );
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS executions_org_parent_started ON executions (organization_id, parent_execution_id, started_at DESC, id DESC)
       WHERE parent_execution_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS executions_org_parent_started`);
    await q.query(`DELETE FROM executions WHERE mode IN ('workflow', 'error')`);
    await q.query(`ALTER TABLE executions DROP CONSTRAINT executions_mode_check`);
    await q.query(`ALTER TABLE executions ADD CONSTRAINT executions_mode_check CHECK (mode IN ('webhook', 'api', 'test', 'rerun', 'schedule', 'agent'))`);
    await q.query(`ALTER TABLE executions DROP COLUMN parent_execution_id, DROP COLUMN parent_step_id`);
  }
}
