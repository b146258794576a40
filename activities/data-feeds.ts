import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { AnalyticsSource, SyncConfig } from '../src/data-sources/analytics-source.entity';
import { MAX_RECORDS_PER_WRITE } from '../src/data-stores/data-stores.schemas';
import { NotFoundError, ValidationError } from '../src/errors/errors';
import type { FeedRecord } from '../src/data-feeds/feed-definition';
import { findFeed } from '../src/data-feeds/feed-registry';
import { syncWindow } from '../src/data-feeds/sync-window';
import { VendorError, VendorRateLimited } from '../src/data-feeds/vendor-errors';
import { createFeedHttp } from '../src/data-feeds/vendor-http';
import { feedScheduleId, type SyncCounts, type SyncWindow } from '../workflows/data-feed-sync.types';
import { businessFailure } from './business-failure';
import type { ActivityDeps } from './deps';
import { SecretSet } from './steps/secret-set';
import type { ResolvedConnection } from './steps/step-scope';

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
 * page writes the same keys again instead of new ones. Every failure message
 * that leaves an activity, and every lastSyncError, is masked with the
 * connection's secrets (secretsOf).
 */
export function createDataFeedActivities(deps: Pick<ActivityDeps, 'feeds' | 'dataStores' | 'http'>) {
  const { feeds } = deps;

  async function source(ref: SourceRef) {
    try {
      return await feeds.sources.get(ref.organizationId, ref.dataSourceId);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The source's connection, found by id within the organization (a rename changes nothing), or undefined. */
  async function connectionOf(found: AnalyticsSource): Promise<ResolvedConnection | undefined> {
    return found.connectionId ? feeds.connections.byId(found.organizationId, found.connectionId) : undefined;
  }

  return {
    /**
     * Marks the sync running and settles its window; `skipped` (nothing
     * touched, not even the vendor) when the source is gone (`gone`: the
     * scheduled launcher then deletes its schedule) or disabled (sync
     * paused), or when there is nothing new to sync. `startedAt` bounds how
     * far a success may move syncedThrough.
     */
    async beginFeedSync(input: SourceRef & { window?: SyncWindow }): Promise<{ skipped: string; gone?: boolean } | { window: SyncWindow; startedAt: string }> {
      const found = await source(input);
      if (!found) return { skipped: 'the data source no longer exists', gone: true };
      if (!found.enabled) return { skipped: 'the data source is disabled (sync paused)' };
      const now = new Date();
      let window: SyncWindow;
      try {
        window = input.window ?? syncWindow(found.syncConfig, {}, now);
      } catch (err) {
        if (err instanceof ValidationError) return { skipped: 'nothing to sync: the last successful sync already reaches now' };
        throw err;
      }
      const startedAt = now.toISOString();
      await feeds.sources.recordSync(input.organizationId, input.dataSourceId, {
        lastSyncStatus: 'running',
        lastSyncAt: startedAt,
        lastSyncWindow: window,
        lastSyncError: null,
        lastSyncRecords: null,
      });
      return { window, startedAt };
    },

    /**
     * One page of the window from `cursor` (null: the first), written to the
     * source's table. A vendor rate limit is not thrown but answered as
     * `rateLimited` with the vendor's delay: the workflow waits it out with a
     * timer, so rate limits never use up the attempts meant for outages.
     */
    async syncFeedPage(
      input: SourceRef & { window: SyncWindow; cursor: string | null },
    ): Promise<{ next: string | null; created: number; updated: number } | { rateLimited: { retryAfterMs: number; message: string } }> {
      const found = await source(input);
      if (!found) throw stop('SourceDeleted', 'The data source was deleted during the sync');
      if (!found.enabled) throw stop('SourceDisabled', 'The data source was disabled (sync paused) during the sync; the records written so far are kept');
      const feed = findFeed(found.type);
      if (!feed) throw stop('NoSyncWorkflow', `Data source type "${found.type}" has no sync workflow`);
      const connection = await connectionOf(found);
      if (!connection) {
        throw stop(
          'ConnectionMissing',
          `Connection "${found.connectionName}" (${found.connectionId}) no longer exists; toggle the feed on again with a connection of this organization`,
        );
      }
      const secrets = secretsOf(connection);
      try {
        const http = createFeedHttp(deps.http, { vendor: feed.vendor, timeoutMs: VENDOR_TIMEOUT_MS, signal: Context.current().cancellationSignal });
        const page = await feed.fetchPage(
          { baseUrl: feeds.baseUrls[feed.vendor], config: connection.config, window: input.window, cursor: input.cursor },
          http,
        );
        const counts = { created: 0, updated: 0 };
        for (const chunk of chunks(lastByKey(page.records), MAX_RECORDS_PER_WRITE)) {
          const outcome = await deps.dataStores.upsert(input.organizationId, found.dataStoreTableName, chunk, 'workflow');
          counts.created += outcome.created;
          counts.updated += outcome.updated;
        }
        return { next: page.next, ...counts };
      } catch (err) {
        if (err instanceof VendorRateLimited) return { rateLimited: { retryAfterMs: err.retryAfterMs, message: secrets.mask(err.message) } };
        throw maskedFailure(err, secrets);
      }
    },

    /**
     * Records how the sync ended (the error masked with the connection's
     * secrets). A success moves syncedThrough only over a contiguous window
     * (one starting at or before the current syncedThrough, so no gap is
     * jumped), never backwards and never past the time the run began.
     */
    async finishFeedSync(
      input: SourceRef & { window: SyncWindow; counts: SyncCounts; startedAt?: string } & ({ status: 'success' } | { status: 'failed'; error: string }),
    ): Promise<void> {
      const found = await source(input);
      if (!found) return;
      const common = {
        lastSyncAt: new Date().toISOString(),
        lastSyncWindow: input.window,
        lastSyncRecords: { created: input.counts.created, updated: input.counts.updated },
      };
      let patch: Partial<SyncConfig>;
      if (input.status === 'success') {
        patch = {
          ...common,
          lastSyncStatus: 'success',
          lastSyncError: null,
          syncedThrough: advanced(found.syncConfig?.syncedThrough, input.window, input.startedAt),
        };
      } else {
        const connection = await connectionOf(found).catch(() => undefined);
        const error = connection ? secretsOf(connection).mask(input.error) : input.error;
        patch = { ...common, lastSyncStatus: 'failed', lastSyncError: error.slice(0, MAX_ERROR_LENGTH) };
      }
      await feeds.sources.recordSync(input.organizationId, input.dataSourceId, patch);
    },

    /** A scheduled beat found its source deleted: the schedule goes too (nothing to do when it is gone already). */
    async deleteFeedSchedule(input: { dataSourceId: string }): Promise<void> {
      try {
        await Context.current().client.schedule.getHandle(feedScheduleId(input.dataSourceId)).delete();
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },
  };
}

/**
 * Every form of the connection's secrets a message may carry: each secret
 * value (as is, URL-encoded, JSON-escaped) and each Basic credential
 * `<config value>:<secret>` in base64 (Twilio's `accountSid:authToken`).
 */
export function secretsOf(connection: Pick<ResolvedConnection, 'config' | 'secretValues'>): SecretSet {
  const set = new SecretSet();
  const users = Object.values(connection.config).filter((v): v is string => typeof v === 'string');
  for (const secret of connection.secretValues) {
    set.add(secret);
    for (const user of users) {
      const basic = Buffer.from(`${user}:${secret}`).toString('base64');
      set.add(basic);
      set.add(basic.replace(/=+$/, ''));
    }
  }
  return set;
}

/**
 * Any failure of a page as the Temporal failure that retries it the right
 * way, its message masked: an outage with the workflow's bounded backoff, a
 * rejection or a client error of the application not at all, anything else
 * as transient. Only a cancellation passes as it is (it carries no message of
 * ours). The original error (whose stack repeats its message) never leaves.
 */
export function maskedFailure(err: unknown, secrets: SecretSet): unknown {
  if (err instanceof CancelledFailure) return err;
  const mask = <T>(value: T): T => secrets.mask(value);
  if (err instanceof VendorError) return ApplicationFailure.create({ type: err.name, message: mask(err.message), nonRetryable: !err.retryable });
  const business = businessFailure(err, mask);
  if (business) return business;
  if (err instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      type: err.type ?? undefined,
      message: mask(err.message),
      nonRetryable: err.nonRetryable ?? undefined,
      details: err.details ? mask(err.details) : undefined,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ type: err instanceof Error ? err.name : 'Error', message: mask(message) });
}

/** A vendor may list a record twice in one page (it changed while paging): the last copy wins. */
function lastByKey(records: FeedRecord[]): FeedRecord[] {
  return [...new Map(records.map((r) => [r.key, r])).values()];
}

function* chunks<T>(items: T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * Where syncedThrough stands after a successful window: moved to the
 * window's end (capped at when the run began) only when the window starts at
 * or before the current value (nothing between them left unsynced), and
 * never backwards. The first success sets it.
 */
export function advanced(current: string | null | undefined, window: SyncWindow, startedAt: string | undefined): string {
  const end = Math.min(Date.parse(window.endDate), startedAt ? Date.parse(startedAt) : Infinity);
  if (!current) return new Date(end).toISOString();
  const through = Date.parse(current);
  if (Date.parse(window.startDate) > through || end <= through) return current;
  return new Date(end).toISOString();
}
