import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { AnalyticsSource, SyncConfig } from '../src/data-sources/analytics-source.entity';
import { MAX_RECORDS_PER_WRITE } from '../src/data-stores/data-stores.schemas';
import { NotFoundError, ValidationError } from '../src/errors/errors';
import type { FeedDefinition, FeedHttp, FeedRecord } from '../src/data-feeds/feed-definition';
import { findFeed } from '../src/data-feeds/feed-registry';
import { planSync } from '../src/data-feeds/sync-plan';
import { lookbackMinutesOf, syncWindow } from '../src/data-feeds/sync-window';
import { VendorError, VendorRateLimited, VendorRejected } from '../src/data-feeds/vendor-errors';
import { createFeedHttp } from '../src/data-feeds/vendor-http';
import { timeField } from '../src/data-sources/serving-relation';
import { feedScheduleId, type SyncCounts, type SyncPhase, type SyncTrigger, type SyncWindow } from '../workflows/data-feed-sync.types';
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
 * activity fetches one page from the vendor and writes the records whose
 * value changed, by the vendor's id, then returns only the next cursor and
 * counts: records never reach Temporal history, memory holds one page, and a
 * retried or replayed page writes the same keys again instead of new ones.
 * Every failure message that leaves an activity, and every lastSyncError, is
 * masked with the connection's secrets (secretsOf).
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

  /** The source as a running sync needs it: still there, enabled, of a feed; else the failure that stops the sync. */
  async function syncing(ref: SourceRef): Promise<{ found: AnalyticsSource; feed: FeedDefinition }> {
    const found = await source(ref);
    if (!found) throw stop('SourceDeleted', 'The data source was deleted during the sync');
    if (!found.enabled) throw stop('SourceDisabled', 'The data source was disabled (sync paused) during the sync; the records written so far are kept');
    const feed = findFeed(found.type);
    if (!feed) throw stop('NoSyncWorkflow', `Data source type "${found.type}" has no sync workflow`);
    return { found, feed };
  }

  /** The source's connection, found by id within the organization (a rename changes nothing), or undefined. */
  async function connectionOf(found: AnalyticsSource): Promise<ResolvedConnection | undefined> {
    return found.connectionId ? feeds.connections.byId(found.organizationId, found.connectionId) : undefined;
  }

  /**
   * Runs `call` with the source's connection (its OAuth token refreshed when
   * about to expire) and a FeedHttp that counts requests. A 401 with an OAuth
   * token refreshes it once and runs `call` again. Failures leave masked with
   * every secret either connection config held.
   */
  async function withVendor<T>(
    found: AnalyticsSource,
    feed: FeedDefinition,
    call: (config: Record<string, unknown>, http: FeedHttp) => Promise<T>,
  ): Promise<{ value: T; requests: number } | { rateLimited: { retryAfterMs: number; message: string } }> {
    const secrets = new SecretSet();
    let requests = 0;
    const inner = createFeedHttp(deps.http, { vendor: feed.vendor, timeoutMs: VENDOR_TIMEOUT_MS, signal: Context.current().cancellationSignal });
    const http: FeedHttp = { send: (request) => ((requests += 1), inner.send(request)) };
    try {
      let connection = await freshConnection(found);
      secretsOf(connection, secrets);
      try {
        return { value: await call(connection.config, http), requests };
      } catch (err) {
        const token = connection.config.accessToken;
        if (!(err instanceof VendorRejected && err.status === 401 && typeof token === 'string')) throw err;
        connection = await freshConnection(found, token);
        if (connection.config.accessToken === token) throw err;
        secretsOf(connection, secrets);
        return { value: await call(connection.config, http), requests };
      }
    } catch (err) {
      if (err instanceof VendorRateLimited) return { rateLimited: { retryAfterMs: err.retryAfterMs, message: secrets.mask(err.message) } };
      throw maskedFailure(err, secrets);
    }
  }

  async function freshConnection(found: AnalyticsSource, rejectedAccessToken?: string): Promise<ResolvedConnection> {
    const connection = found.connectionId ? await feeds.connections.fresh(found.organizationId, found.connectionId, rejectedAccessToken) : undefined;
    if (!connection) {
      throw stop(
        'ConnectionMissing',
        `Connection "${found.connectionName}" (${found.connectionId}) no longer exists; attach a connection of the same type to this data source ` +
          `(PUT /dashboards/data-sources/${found.id}/connection), which keeps its records and dashboards`,
      );
    }
    return connection;
  }

  return {
    /**
     * Marks the sync running, settles its window (the look-back included)
     * and phases, and opens its history row; `skipped` (nothing touched, not
     * even the vendor) when the source is gone (`gone`: the scheduled
     * launcher then deletes its schedule) or disabled (sync paused), or when
     * there is nothing new to sync. `startedAt` bounds how far a success may
     * move syncedThrough.
     */
    async beginFeedSync(
      input: SourceRef & { window?: SyncWindow; trigger: SyncTrigger; syncId: string; workflowId: string },
    ): Promise<{ skipped: string; gone?: boolean } | { window: SyncWindow; startedAt: string; phases: SyncPhase[]; reconciles: boolean }> {
      const found = await source(input);
      if (!found) return { skipped: 'the data source no longer exists', gone: true };
      if (!found.enabled) return { skipped: 'the data source is disabled (sync paused)' };
      const feed = findFeed(found.type);
      if (!feed) return { skipped: `data source type "${found.type}" has no sync workflow` };
      const now = new Date();
      let window: SyncWindow;
      try {
        window = input.window ?? syncWindow(found.syncConfig, {}, now, lookbackMinutesOf(found.syncConfig, feed.lookbackMinutes));
      } catch (err) {
        if (err instanceof ValidationError) return { skipped: 'nothing to sync: the last successful sync already reaches now' };
        throw err;
      }
      const plan = planSync({ feed, config: found.syncConfig, window, trigger: input.trigger, now, newId: randomUUID });
      const startedAt = now.toISOString();
      // What an interrupted run's listings saw is of no use to this one.
      await feeds.listings.forget(input.organizationId, input.dataSourceId);
      await feeds.history.begin({ id: input.syncId, ...input, window, startedAt });
      await feeds.sources.recordSync(input.organizationId, input.dataSourceId, {
        lastSyncStatus: 'running',
        lastSyncAt: startedAt,
        lastSyncWindow: window,
        lastSyncError: null,
        lastSyncRecords: null,
      });
      return { window, startedAt, ...plan };
    },

    /**
     * One page of the window from `cursor` (null: the first). Records whose
     * value the table already holds are not written again (counted
     * `unchanged`); with a `listingId`, every key of the page is marked seen
     * for the listing's deletions. A vendor rate limit is not thrown but
     * answered as `rateLimited` with the vendor's delay: the workflow waits it
     * out with a timer, so rate limits never use up the attempts meant for
     * outages.
     */
    async syncFeedPage(
      input: SourceRef & { window: SyncWindow; cursor: string | null; listingId: string | null },
    ): Promise<
      | { next: string | null; created: number; updated: number; unchanged: number; requests: number }
      | { rateLimited: { retryAfterMs: number; message: string } }
    > {
      const { found, feed } = await syncing(input);
      const table = found.dataStoreTableName;
      const stored = storedValues((keys) => deps.dataStores.valuesOf(input.organizationId, table, keys));
      const answer = await withVendor(found, feed, (config, http) =>
        feed.fetchPage({ baseUrl: feeds.baseUrls[feed.vendor], config, window: input.window, cursor: input.cursor, stored }, http),
      );
      if ('rateLimited' in answer) return answer;
      const page = answer.value;
      const records = lastByKey(page.records);
      const before = await stored(records.map((r) => r.key));
      const changed = records.filter((r) => !isDeepStrictEqual(before.get(r.key), asStored(r.value)));
      if (input.listingId)
        await feeds.listings.markSeen(
          input,
          input.listingId,
          records.map((r) => r.key),
        );
      const counts = { created: 0, updated: 0 };
      for (const chunk of chunks(changed, MAX_RECORDS_PER_WRITE)) {
        const outcome = await deps.dataStores.upsert(input.organizationId, table, chunk, 'workflow');
        counts.created += outcome.created;
        counts.updated += outcome.updated;
      }
      return { next: page.next, ...counts, unchanged: records.length - changed.length, requests: answer.requests };
    },

    /** After the last page of a listing: deletes the window's stored records the listing did not see (they are gone at the vendor). */
    async settleFeedListing(input: SourceRef & { listingId: string; window: SyncWindow }): Promise<{ deleted: number }> {
      const { found, feed } = await syncing(input);
      const at = { organizationId: input.organizationId, tableName: found.dataStoreTableName, timeField: timeField(feed.recordSchema) };
      return { deleted: await feeds.listings.deleteUnseen(at, input.listingId, input.window) };
    },

    /**
     * One batch of the source's stored keys in key order after `after`,
     * checked with the vendor (a `keys` feed); the keys it no longer has are
     * deleted. `next` is the last key checked, or null after the last batch.
     */
    async reconcileFeedKeys(
      input: SourceRef & { after: string | null },
    ): Promise<{ next: string | null; deleted: number; requests: number } | { rateLimited: { retryAfterMs: number; message: string } }> {
      const { found, feed } = await syncing(input);
      const { deletions } = feed;
      if (deletions.kind !== 'keys') throw stop('NoKeyCheck', `Data feed ${feed.key} mirrors deletions by listing, not by checking keys`);
      const table = found.dataStoreTableName;
      const batch = await deps.dataStores.read(input.organizationId, table, {
        after: input.after ?? undefined,
        where: undefined,
        limit: deletions.batchSize,
        offset: 0,
        count: false,
      });
      const keys = batch.data.map((r) => r.key);
      if (keys.length === 0) return { next: null, deleted: 0, requests: 0 };
      const answer = await withVendor(found, feed, (config, http) => deletions.existing({ baseUrl: feeds.baseUrls[feed.vendor], config, keys }, http));
      if ('rateLimited' in answer) return answer;
      const deleted = await deps.dataStores.deleteKeys(
        input.organizationId,
        table,
        keys.filter((k) => !answer.value.has(k)),
      );
      return { next: batch.nextAfter, deleted, requests: answer.requests };
    },

    /**
     * Records how the sync ended (the error masked with the connection's
     * secrets), in the source and in its history. A success moves
     * syncedThrough only over a contiguous window (one starting at or before
     * the current syncedThrough, so no gap is jumped), never backwards and
     * never past the time the run began; one that reconciled deletions
     * records when.
     */
    async finishFeedSync(
      input: SourceRef & { syncId: string; window: SyncWindow; counts: SyncCounts; startedAt: string; reconciled: boolean } & (
          { status: 'success' } | { status: 'failed'; error: string }
        ),
    ): Promise<void> {
      const found = await source(input);
      if (!found) return;
      const { created, updated, unchanged, deleted } = input.counts;
      const finishedAt = new Date().toISOString();
      const common = { lastSyncAt: finishedAt, lastSyncWindow: input.window, lastSyncRecords: { created, updated, unchanged, deleted } };
      let patch: Partial<SyncConfig>;
      let error: string | null = null;
      if (input.status === 'success') {
        patch = {
          ...common,
          lastSyncStatus: 'success',
          lastSyncError: null,
          syncedThrough: advanced(found.syncConfig?.syncedThrough, input.window, input.startedAt),
          ...(input.reconciled ? { lastReconciledAt: input.startedAt } : {}),
        };
      } else {
        const connection = await connectionOf(found).catch(() => undefined);
        error = (connection ? secretsOf(connection).mask(input.error) : input.error).slice(0, MAX_ERROR_LENGTH);
        patch = { ...common, lastSyncStatus: 'failed', lastSyncError: error };
      }
      await feeds.history.finish(input.organizationId, input.syncId, {
        status: input.status,
        counts: input.counts,
        reconciled: input.reconciled,
        error,
        finishedAt,
      });
      await feeds.listings.forget(input.organizationId, input.dataSourceId);
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

/** A page's stored values, read once per key however often the feed and the activity ask. */
function storedValues(read: (keys: string[]) => Promise<Map<string, Record<string, unknown>>>) {
  const known = new Map<string, Record<string, unknown> | undefined>();
  return async (keys: string[]): Promise<Map<string, Record<string, unknown>>> => {
    const missing = [...new Set(keys.filter((k) => !known.has(k)))];
    if (missing.length > 0) {
      const found = await read(missing);
      for (const key of missing) known.set(key, found.get(key));
    }
    const answer = new Map<string, Record<string, unknown>>();
    for (const key of keys) {
      const value = known.get(key);
      if (value !== undefined) answer.set(key, value);
    }
    return answer;
  };
}

/** A value as the table would hand it back (JSON drops undefined members), to compare with what it holds. */
const asStored = (value: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(value));

/**
 * Every form of the connection's secrets a message may carry: each secret
 * value (as is, URL-encoded, JSON-escaped) and each Basic credential
 * `<config value>:<secret>` in base64 (Twilio's `accountSid:authToken`),
 * added to `set` (a new one by default).
 */
export function secretsOf(connection: Pick<ResolvedConnection, 'config' | 'secretValues'>, set = new SecretSet()): SecretSet {
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
