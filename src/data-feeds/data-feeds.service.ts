import type { ConnectionsService } from '../connections/connections.service';
import type { AnalyticsSource, SyncConfig } from '../data-sources/analytics-source.entity';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import type { FeedSourcesService } from '../data-sources/feed-sources.service';
import type { DataStoresService } from '../data-stores/data-stores.service';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../errors/errors';
import type { FeedDefinition } from './feed-definition';
import { findFeed } from './feed-registry';
import type { FeedSchedules, FeedSyncTarget } from './feed-schedules';
import type { FeedSyncRuns } from './feed-sync-runs';
import { type AttachConnectionBody, MAX_SYNC_INTERVAL_MINUTES, MIN_SYNC_INTERVAL_MINUTES, type SyncBody, type ToggleFeedBody } from './data-feeds.schemas';
import { lookbackMinutesOf, syncWindow } from './sync-window';
import { z } from '../openapi/zod';

/** The check the routes' id parameters use (z.uuid()). */
const isUuid = (id: string) => z.uuid().safeParse(id).success;

/** The data store table a feed fills through a connection: one per (feed, connection), named from both. */
export function feedTableName(feedKey: string, connectionId: string): string {
  return `feed_${feedKey.replace(/[^A-Za-z0-9]/g, '_')}_${connectionId.replace(/-/g, '')}`.slice(0, 63);
}

/** A 500 the contract asks for (interface.md 4.5, 7): the sync cannot run for this source. */
const notSyncable = (code: string, message: string) => new AppError(500, code, message);

/**
 * Data feeds on connections (interface.md 3, 4.4, 4.5): toggling a feed on
 * creates or re-enables its data source and Temporal Schedule; a manual sync
 * queues one sync run. The runs themselves are workflows/data-feed-sync.ts.
 */
export class DataFeedsService {
  constructor(
    private readonly dataSources: Pick<DataSourcesService, 'get' | 'update'>,
    private readonly feedSources: Pick<
      FeedSourcesService,
      'createFeedSource' | 'findFeedSource' | 'recordSync' | 'setFeedConnectionName' | 'setFeedConnection'
    >,
    private readonly dataStores: Pick<DataStoresService, 'createTable'>,
    private readonly connections: Pick<ConnectionsService, 'get' | 'find'>,
    private readonly schedules: FeedSchedules,
    private readonly runs: FeedSyncRuns,
    private readonly settings: { defaultSyncIntervalMinutes: number },
  ) {}

  /**
   * On: the feed's source (created once per organization, feed and
   * connection, over a table of its own) is enabled, its schedule runs every
   * `syncIntervalMinutes`, and a first sync starts at once. Off: the schedule
   * is paused and the source disabled; source and records stay.
   */
  async toggle(organizationId: string, userId: string | null, body: ToggleFeedBody): Promise<{ enabled: boolean; dataSourceId: string | null }> {
    const feed = findFeed(body.feedKey);
    if (!feed) {
      throw new ValidationError(
        `Unknown data feed "${body.feedKey}"; feeds are keyed <vendor>:<feed>, such as twilio:calls, github:issues or hubspot:deals`,
        [{ path: 'feedKey', message: 'no such feed' }],
        'unknown_feed',
      );
    }
    if (!body.enabled) {
      // Off needs no live connection: one deleted or renamed since must not keep the feed on.
      const existing = isUuid(body.connectionId) ? await this.feedSources.findFeedSource(organizationId, feed.key, body.connectionId) : null;
      if (!existing) return { enabled: false, dataSourceId: null };
      await this.schedules.pause(existing.id, `Data feed ${feed.key} toggled off`);
      if (existing.enabled) await this.dataSources.update(organizationId, existing.id, { enabled: false });
      return { enabled: false, dataSourceId: existing.id };
    }
    await this.checkConnection(organizationId, feed, body);
    const existing = await this.feedSources.findFeedSource(organizationId, feed.key, body.connectionId);
    // On again without an interval keeps the one set before.
    const interval = this.interval(body.syncIntervalMinutes ?? existing?.syncConfig?.syncIntervalMinutes);
    const source = existing ?? (await this.createSource(organizationId, userId, feed, body, interval));
    // A look-back given is kept; none given keeps the source's own (or its feed's).
    const settings = { syncIntervalMinutes: interval, ...(body.lookbackMinutes === undefined ? {} : { lookbackMinutes: body.lookbackMinutes }) };
    if (existing) {
      if (!existing.enabled) await this.dataSources.update(organizationId, existing.id, { enabled: true });
      // The connection may have been renamed since: the source shows its current name (runs find it by id).
      if (existing.connectionName !== body.connectionName) await this.feedSources.setFeedConnectionName(organizationId, existing.id, body.connectionName);
    }
    if (existing || body.lookbackMinutes !== undefined) await this.feedSources.recordSync(organizationId, source.id, settings);
    const syncConfig = { ...source.syncConfig!, ...settings };
    const target = { organizationId, dataSourceId: source.id, feedKey: feed.key };
    await this.schedules.activate(target, interval);
    await this.runs.startUnlessRunning(target, this.windowOf(feed, syncConfig, {}), 'manual');
    return { enabled: true, dataSourceId: source.id };
  }

