import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * GET /executions filters by mode: an organization's runs of one mode in
 * the list's order (newest first), so a page and its count are found through
 * the index however rare the mode is among the organization's runs. (A
 * trigger's runs already have executions_trigger_started.) Built CONCURRENTLY (so
 * outside a transaction): runs keep being written while it builds.
 */
export class ExecutionsByMode1763800002800 implements MigrationInterface {
  name = 'ExecutionsByMode1763800002800';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS executions_org_mode_started ON executions (organization_id, mode, started_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS executions_org_mode_started`);
  }
}
