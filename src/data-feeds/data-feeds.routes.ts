import { defineRoute, type RouteContext } from '../http/route';
import { presentDataSource } from '../data-sources/data-sources.presenter';
import { DataSourceParams, DataSourceSchema } from '../data-sources/data-sources.schemas';
import { PageQuery } from '../http/pagination';
import { AttachConnectionBody, FeedCatalog, FeedSyncList, SyncBody, SyncQueued, ToggleFeedBody, ToggleFeedResult } from './data-feeds.schemas';
import type { DataFeedsService } from './data-feeds.service';
import type { FeedSyncHistory } from './feed-sync-history';
import { FEED_SYNC_HISTORY_LIMIT } from './feed-syncs.repository';
import { presentFeedSync } from './feed-syncs.presenter';
import { FEEDS } from './feed-registry';

const tags = ['Data feeds'];

/** Data feeds (interface.md 4.4 toggle, 4.5 sync) and reattaching a feed source's connection: all need dashboards:admin. */
export function registerDataFeedRoutes(ctx: RouteContext, service: DataFeedsService): void {
  // The same for every organization: the console offers these, so a feed added to the registry is offered at once.
  const catalog = [...FEEDS.values()].map((feed) => ({
    key: feed.key,
    title: feed.title,
    connectionType: feed.connectionType,
    fields: Object.entries(feed.recordSchema.fields).map(([name, field]) => ({ name, label: field.label, type: field.type })),
  }));
  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/data-feeds/catalog',
    permission: 'dashboards:view',
    tags,
    summary: 'The built-in data feeds a source can be made from, with the connection type each reads through and the fields of its records',
    responses: { 200: { description: 'Every built-in feed', schema: FeedCatalog } },
    handler: async () => ({ status: 200, body: catalog }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/data-feeds/toggle',
    permission: 'dashboards:admin',
    tags,
    body: ToggleFeedBody,
    summary:
      'Turn a data feed on a connection on (creates or re-enables its data source and its sync schedule, and starts a first sync) or off (pauses the schedule; source and records stay)',
    responses: { 201: { description: 'The feed state and its data source', schema: ToggleFeedResult } },
    handler: async ({ auth, body }) => ({ status: 201, body: await service.toggle(auth.organizationId, auth.userId, body) }),
  });

  defineRoute(ctx, {
    method: 'post',
    path: '/dashboards/data-sources/:dataSourceId/sync',
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    body: SyncBody,
    summary:
      'Queue one sync of a feed-backed source and answer at once. 409 sync_running while the source shows one running (syncConfig.lastSyncStatus); 500 source_disabled, source_without_connection or no_sync_workflow (as the contract says)',
    responses: { 201: { description: 'The sync is queued', schema: SyncQueued } },
    handler: async ({ auth, params, body }) => ({ status: 201, body: await service.sync(auth.organizationId, params.dataSourceId, body) }),
  });

  defineRoute(ctx, {
    method: 'put',
    path: '/dashboards/data-sources/:dataSourceId/connection',
    permission: 'dashboards:admin',
    tags,
    params: DataSourceParams,
    body: AttachConnectionBody,
    summary:
      "Attach a feed-backed source to another connection of its feed's type (its connection was deleted, or the credentials moved): the source keeps its table, records and dashboards, and an enabled source syncs at once. 409 feed_source_exists when that connection already has a source of the feed",
    responses: { 200: { description: 'The data source, now reading through the connection', schema: DataSourceSchema } },
    handler: async ({ auth, params, body }) => ({
      status: 200,
      body: presentDataSource(await service.attachConnection(auth.organizationId, params.dataSourceId, body)),
    }),
  });
}

/** The sync history of a source (dashboards:view, as reading the source). */
export function registerFeedSyncHistoryRoutes(ctx: RouteContext, history: FeedSyncHistory): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/dashboards/data-sources/:dataSourceId/syncs',
    permission: 'dashboards:view',
    tags,
    params: DataSourceParams,
    query: PageQuery,
    summary: `Sync runs of a feed-backed source, newest first (the newest ${FEED_SYNC_HISTORY_LIMIT} are kept); a custom source has none`,
    responses: { 200: { description: 'A page of sync runs and how many there are', schema: FeedSyncList } },
    handler: async ({ auth, params, query }) => {
      const { total, data } = await history.list(auth.organizationId, params.dataSourceId, query);
      return { status: 200, body: { total, data: data.map(presentFeedSync) } };
    },
  });
}