  /**
   * Attaches a feed source to another connection of its feed's type (the
   * one it had was deleted, or its credentials moved): the source keeps its
   * table, its records and every dashboard over it, and an enabled source
   * syncs at once through the new connection.
   */
  async attachConnection(organizationId: string, dataSourceId: string, body: AttachConnectionBody): Promise<AnalyticsSource> {
    const source = await this.dataSources.get(organizationId, dataSourceId);
    const feed = findFeed(source.type);
    if (!feed || source.sharedFromOrganizationId) {
      throw new ValidationError(
        `Data source "${source.name}" is not fed by a data feed of this organization, so it has no connection to attach`,
        [{ path: 'dataSourceId', message: 'not a data feed source' }],
        'not_a_feed_source',
      );
    }
    await this.checkConnection(organizationId, feed, body);
    if (source.connectionId !== body.connectionId || source.connectionName !== body.connectionName) {
      await this.feedSources.setFeedConnection(organizationId, source.id, { id: body.connectionId, name: body.connectionName });
    }
    const attached = await this.dataSources.get(organizationId, dataSourceId);
    if (attached.enabled) {
      const target = { organizationId, dataSourceId: attached.id, feedKey: feed.key };
      await this.runs.startUnlessRunning(target, this.windowOf(feed, attached.syncConfig, {}), 'manual');
    }
    return attached;
  }

  /**
   * Queues one sync run of the source and answers at once: the window given,
   * else from the end of the last successful sync to now. 409 sync_running
   * while the source shows a sync running (syncConfig.lastSyncStatus, read
   * again as the start is decided: FeedSyncRuns.start), never once it shows
   * the last one ended.
   */
  async sync(organizationId: string, dataSourceId: string, body: SyncBody): Promise<{ message: string; workflowId: string }> {
    const source = await this.dataSources.get(organizationId, dataSourceId);
    const { target, feed } = await this.syncTarget(source);
    const window = this.windowOf(feed, source.syncConfig, body);
    const trigger = body.startDate !== undefined || body.endDate !== undefined ? 'backfill' : 'manual';
    const showsRunning = async () => (await this.dataSources.get(organizationId, dataSourceId)).syncConfig?.lastSyncStatus === 'running';
    const workflowId = await this.runs.start(target, window, trigger, showsRunning);
    return {
      message: `Sync of "${source.name}" queued for ${window.startDate} to ${window.endDate} (workflow ${workflowId}); syncConfig.lastSyncStatus follows it`,
      workflowId,
    };
  }

  /** Deletes the schedule of a deleted feed source (DataSourcesService.onDeleted). */
  async forget(source: AnalyticsSource): Promise<void> {
    if (source.type !== 'custom') await this.schedules.delete(source.id);
  }

  /** The window of a sync now: the dates given, else from syncedThrough less the source's look-back. */
  private windowOf(feed: FeedDefinition, config: SyncConfig | null, dates: SyncBody) {
    return syncWindow(config, dates, new Date(), lookbackMinutesOf(config, feed.lookbackMinutes));
  }

