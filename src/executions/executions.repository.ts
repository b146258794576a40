import type { DataSource } from 'typeorm';

export type ExecutionMode = 'webhook' | 'api' | 'test' | 'rerun';
export type ExecutionStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';
export const EXECUTION_STATUSES: ExecutionStatus[] = ['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'];

export interface ExecutionRow {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  triggerId: string | null;
  triggerName: string | null;
  environmentId: string | null;
  mode: ExecutionMode;
  status: ExecutionStatus;
  input: Record<string, unknown>;
  error: { stepId?: string; message: string } | null;
  rerunOf: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

export interface StepRow {
  stepId: string;
  stepType: string;
  seq: number;
  status: 'completed' | 'failed';
  attempt: number;
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: Date;
  finishedAt: Date;
}

export interface ExecutionFilter {
  workflowId?: string;
  status?: ExecutionStatus;
  startedAfter?: Date;
  startedBefore?: Date;
  limit: number;
  offset: number;
}

const COLUMNS = `id, organization_id AS "organizationId", workflow_id AS "workflowId", workflow_name AS "workflowName",
  workflow_version AS "workflowVersion", trigger_id AS "triggerId", trigger_name AS "triggerName",
  environment_id AS "environmentId", mode, status, input, error, rerun_of AS "rerunOf",
  started_at AS "startedAt", finished_at AS "finishedAt"`;

const STEP_COLUMNS = `step_id AS "stepId", step_type AS "stepType", seq, status, attempt, input, output, error,
  started_at AS "startedAt", finished_at AS "finishedAt"`;

/** Executions and their step records; every read is scoped to an organization. */
export class ExecutionsRepository {
  constructor(private readonly db: DataSource) {}

  async insert(e: Omit<ExecutionRow, 'status' | 'error' | 'startedAt' | 'finishedAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, trigger_id, trigger_name,
         environment_id, mode, input, rerun_of)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [e.id, e.organizationId, e.workflowId, e.workflowName, e.workflowVersion, e.triggerId, e.triggerName, e.environmentId, e.mode, JSON.stringify(e.input), e.rerunOf],
    );
  }

  async findById(organizationId: string, id: string): Promise<ExecutionRow | null> {
    const rows = await this.db.query(`SELECT ${COLUMNS} FROM executions WHERE organization_id = $1 AND id = $2`, [organizationId, id]);
    return rows[0] ?? null;
  }

  async list(organizationId: string, f: ExecutionFilter): Promise<{ total: number; data: ExecutionRow[] }> {
    const where = ['organization_id = $1'];
    const params: unknown[] = [organizationId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.workflowId) add('workflow_id = ?', f.workflowId);
    if (f.status) add('status = ?', f.status);
    if (f.startedAfter) add('started_at >= ?', f.startedAfter);
    if (f.startedBefore) add('started_at < ?', f.startedBefore);
    const filter = where.join(' AND ');
    const [data, [{ total }]] = await Promise.all([
      this.db.query(`SELECT ${COLUMNS} FROM executions WHERE ${filter} ORDER BY started_at DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`, params),
      this.db.query(`SELECT count(*)::int AS total FROM executions WHERE ${filter}`, params),
    ]);
    return { total, data };
  }

  /** Records how a run ended, once: a later, different report (say, a cancel racing a completion) is ignored. */
  async finish(organizationId: string, id: string, status: ExecutionStatus, error: ExecutionRow['error'], finishedAt?: Date): Promise<void> {
    await this.db.query(
      `UPDATE executions SET status = $3, error = $4, finished_at = coalesce($5, now())
       WHERE organization_id = $1 AND id = $2 AND status = 'running'`,
      [organizationId, id, status, error ? JSON.stringify(error) : null, finishedAt ?? null],
    );
  }

  /**
   * One row per step and run, written only into an execution of the given
   * organization; a later attempt overwrites an earlier one, never a completed
   * record with a stale attempt's.
   */
  async recordStep(organizationId: string, executionId: string, s: StepRow): Promise<void> {
    await this.db.query(
      `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, input, output, error, started_at, finished_at)
       SELECT e.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM executions e WHERE e.id = $2 AND e.organization_id = $1
       ON CONFLICT (execution_id, step_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt,
         input = EXCLUDED.input, output = EXCLUDED.output, error = EXCLUDED.error,
         started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at
       WHERE execution_steps.status <> 'completed' OR EXCLUDED.attempt > execution_steps.attempt`,
      [organizationId, executionId, s.stepId, s.stepType, s.seq, s.status, s.attempt, jsonOrNull(s.input), jsonOrNull(s.output), s.error, s.startedAt, s.finishedAt],
    );
  }

  async steps(organizationId: string, executionId: string): Promise<StepRow[]> {
    return this.db.query(
      `SELECT ${STEP_COLUMNS} FROM execution_steps s
       WHERE s.execution_id = $2 AND EXISTS (SELECT 1 FROM executions e WHERE e.id = s.execution_id AND e.organization_id = $1)
       ORDER BY seq`,
      [organizationId, executionId],
    );
  }

  /** Outputs of the given steps of a run (those kept outside workflow history). */
  async stepOutputs(organizationId: string, executionId: string, stepIds: string[]): Promise<Map<string, unknown>> {
    const rows: Array<{ stepId: string; output: unknown }> = await this.db.query(
      `SELECT s.step_id AS "stepId", s.output FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.step_id = ANY($3)`,
      [organizationId, executionId, stepIds],
    );
    return new Map(rows.map((r) => [r.stepId, r.output]));
  }
}

const jsonOrNull = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
