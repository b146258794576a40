import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The history of a feed-backed source's syncs, one row a run (its id given by
 * the run, so a retried activity writes it once), pruned to the newest rows
 * of each source as runs begin. Read newest first, a source at a time.
 */
export class CreateFeedSyncs1763800002600 implements MigrationInterface {
  name = 'CreateFeedSyncs1763800002600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE feed_syncs (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        data_source_id uuid NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        workflow_id text NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual', 'backfill')),
        window_start timestamptz NOT NULL,
        window_end timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('running', 'success', 'failed')),
        records_created integer NOT NULL DEFAULT 0,
        records_updated integer NOT NULL DEFAULT 0,
        records_unchanged integer NOT NULL DEFAULT 0,
        records_deleted integer NOT NULL DEFAULT 0,
        vendor_requests integer NOT NULL DEFAULT 0,
        pages integer NOT NULL DEFAULT 0,
        -- Whether the run also deleted the records the vendor no longer has.
        reconciled boolean NOT NULL DEFAULT false,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        error text
      )`);
    await q.query(`CREATE INDEX feed_syncs_source_started ON feed_syncs (organization_id, data_source_id, started_at DESC, id DESC)`);
    // Deleting a data source cascades here by data_source_id alone.
    await q.query(`CREATE INDEX feed_syncs_source ON feed_syncs (data_source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE feed_syncs`);
  }
}
