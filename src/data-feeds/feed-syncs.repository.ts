import type { DataSource } from 'typeorm';
import type { Page } from '../http/pagination';
import type { FeedSync, FeedSyncOutcome, FeedSyncStart, FeedSyncStatus, SyncTrigger } from './feed-syncs.types';

export type { FeedSync, FeedSyncCounts, FeedSyncOutcome, FeedSyncStart, FeedSyncStatus, SyncTrigger } from './feed-syncs.types';

/** How many runs a source's history keeps: the newest, pruned as each run begins. */
export const FEED_SYNC_HISTORY_LIMIT = 500;

interface FeedSyncRow {
  id: string;
  organizationId: string;
  dataSourceId: string;
  workflowId: string;
  trigger: SyncTrigger;
  windowStart: Date;
  windowEnd: Date;
  status: FeedSyncStatus;
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  vendorRequests: number;
  pages: number;
  reconciled: boolean;
  startedAt: Date;
  finishedAt: Date | null;
  error: string | null;
}

const COLUMNS = `id, organization_id AS "organizationId", data_source_id AS "dataSourceId", workflow_id AS "workflowId", trigger,
  window_start AS "windowStart", window_end AS "windowEnd", status,
  records_created AS created, records_updated AS updated, records_unchanged AS unchanged, records_deleted AS deleted,
  vendor_requests AS "vendorRequests", pages, reconciled, started_at AS "startedAt", finished_at AS "finishedAt", error`;

/**
 * Inserted only while the source is the organization's: a run that begins
 * after its source was deleted writes nothing (rather than failing on the
 * foreign key, which a retry would never get past).
 */
const BEGIN = `INSERT INTO feed_syncs (id, organization_id, data_source_id, workflow_id, trigger, window_start, window_end, status, started_at)
  SELECT $3::uuid, s.organization_id, s.id, $4::text, $5::text, $6::timestamptz, $7::timestamptz, 'running', $8::timestamptz
  FROM data_sources s WHERE s.organization_id = $1 AND s.id = $2
  ON CONFLICT (id) DO NOTHING`;

/** Everything of the source's history past the newest $3 runs (one source runs one sync at a time, so this stays small). */
const PRUNE = `DELETE FROM feed_syncs WHERE organization_id = $1 AND id IN (
  SELECT id FROM feed_syncs WHERE organization_id = $1 AND data_source_id = $2
  ORDER BY started_at DESC, id DESC OFFSET $3)`;

/** Only a running row: a finish retried after it was written, or arriving twice, keeps the first outcome. */
const FINISH = `UPDATE feed_syncs SET status = $3, records_created = $4, records_updated = $5, records_unchanged = $6,
    records_deleted = $7, vendor_requests = $8, pages = $9, reconciled = $10, error = $11, finished_at = $12
  WHERE organization_id = $1 AND id = $2 AND status = 'running'`;

/**
 * Runs still `running` that began before $1, after ($2, $3) in (started_at, id)
 * order, $4 of them (the partial index feed_syncs_running), across
 * organizations: the reconciler's scan. `superseded`: a later run of the same
 * source has begun, which Temporal admits only once this one's workflow had
 * closed (every run of a source has its one workflow id).
 */
const OPEN_RUNS = `SELECT f.id, f.organization_id AS "organizationId", f.workflow_id AS "workflowId", f.started_at AS "startedAt",
    EXISTS (SELECT FROM feed_syncs n WHERE n.organization_id = f.organization_id AND n.data_source_id = f.data_source_id
            AND (n.started_at, n.id) > (f.started_at, f.id)) AS superseded
  FROM feed_syncs f
  WHERE f.status = 'running' AND f.started_at < $1 AND ($2::timestamptz IS NULL OR (f.started_at, f.id) > ($2::timestamptz, $3::uuid))
  ORDER BY f.started_at, f.id LIMIT $4`;

/**
 * A run that stopped without recording its end, as `failed` with $3 (unless
 * it has ended meanwhile), and its source's syncConfig the same way when it
 * still describes that run (running since the run's start: a later run has
 * not begun), in one statement.
 */
