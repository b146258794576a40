import type { DataSource } from 'typeorm';
import { LOOP_SUB_SEQ_SPAN } from '../../workflows/run.types';

/** What one item of a loop ended with: the last body step it recorded. */
export interface LoopItemEnd {
  index: number;
  stepId: string;
  status: 'completed' | 'failed';
  output: unknown;
  error: string | null;
}

/**
 * The items of `core.loop` steps (table execution_loop_items) and what each
 * item's steps recorded. Scoped to the organization through the execution,
 * like every execution read.
 */
export class LoopItemsRepository {
  constructor(private readonly db: DataSource) {}

  /** Stores the items (again, for a retried activity: the earlier rows go first), one row each, in one statement. */
  async store(organizationId: string, executionId: string, stepId: string, items: unknown[]): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.query(`DELETE FROM execution_loop_items WHERE execution_id = $1 AND step_id = $2`, [executionId, stepId]);
      await manager.query(
        `INSERT INTO execution_loop_items (execution_id, step_id, idx, item)
         SELECT e.id, $3, t.n - 1, t.item FROM executions e, jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t(item, n)
         WHERE e.id = $2 AND e.organization_id = $1`,
        [organizationId, executionId, stepId, JSON.stringify(items)],
      );
    });
  }

  /** One item, as stored (null for an index the loop does not have). */
  async item(organizationId: string, executionId: string, stepId: string, index: number): Promise<unknown> {
    const rows: Array<{ item: unknown }> = await this.db.query(
      `SELECT i.item FROM execution_loop_items i JOIN executions e ON e.id = i.execution_id
       WHERE e.organization_id = $1 AND i.execution_id = $2 AND i.step_id = $3 AND i.idx = $4`,
      [organizationId, executionId, stepId, index],
    );
    return rows[0]?.item ?? null;
  }

  /** The size of what the items' last records hold, in octets, before loading any of it. */
  async endsSize(organizationId: string, executionId: string, stepId: string): Promise<number> {
    const rows: Array<{ bytes: string | null }> = await this.db.query(
      `SELECT sum(coalesce(output_bytes, octet_length(output::text), 0)) AS bytes FROM (${LAST_RECORDS}) last`,
      [organizationId, executionId, stepId],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  /** Each item's last record (its result, or the failure that stopped it), in item order. */
  ends(organizationId: string, executionId: string, stepId: string): Promise<LoopItemEnd[]> {
    return this.db.query(`SELECT index, step_id AS "stepId", status, output, error FROM (${LAST_RECORDS}) last ORDER BY index`, [
      organizationId,
      executionId,
      stepId,
    ]);
  }

  /** Deletes a finished loop's items: its records hold what the run keeps. */
  async clear(organizationId: string, executionId: string, stepId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM execution_loop_items i USING executions e
       WHERE e.id = i.execution_id AND e.organization_id = $1 AND i.execution_id = $2 AND i.step_id = $3`,
      [organizationId, executionId, stepId],
    );
  }
}

/** Per item, its body's record with the highest position: the step it ended at. */
const LAST_RECORDS = `SELECT DISTINCT ON (s.sub_seq / ${LOOP_SUB_SEQ_SPAN}) s.sub_seq / ${LOOP_SUB_SEQ_SPAN} AS index, s.step_id, s.status, s.output, s.output_bytes, s.error
  FROM execution_steps s JOIN executions e ON e.id = s.execution_id
  WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.parent_step_id = $3
  ORDER BY s.sub_seq / ${LOOP_SUB_SEQ_SPAN}, s.sub_seq DESC`;
