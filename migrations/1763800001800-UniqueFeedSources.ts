import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One data source per (organization, feed, connection): toggling a feed on
 * twice at the same moment must not create two sources (nor two tables and
 * schedules behind them). The index decides the race; the loser reads the
 * winner's source and carries on with it.
 */
export class UniqueFeedSources1763800001800 implements MigrationInterface {
  name = 'UniqueFeedSources1763800001800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNIQUE INDEX data_sources_feed_key ON data_sources (organization_id, type, connection_id)
      WHERE type <> 'custom' AND connection_id IS NOT NULL AND shared_from_organization_id IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX data_sources_feed_key');
  }
}
