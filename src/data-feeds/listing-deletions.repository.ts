import type { DataSource } from 'typeorm';
import { META_KEY } from '../data-stores/data-stores.schemas';
import type { SyncWindow } from '../../workflows/data-feed-sync.types';

/**
 * Deletions of `listing` feeds (feed-definition.ts): the keys a listing of a
 * window saw (migration CreateFeedSyncSeen), and the delete of the stored
 * records of that window it did not see. A listing has its own id, so a
 * settle that runs twice (a retried activity) deletes nothing the second time.
 */
export class ListingDeletionsRepository {
  constructor(private readonly db: DataSource) {}

  async markSeen(ref: { organizationId: string; dataSourceId: string }, listingId: string, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.query(
      `INSERT INTO feed_sync_seen (listing_id, key, organization_id, data_source_id)
       SELECT $1, k, $2, $3 FROM unnest($4::text[]) AS k ON CONFLICT DO NOTHING`,
      [listingId, ref.organizationId, ref.dataSourceId, keys],
    );
  }

  /**
   * Deletes the table's records whose time field lies in `window` and whose
   * key the listing did not see; answers how many. Only a listing that
   * reached its last page may be settled.
   */
  async deleteUnseen(at: { organizationId: string; tableName: string; timeField: string }, listingId: string, window: SyncWindow): Promise<number> {
    const time = 'analytics.to_time(r.value -> $6)';
    const [, count]: [unknown, number] = await this.db.query(
      `DELETE FROM data_store_records r
       WHERE r.organization_id = $1 AND r.table_name = $2 AND r.key <> '${META_KEY}'
         AND ${time} >= $3 AND ${time} < $4
         AND NOT EXISTS (SELECT FROM feed_sync_seen s WHERE s.listing_id = $5 AND s.key = r.key)`,
      [at.organizationId, at.tableName, window.startDate, window.endDate, listingId, at.timeField],
    );
    return count;
  }

  /** Forgets what the source's listings saw (a sync run ends, or a new one clears what an interrupted one left). */
  async forget(organizationId: string, dataSourceId: string): Promise<void> {
    await this.db.query(`DELETE FROM feed_sync_seen WHERE organization_id = $1 AND data_source_id = $2`, [organizationId, dataSourceId]);
  }
}
