import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The items of a `core.loop` step, one row each: an item's steps read their
 * own item by its index (a primary-key lookup) instead of the whole array,
 * which may be megabytes and would be read again for every step of every item.
 */
export class ExecutionLoopItems1763800003300 implements MigrationInterface {
  name = 'ExecutionLoopItems1763800003300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE execution_loop_items (
        execution_id text NOT NULL REFERENCES executions(id) ON DELETE CASCADE,
        step_id text NOT NULL,
        idx integer NOT NULL,
        item jsonb,
        PRIMARY KEY (execution_id, step_id, idx)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE execution_loop_items`);
  }
}
