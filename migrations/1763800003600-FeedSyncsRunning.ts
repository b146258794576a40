import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The sync runs still `running`, oldest first: what the reconciler of runs
 * that stopped without recording their end reads every pass
 * (src/data-feeds/feed-sync-reconciler.ts). Partial (a source has at most one
 * run going at a time; its history keeps 500) and built CONCURRENTLY (so
 * outside a transaction): runs keep being written while it builds.
 */
export class FeedSyncsRunning1763800003600 implements MigrationInterface {
  name = 'FeedSyncsRunning1763800003600';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS feed_syncs_running ON feed_syncs (started_at, id) WHERE status = 'running'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS feed_syncs_running`);
  }
}
