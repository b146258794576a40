import { ApplicationFailure, Context } from '@temporalio/activity';
import type { SyncConfig } from '../src/data-sources/analytics-source.entity';
import { MAX_RECORDS_PER_WRITE } from '../src/data-stores/data-stores.schemas';
import { NotFoundError, ValidationError } from '../src/errors/errors';
import type { FeedRecord } from '../src/data-feeds/feed-definition';
import { findFeed } from '../src/data-feeds/feed-registry';
import { syncWindow } from '../src/data-feeds/sync-window';
import { VendorError, VendorRateLimited } from '../src/data-feeds/vendor-errors';
import { createFeedHttp } from '../src/data-feeds/vendor-http';
import type { SyncCounts, SyncWindow } from '../workflows/data-feed-sync.types';
import { businessFailure } from './business-failure';
import type { ActivityDeps } from './deps';

/** One vendor request may take this long (the page activity's own timeout is longer). */
const VENDOR_TIMEOUT_MS = 30_000;
/** A failure message kept in syncConfig.lastSyncError is at most this long. */
const MAX_ERROR_LENGTH = 500;

interface SourceRef {
  organizationId: string;
  dataSourceId: string;
}

/** A sync that cannot go on whatever the retries: the workflow marks the run failed with this message. */
const stop = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true });

/**
 * The data feed sync's activities (workflows/data-feed-sync.ts). Each page
 * activity fetches one page from the vendor and upserts its records by the
 * vendor's id, then returns only the next cursor and counts: records never
 * reach Temporal history, memory holds one page, and a retried or replayed
 * page writes the same keys again instead of new ones.
 */
export function createDataFeedActivities(deps: Pick<ActivityDeps, 'feeds' | 'dataStores' | 'secrets' | 'http'>) {
  const { feeds } = deps;

  async function source(ref: SourceRef) {
    try {
      return await feeds.sources.get(ref.organizationId, ref.dataSourceId);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  return {
    /**
     * Marks the sync running and settles its window; `skipped` (nothing
     * touched, not even the vendor) when the source is gone or disabled
     * (sync paused), or when there is nothing new to sync.
     */
    async beginFeedSync(input: SourceRef & { window?: SyncWindow }): Promise<{ skipped: string } | { window: SyncWindow }> {
      const found = await source(input);
      if (!found) return { skipped: 'the data source no longer exists' };
      if (!found.enabled) return { skipped: 'the data source is disabled (sync paused)' };
      let window: SyncWindow;
      try {
        window = input.window ?? syncWindow(found.syncConfig, {}, new Date());
      } catch (err) {
        if (err instanceof ValidationError) return { skipped: 'nothing to sync: the last successful sync already reaches now' };
        throw err;
      }
      await feeds.sources.recordSync(input.organizationId, input.dataSourceId, {
        lastSyncStatus: 'running',
        lastSyncAt: new Date().toISOString(),
        lastSyncWindow: window,
        lastSyncError: null,
        lastSyncRecords: null,
      });
      return { window };
    },

    /** One page of the window from `cursor` (null: the first), written to the source's table. */
    async syncFeedPage(input: SourceRef & { window: SyncWindow; cursor: string | null }): Promise<{ next: string | null; created: number; updated: number }> {
      const found = await source(input);
      if (!found) throw stop('SourceDeleted', 'The data source was deleted during the sync');
      if (!found.enabled) throw stop('SourceDisabled', 'The data source was disabled (sync paused) during the sync; the records written so far are kept');
      const feed = findFeed(found.type);
      if (!feed) throw stop('NoSyncWorkflow', `Data source type "${found.type}" has no sync workflow`);
      const connection = found.connectionName ? await deps.secrets.connectionByName(input.organizationId, found.connectionName) : undefined;
      if (!connection || connection.id !== found.connectionId) {
        throw stop(
          'ConnectionMissing',
          `Connection "${found.connectionName}" (${found.connectionId}) no longer exists or was renamed; toggle the feed on again with the connection's current id and name`,
        );
      }
      const http = createFeedHttp(deps.http, { vendor: feed.vendor, timeoutMs: VENDOR_TIMEOUT_MS, signal: Context.current().cancellationSignal });
      let page;
      try {
        page = await feed.fetchPage({ baseUrl: feeds.baseUrls[feed.vendor], config: connection.config, window: input.window, cursor: input.cursor }, http);
      } catch (err) {
        throw vendorFailure(err, connection.secretValues);
      }
      const counts = { created: 0, updated: 0 };
      for (const chunk of chunks(lastByKey(page.records), MAX_RECORDS_PER_WRITE)) {
        try {
          const outcome = await deps.dataStores.upsert(input.organizationId, found.dataStoreTableName, chunk, 'workflow');
          counts.created += outcome.created;
          counts.updated += outcome.updated;
        } catch (err) {
          throw businessFailure(err) ?? err;
        }
      }
      return { next: page.next, ...counts };
    },

    /** Records how the sync ended; a success moves syncedThrough (never backwards: a backfill of old dates keeps it). */
    async finishFeedSync(
      input: SourceRef & { window: SyncWindow; counts: SyncCounts } & ({ status: 'success' } | { status: 'failed'; error: string }),
    ): Promise<void> {
      const found = await source(input);
      if (!found) return;
      const common = {
        lastSyncAt: new Date().toISOString(),
        lastSyncWindow: input.window,
        lastSyncRecords: { created: input.counts.created, updated: input.counts.updated },
      };
      const patch: Partial<SyncConfig> =
        input.status === 'success'
          ? { ...common, lastSyncStatus: 'success', lastSyncError: null, syncedThrough: latest(found.syncConfig?.syncedThrough, input.window.endDate) }
          : { ...common, lastSyncStatus: 'failed', lastSyncError: input.error.slice(0, MAX_ERROR_LENGTH) };
      await feeds.sources.recordSync(input.organizationId, input.dataSourceId, patch);
    },
  };
}

/**
 * A vendor error as the Temporal failure that retries it the right way: a
 * rate limit after the vendor's own delay, an outage with the workflow's
 * bounded backoff, a rejection not at all. Secrets are masked from messages.
 */
function vendorFailure(err: unknown, secrets: string[]): unknown {
  if (!(err instanceof VendorError)) return err;
  const message = mask(err.message, secrets);
  if (err instanceof VendorRateLimited) return ApplicationFailure.create({ type: err.name, message, nextRetryDelay: err.retryAfterMs });
  return ApplicationFailure.create({ type: err.name, message, nonRetryable: !err.retryable });
}

function mask(text: string, secrets: string[]): string {
  return secrets.filter((s) => s.length >= 4).reduce((t, s) => t.split(s).join('[secret]'), text);
}

/** A vendor may list a record twice in one page (it changed while paging): the last copy wins. */
function lastByKey(records: FeedRecord[]): FeedRecord[] {
  return [...new Map(records.map((r) => [r.key, r])).values()];
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

function latest(a: string | null | undefined, b: string): string {
  return a && new Date(a).getTime() > new Date(b).getTime() ? a : b;
}