const END_STOPPED = `WITH ended AS (
    UPDATE feed_syncs SET status = 'failed', error = $3::text, finished_at = $4::text::timestamptz
    WHERE organization_id = $1 AND id = $2 AND status = 'running'
    RETURNING data_source_id, started_at),
  source AS (
    UPDATE data_sources s
    SET sync_config = s.sync_config || jsonb_build_object('lastSyncStatus', 'failed', 'lastSyncError', $3::text, 'lastSyncAt', $4::text),
      updated_at = now()
    FROM ended
    WHERE s.organization_id = $1 AND s.id = ended.data_source_id
      AND s.sync_config ->> 'lastSyncStatus' = 'running' AND (s.sync_config ->> 'lastSyncAt')::timestamptz = ended.started_at
    RETURNING s.id)
  SELECT (SELECT count(*) FROM ended)::int AS ended`;

/** A run the history still shows `running`, as the reconciler reads it (FeedSyncsRepository.openRuns). */
export interface OpenRun {
  id: string;
  organizationId: string;
  workflowId: string;
  startedAt: Date;
  /** A later run of the same source has begun since. */
  superseded: boolean;
}

/**
 * The sync history of feed-backed sources (feed_syncs). The worker's
 * activities write it as runs begin and end; the API reads it; the API's
 * reconciler ends runs that stopped without recording their end. Every
 * statement names the organization, but the reconciler's scan (openRuns),
 * which is the service's own upkeep, like the purge of expired records.
 */
export class FeedSyncsRepository {
  constructor(private readonly db: DataSource) {}

  /** Records a run as running, once (idempotent by `id`), and prunes its source's history to the newest FEED_SYNC_HISTORY_LIMIT runs. */
  async begin(run: FeedSyncStart): Promise<void> {
    await this.db.query(BEGIN, [
      run.organizationId,
      run.dataSourceId,
      run.id,
      run.workflowId,
      run.trigger,
      run.window.startDate,
      run.window.endDate,
      run.startedAt,
    ]);
    await this.db.query(PRUNE, [run.organizationId, run.dataSourceId, FEED_SYNC_HISTORY_LIMIT]);
  }

  /** Records how a running run ended; a run already finished (or unknown, or pruned) is left as it is. */
  async finish(organizationId: string, id: string, outcome: FeedSyncOutcome): Promise<void> {
    const { counts } = outcome;
    await this.db.query(FINISH, [
      organizationId,
      id,
      outcome.status,
      counts.created,
      counts.updated,
      counts.unchanged,
      counts.deleted,
      counts.vendorRequests,
      counts.pages,
      outcome.reconciled,
      outcome.error,
      outcome.finishedAt,
    ]);
  }

  /** Runs still `running` that began before `startedBefore`, oldest first, after `after` (a keyset cursor), `limit` of them. */
  openRuns(startedBefore: Date, after: { startedAt: Date; id: string } | null, limit: number): Promise<OpenRun[]> {
    return this.db.query(OPEN_RUNS, [startedBefore, after?.startedAt ?? null, after?.id ?? null, limit]);
  }

  /**
   * Ends a run that stopped without recording its end (its workflow was
   * terminated, say) as `failed` with `error`, and its source's syncConfig
   * when it still describes that run. False when the run had ended already.
   */
  async endStopped(organizationId: string, id: string, error: string, finishedAt: string): Promise<boolean> {
    const [{ ended }]: Array<{ ended: number }> = await this.db.query(END_STOPPED, [organizationId, id, error, finishedAt]);
    return ended > 0;
  }

  /** A page of the source's runs, newest first, and how many it has. */
  async list(organizationId: string, dataSourceId: string, page: Page): Promise<{ total: number; data: FeedSync[] }> {
    const [rows, totals]: [FeedSyncRow[], Array<{ total: number }>] = await Promise.all([
      this.db.query(
        `SELECT ${COLUMNS} FROM feed_syncs WHERE organization_id = $1 AND data_source_id = $2
         ORDER BY started_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [organizationId, dataSourceId, page.limit, page.offset],
      ),
      this.db.query(`SELECT count(*)::int AS total FROM feed_syncs WHERE organization_id = $1 AND data_source_id = $2`, [organizationId, dataSourceId]),
    ]);
    return { total: totals[0].total, data: rows.map(toFeedSync) };
  }
}

function toFeedSync(r: FeedSyncRow): FeedSync {
  return {
    id: r.id,
    organizationId: r.organizationId,
    dataSourceId: r.dataSourceId,
    workflowId: r.workflowId,
    trigger: r.trigger,
    window: { startDate: r.windowStart, endDate: r.windowEnd },
    status: r.status,
    counts: { created: r.created, updated: r.updated, unchanged: r.unchanged, deleted: r.deleted, vendorRequests: r.vendorRequests, pages: r.pages },
    reconciled: r.reconciled,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    error: r.error,
  };
}
