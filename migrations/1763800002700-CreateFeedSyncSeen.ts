import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The keys a sync saw while listing a window, for feeds whose listing shows
 * every record of a window (src/data-feeds/feed-definition.ts, `listing`):
 * once the window is listed to its end, the source's stored records of that
 * window that were not seen were deleted at the vendor. A listing spans many
 * activities (and workers), so the set lives here, not in memory or in
 * Temporal history. Rows live as long as their sync run.
 */
export class CreateFeedSyncSeen1763800002700 implements MigrationInterface {
  name = 'CreateFeedSyncSeen1763800002700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE feed_sync_seen (
        listing_id uuid NOT NULL,
        key text COLLATE "C" NOT NULL,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        data_source_id uuid NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
        PRIMARY KEY (listing_id, key)
      )`);
    await q.query(`CREATE INDEX feed_sync_seen_source ON feed_sync_seen (data_source_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE feed_sync_seen`);
  }
}
