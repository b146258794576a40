import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Pruning finds executions past their retention oldest first, across
 * organizations: an index on when they started. Built CONCURRENTLY (so
 * outside a transaction): runs keep being written while it builds.
 */
export class ExecutionsByAge1763800002400 implements MigrationInterface {
  name = 'ExecutionsByAge1763800002400';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS executions_started ON executions (started_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS executions_started`);
  }
}
