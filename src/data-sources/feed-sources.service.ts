import { NotFoundError } from '../errors/errors';
import type { AnalyticsSource, SyncConfig } from './analytics-source.entity';
import type { DataSourcesRepository } from './data-sources.repository';
import type { RecordSchemaInput } from './data-sources.schemas';
import type { DataSourcesService } from './data-sources.service';

/** A feed-backed source as the data feeds create it. */
export interface FeedSourceInput {
  name: string;
  type: string;
  connectionId: string;
  connectionName: string;
  dataStoreTableName: string;
  recordSchema: RecordSchemaInput;
  syncIntervalMinutes: number;
}

/**
 * The sources data feeds fill (src/data-feeds): created by a feed's toggle,
 * bound to the connection they sync through, their sync state kept in
 * syncConfig by the sync runs. Everything else about them is an ordinary
 * source's (DataSourcesService).
 */
export class FeedSourcesService {
  constructor(
    private readonly sources: Pick<DataSourcesService, 'build'>,
    private readonly repository: Pick<DataSourcesRepository, 'find' | 'findFeedSource' | 'mergeSyncConfig' | 'setFeedConnectionName' | 'setFeedConnection'>,
  ) {}

  /** The organization's source, as a sync run reads it; 404 when it is gone. */
  async get(organizationId: string, id: string): Promise<AnalyticsSource> {
    const source = await this.repository.find(organizationId, id);
    if (!source) throw new NotFoundError('Data source');
    return source;
  }

  /**
   * The data source a data feed fills: of the feed's type, bound to the
   * connection it syncs through, over a table the caller has created.
   */
  createFeedSource(organizationId: string, userId: string | null, feed: FeedSourceInput): Promise<AnalyticsSource> {
    return this.sources.build(organizationId, userId, {
      ...feed,
      enabled: true,
      hotPathMode: 'retain',
      syncConfig: { syncIntervalMinutes: feed.syncIntervalMinutes, lastSyncAt: null, lastSyncStatus: null },
    });
  }

  /** The organization's own source of data feed `type` on a connection, or null. */
  findFeedSource(organizationId: string, type: string, connectionId: string): Promise<AnalyticsSource | null> {
    return this.repository.findFeedSource(organizationId, type, connectionId);
  }

  /** Records a sync's progress in the source's syncConfig (merged, not replaced); false when the source is gone. */
  recordSync(organizationId: string, id: string, patch: Partial<SyncConfig>): Promise<boolean> {
    return this.repository.mergeSyncConfig(organizationId, id, patch);
  }

  /** A feed source's connection was renamed: its runs find the connection by the new name. */
  setFeedConnectionName(organizationId: string, id: string, connectionName: string): Promise<void> {
    return this.repository.setFeedConnectionName(organizationId, id, connectionName);
  }

  /** Reattaches a feed source to another connection (its table, records and dashboards stay); ConflictError feed_source_exists. */
  setFeedConnection(organizationId: string, id: string, connection: { id: string; name: string }): Promise<void> {
    return this.repository.setFeedConnection(organizationId, id, connection);
  }
}