  /** What a sync of the source needs, or the contract's 500 naming why it cannot run. */
  private async syncTarget(source: AnalyticsSource): Promise<{ target: FeedSyncTarget; feed: FeedDefinition }> {
    const feed = findFeed(source.type);
    if (!feed) {
      throw notSyncable(
        'no_sync_workflow',
        `Data source "${source.name}" is of type "${source.type}", which has no sync workflow: only data feed sources (toggled on through POST /dashboards/data-feeds/toggle) sync`,
      );
    }
    if (!source.enabled) {
      throw notSyncable(
        'source_disabled',
        `Data source "${source.name}" is disabled, so its sync is paused; toggle its feed on (POST /dashboards/data-feeds/toggle with enabled: true), which also resumes its schedule`,
      );
    }
    const connection = source.connectionId ? await this.connections.find(source.organizationId, source.connectionId) : null;
    if (!connection) {
      throw notSyncable(
        'source_without_connection',
        `Data source "${source.name}" has no connection to sync through` +
          (source.connectionName ? ` (connection "${source.connectionName}" was deleted)` : '') +
          `; attach a ${feed.connectionType} connection with PUT /dashboards/data-sources/${source.id}/connection, which keeps its records and dashboards`,
      );
    }
    return { target: { organizationId: source.organizationId, dataSourceId: source.id, feedKey: feed.key }, feed };
  }

  private interval(minutes: number | undefined): number {
    const interval = minutes ?? this.settings.defaultSyncIntervalMinutes;
    if (!Number.isInteger(interval) || interval < MIN_SYNC_INTERVAL_MINUTES || interval > MAX_SYNC_INTERVAL_MINUTES) {
      throw new ValidationError(
        `syncIntervalMinutes must be a whole number of minutes from ${MIN_SYNC_INTERVAL_MINUTES} to ${MAX_SYNC_INTERVAL_MINUTES}`,
        [{ path: 'syncIntervalMinutes', message: `a whole number from ${MIN_SYNC_INTERVAL_MINUTES} to ${MAX_SYNC_INTERVAL_MINUTES}` }],
        'invalid_sync_interval',
      );
    }
    return interval;
  }

  /** The connection must be the organization's, named as given and of the feed's type. */
  private async checkConnection(organizationId: string, feed: FeedDefinition, body: { connectionId: string; connectionName: string }): Promise<void> {
    const unknown = new ValidationError(
      `No connection ${body.connectionId} in this organization (GET /connections lists them)`,
      [{ path: 'connectionId', message: 'no such connection' }],
      'unknown_connection',
    );
    if (!isUuid(body.connectionId)) throw unknown;
    const connection = await this.connections.get(organizationId, body.connectionId).catch((err: unknown) => {
      throw err instanceof NotFoundError ? unknown : err;
    });
    if (connection.name !== body.connectionName) {
      throw new ValidationError(
        `Connection ${connection.id} is named "${connection.name}", not "${body.connectionName}"; send its current name`,
        [{ path: 'connectionName', message: 'does not match the connection id' }],
        'connection_name_mismatch',
      );
    }
    if (connection.type !== feed.connectionType) {
      throw new ValidationError(
        `Data feed ${feed.key} reads through a "${feed.connectionType}" connection; "${connection.name}" is a "${connection.type}" connection`,
        [{ path: 'connectionId', message: `must be a ${feed.connectionType} connection` }],
        'connection_type_mismatch',
      );
    }
  }

  /**
   * The feed's table, then its source. Two toggles racing both get here: the
   * table is created once (the second finds it), the unique index
   * data_sources_feed_key lets one source in, and the other toggle goes on
   * with that one.
   */
  private async createSource(
    organizationId: string,
    userId: string | null,
    feed: FeedDefinition,
    body: ToggleFeedBody,
    interval: number,
  ): Promise<AnalyticsSource> {
    const tableName = feedTableName(feed.key, body.connectionId);
    await this.dataStores.createTable(organizationId, tableName, 'workflow').catch((err: unknown) => {
      // Kept from an earlier source of this feed (deleted since), or made by a concurrent toggle: its records are this feed's.
      if (!(err instanceof ConflictError && err.code === 'table_exists')) throw err;
    });
    try {
      return await this.feedSources.createFeedSource(organizationId, userId, {
        name: `${feed.title} (${body.connectionName})`,
        type: feed.key,
        connectionId: body.connectionId,
        connectionName: body.connectionName,
        dataStoreTableName: tableName,
        recordSchema: feed.recordSchema,
        syncIntervalMinutes: interval,
      });
    } catch (err) {
      const winner = await this.feedSources.findFeedSource(organizationId, feed.key, body.connectionId);
      if (!winner) throw err;
      return winner;
    }
  }
}
