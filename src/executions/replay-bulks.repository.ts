import type { DataSource } from 'typeorm';
import { OPEN_STATUS_SQL, type ExecutionStatus } from './executions.constants';

/** Which ended runs a bulk replay selects. */
export interface BulkFilter {
  workflowId: string;
  status?: ExecutionStatus;
  /** The step that failed the run (its error's stepId). */
  failedStepId?: string;
  startedAfter?: Date;
  startedBefore?: Date;
}

/** What a bulk replays, as stored with it (dates as ISO 8601 text). */
export interface BulkRequest {
  filter: Omit<BulkFilter, 'startedAfter' | 'startedBefore'> & { startedAfter?: string; startedBefore?: string };
  fromStepId: string;
  version: 'original' | 'current';
}

export type BulkItemStatus = 'pending' | 'started' | 'failed';

export interface BulkRow {
  id: string;
  organizationId: string;
  request: BulkRequest;
  status: 'running' | 'completed';
  total: number;
  started: number;
  failed: number;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface BulkItem {
  position: number;
  originalId: string;
  executionId: string;
  status: BulkItemStatus;
  error: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bulk replays and the runs each selected; every statement is scoped to the organization. */
export class ReplayBulksRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The ids of the organization's ended runs matching `filter` that recorded
   * `fromStepId` (top level or in a branch; not a sub-step), oldest first, at most `limit`.
   */
  async select(organizationId: string, filter: BulkFilter, fromStepId: string, limit: number): Promise<string[]> {
    const where = ['e.organization_id = $1', 'e.workflow_id = $2', `e.status NOT IN ${OPEN_STATUS_SQL}`];
    const params: unknown[] = [organizationId, filter.workflowId, fromStepId];
    where.push(`EXISTS (SELECT 1 FROM execution_steps s WHERE s.execution_id = e.id AND s.step_id = $3 AND s.parent_step_id IS NULL)`);
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.status) add('e.status = ?', filter.status);
    if (filter.failedStepId) add(`e.error ->> 'stepId' = ?`, filter.failedStepId);
    if (filter.startedAfter) add('e.started_at >= ?', filter.startedAfter);
    if (filter.startedBefore) add('e.started_at < ?', filter.startedBefore);
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT e.id FROM executions e WHERE ${where.join(' AND ')} ORDER BY e.started_at, e.id LIMIT ${Math.floor(limit)}`,
      params,
    );
    return rows.map((r) => r.id);
  }

  /**
   * Creates the bulk with its runs (positions in order), unless a bulk of
   * that id exists: then nothing changes (the same request sent again).
   * Whether it was created now.
   */
  async create(
    organizationId: string,
    bulk: { id: string; request: BulkRequest; items: Array<{ originalId: string; executionId: string }> },
  ): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const inserted: unknown[] = await manager.query(
        `INSERT INTO execution_replay_bulks (id, organization_id, workflow_id, request, total) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        [bulk.id, organizationId, bulk.request.filter.workflowId, JSON.stringify(bulk.request), bulk.items.length],
      );
      if (inserted.length === 0) return false;
      if (bulk.items.length > 0) {
        await manager.query(
          `INSERT INTO execution_replay_bulk_items (bulk_id, position, original_id, execution_id)
           SELECT $1, t.position, t.original_id, t.execution_id
           FROM unnest($2::int[], $3::text[], $4::text[]) AS t(position, original_id, execution_id)`,
          [bulk.id, bulk.items.map((_, i) => i), bulk.items.map((i) => i.originalId), bulk.items.map((i) => i.executionId)],
        );
      }
      return true;
    });
  }

  /** The bulk with its counts; null when the organization has none of that id. */
  async find(organizationId: string, bulkId: string): Promise<BulkRow | null> {
    if (!UUID.test(bulkId)) return null;
    const rows: BulkRow[] = await this.db.query(
      `SELECT b.id, b.organization_id AS "organizationId", b.request, b.status, b.total, b.created_at AS "createdAt", b.finished_at AS "finishedAt",
              (SELECT count(*)::int FROM execution_replay_bulk_items i WHERE i.bulk_id = b.id AND i.status = 'started') AS started,
              (SELECT count(*)::int FROM execution_replay_bulk_items i WHERE i.bulk_id = b.id AND i.status = 'failed') AS failed
       FROM execution_replay_bulks b WHERE b.organization_id = $1 AND b.id = $2`,
      [organizationId, bulkId],
    );
    return rows[0] ?? null;
  }

  /** The bulk's runs in order, at most `limit` (only those still `pending`, if asked). */
  async items(organizationId: string, bulkId: string, options: { limit: number; pendingOnly?: boolean }): Promise<BulkItem[]> {
    return this.db.query(
      `SELECT i.position, i.original_id AS "originalId", i.execution_id AS "executionId", i.status, i.error
       FROM execution_replay_bulk_items i JOIN execution_replay_bulks b ON b.id = i.bulk_id
       WHERE b.organization_id = $1 AND i.bulk_id = $2 ${options.pendingOnly ? `AND i.status = 'pending'` : ''}
       ORDER BY i.position LIMIT ${Math.floor(options.limit)}`,
      [organizationId, bulkId],
    );
  }

  /** Records how one run of the bulk went; a run already recorded keeps its first outcome. */
  async mark(organizationId: string, bulkId: string, position: number, status: Exclude<BulkItemStatus, 'pending'>, error: string | null = null) {
    await this.db.query(
      `UPDATE execution_replay_bulk_items i SET status = $4, error = $5
       FROM execution_replay_bulks b
       WHERE b.id = i.bulk_id AND b.organization_id = $1 AND i.bulk_id = $2 AND i.position = $3 AND i.status = 'pending'`,
      [organizationId, bulkId, position, status, error],
    );
  }

  /** The bulk has gone through every run it selected. */
  async finish(organizationId: string, bulkId: string): Promise<void> {
    await this.db.query(
      `UPDATE execution_replay_bulks SET status = 'completed', finished_at = coalesce(finished_at, now()) WHERE organization_id = $1 AND id = $2`,
      [organizationId, bulkId],
    );
  }

  /**
   * Deletes at most `limit` completed bulks (their runs' rows with them)
   * created longer ago than their organization's plan keeps executions:
   * the runs they replayed are gone by then. How many were deleted.
   */
  async pruneExpired(daysByPlan: Record<string, number>, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM execution_replay_bulks WHERE id IN (
         SELECT b.id FROM execution_replay_bulks b JOIN organizations o ON o.id = b.organization_id
          WHERE b.status = 'completed' AND b.created_at < now() - make_interval(days => ($1::jsonb ->> o.plan)::int)
          ORDER BY b.created_at LIMIT $2
          FOR UPDATE OF b SKIP LOCKED)`,
      [JSON.stringify(daysByPlan), limit],
    );
    return deleted;
  }
}
