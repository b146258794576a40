import type { DataSource } from 'typeorm';
import { MODEL_STEP_TYPE } from '../../workflows/agent.types';
import { LOOP_SUB_SEQ_SPAN } from '../../workflows/run.types';
import type { RunUsage, StepUsage } from '../llm-usage/usage';
import { bounded, runsEnded, runsStarted, stepDuration } from '../observability/metrics';
import { STEP_TYPES } from '../workflows/definition.schemas';
import {
  EXECUTION_MODES,
  EXECUTION_STATUSES,
  type ExecutionMode,
  type ExecutionStatus,
  OPEN_STATUS_SQL,
  type StepPart,
  SUMMARY_KEY_CHARS,
  SUMMARY_KEYS,
} from './executions.constants';

export type { ExecutionMode };

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
  /** `code`: the failed step's failure type, for runs that ended since it was recorded. */
  error: { stepId?: string; message: string; code?: string } | null;
  rerunOf: string | null;
  /** The run that started this one (a core.workflow step, an agent's workflow tool, a failed run's error workflow). */
  parentExecutionId?: string | null;
  /** The step of the parent that started it: the core.workflow step, or the agent's tool call sub-step; null for an error run. */
  parentStepId?: string | null;
  /** Read by findById only: the error run this run started when it failed or was cancelled. */
  errorExecutionId?: string | null;
  /** A replay from a step: the execution it replays, and the step it ran from. */
  replayOf: string | null;
  replayFromStepId: string | null;
  /** A webhook delivery's id, when the trigger deduplicates and the delivery named one. */
  deliveryId?: string | null;
  /** A run of a person's draft (a test of one step or of the whole draft): its steps are no version's. */
  draft?: boolean;
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
  /** A sub-step (an agent's model or tool call) names the step it belongs to and its place under it (1, 2, …; the step itself is 0). */
  parentStepId?: string | null;
  subSeq?: number;
  /** The output as it was, sealed (StepOutputSeals), when masking changed it; never shown. */
  sealedOutput?: string | null;
  /** A model call's tokens and cost (ai.llm-call, ai.agent and its model calls); null for other steps. */
  usage?: StepUsage | null;
}

/** A step's recorded output (masked), and its sealed original when it has one. */
export interface StoredOutput {
  output: unknown;
  sealed: string | null;
}

/** What a list shows instead of an execution's input: its size, key count and first keys. */
export interface InputSummary {
  bytes: number;
  keyCount: number;
  keys: string[];
}

/** A listed execution: its input summary instead of its input (null for a row written by an older version mid-upgrade). */
export type ListedExecution = Omit<ExecutionRow, 'input'> & { inputSummary: InputSummary | null };

/** A step record as read: a value over the inline limit is not loaded (null), its size is in `<part>OmittedBytes` instead. */
export interface ReadStep extends StepRow {
  inputOmittedBytes: number | null;
  outputOmittedBytes: number | null;
}

export interface ExecutionFilter {
  workflowId?: string;
  status?: ExecutionStatus;
  mode?: ExecutionMode;
  /** A webhook or schedule trigger's id; runs record it (reruns keep their original's). */
  triggerId?: string;
  startedAfter?: Date;
  startedBefore?: Date;
  /** Runs this execution started: its core.workflow and workflow tool children, its error run. */
  parentExecutionId?: string;
  /** Runs a webhook delivery of this id started (of any trigger). */
  deliveryId?: string;
  limit: number;
  offset: number;
}

const BASE_COLUMNS = `id, organization_id AS "organizationId", workflow_id AS "workflowId", workflow_name AS "workflowName",
  workflow_version AS "workflowVersion", trigger_id AS "triggerId", trigger_name AS "triggerName",
  environment_id AS "environmentId", mode, status, error, rerun_of AS "rerunOf",
  parent_execution_id AS "parentExecutionId", parent_step_id AS "parentStepId",
  replay_of AS "replayOf", replay_from_step_id AS "replayFromStepId", delivery_id AS "deliveryId", draft, started_at AS "startedAt", finished_at AS "finishedAt"`;
const COLUMNS = `${BASE_COLUMNS}, input`;
// Lists never touch `input`: a page of 1000 runs with 1 MB inputs would be a gigabyte.
const LIST_COLUMNS = `${BASE_COLUMNS}, CASE WHEN input_bytes IS NULL THEN NULL
  ELSE json_build_object('bytes', input_bytes, 'keyCount', input_key_count, 'keys', input_keys) END AS "inputSummary"`;

/**
 * Summary columns measured by the database from the stored value, exactly as
 * the backfill did: octets of `value::text`, keys in stored order. Inputs are
 * objects; the guard keeps anything else from failing the run's start.
 */
const summaryOf = (input: string) => `octet_length(${input}::text),
  CASE WHEN jsonb_typeof(${input}) = 'object' THEN (SELECT count(*) FROM jsonb_object_keys(${input}))::int ELSE 0 END,
  CASE WHEN jsonb_typeof(${input}) = 'object'
    THEN ARRAY(SELECT left(k, ${SUMMARY_KEY_CHARS}) FROM jsonb_object_keys(${input}) WITH ORDINALITY AS t(k, n) ORDER BY n LIMIT ${SUMMARY_KEYS})
    ELSE '{}'::text[] END`;

/**
 * A step value stays in the database (NULL, its size beside it) when it is
 * over the per-value limit ($3), or when the run's values inlined so far, in
 * step order, pass the per-read budget ($4): a run of 200 steps of 128 KiB
 * each is no more a 50 MB answer than one value of 50 MB is. A row written
 * without sizes (an older version mid-upgrade) is measured here, still
 * without leaving the database.
 */
const capped = (part: StepPart) => {
  const omit = `s.${part} IS NOT NULL AND (w.${part}_size > $3 OR w.running > $4)`;
  return `CASE WHEN ${omit} THEN NULL ELSE s.${part} END AS ${part}, CASE WHEN ${omit} THEN w.${part}_size END AS "${part}OmittedBytes"`;
};
const STEP_COLUMNS = `s.step_id AS "stepId", s.step_type AS "stepType", s.seq, s.status, s.attempt, ${capped('input')}, ${capped('output')},
  s.error, s.started_at AS "startedAt", s.finished_at AS "finishedAt", s.parent_step_id AS "parentStepId", s.sub_seq AS "subSeq", s.usage`;
/** Sizes and the running total of what is inlined, over the sizes alone so no value is loaded to compute them. */
const STEP_SIZES = `SELECT step_id, input_size, output_size,
    sum(CASE WHEN input_size <= $3 THEN input_size ELSE 0 END + CASE WHEN output_size <= $3 THEN output_size ELSE 0 END)
      OVER (ORDER BY seq, sub_seq ROWS UNBOUNDED PRECEDING) AS running
  FROM (SELECT step_id, seq, sub_seq, coalesce(input_bytes, octet_length(input::text), 0) AS input_size,
               coalesce(output_bytes, octet_length(output::text), 0) AS output_size
          FROM execution_steps WHERE execution_id = $2) sizes`;

/**
 * A read of a run's steps shows a loop's first SUB_STEPS_READ_ITEMS items'
 * steps (every other sub-step, an agent's calls, is far below the bound):
 * 10,000 items would be tens of thousands of rows in one answer. Each record
 * stays readable alone (/executions/{id}/steps/{stepId}/output), and the
 * loop's output holds every item's result.
 */
export const SUB_STEPS_READ_ITEMS = 100;
const SUB_STEPS_READ_BELOW = SUB_STEPS_READ_ITEMS * LOOP_SUB_SEQ_SPAN;

/** The error of an execution whose run Temporal never accepted (RunStarter marks it so). */
export const NOT_STARTED_MESSAGE = 'The run could not be started';

/** Executions and their step records; every read is scoped to an organization. */
export class ExecutionsRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * Writes the execution with its input summary, so lists never need the input.
   * Once: an id given again (a bulk replay's derived id, retried) leaves the first row.
   */
  async insert(
    e: Omit<ExecutionRow, 'status' | 'error' | 'startedAt' | 'finishedAt' | 'replayOf' | 'replayFromStepId'> &
      Partial<Pick<ExecutionRow, 'replayOf' | 'replayFromStepId' | 'deliveryId' | 'draft'>>,
    /** Write it only if its trigger has no execution of its delivery id yet (a webhook delivery seen before); returns whether it was written. */
    options: { unlessDeliverySeen?: boolean } = {},
  ): Promise<boolean> {
    const unless = options.unlessDeliverySeen
      ? `WHERE NOT EXISTS (SELECT 1 FROM executions WHERE organization_id = $2 AND delivery_id = $16 AND trigger_id = $6)`
      : '';
    const rows: unknown[] = await this.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, trigger_id, trigger_name,
         environment_id, mode, input, rerun_of, parent_execution_id, parent_step_id, replay_of, replay_from_step_id, delivery_id, draft, input_bytes, input_key_count, input_keys)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, v.input, $11, $12, $13, $14, $15, $16, $17, ${summaryOf('v.input')}
       FROM (SELECT $10::jsonb AS input) v ${unless}
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        e.id,
        e.organizationId,
        e.workflowId,
        e.workflowName,
        e.workflowVersion,
        e.triggerId,
        e.triggerName,
        e.environmentId,
        e.mode,
        JSON.stringify(e.input),
        e.rerunOf,
        e.parentExecutionId ?? null,
        e.parentStepId ?? null,
        e.replayOf ?? null,
        e.replayFromStepId ?? null,
        e.deliveryId ?? null,
        e.draft ?? false,
      ],
    );
    if (rows.length > 0) runsStarted.inc({ mode: bounded(e.mode, EXECUTION_MODES) });
    return rows.length > 0;
  }

  /**
   * `withErrorRun` (what the API shows) adds `errorExecutionId`, the error
   * run this run started, found through the parent index; the activities'
   * reads, on every step, leave it out.
   */
  async findById(organizationId: string, id: string, options: { withErrorRun?: boolean } = {}): Promise<ExecutionRow | null> {
    const errorRun = options.withErrorRun
      ? `, (SELECT c.id FROM executions c WHERE c.organization_id = $1 AND c.parent_execution_id = $2 AND c.mode = 'error' LIMIT 1) AS "errorExecutionId"`
      : '';
    const rows = await this.db.query(`SELECT ${COLUMNS}${errorRun} FROM executions WHERE organization_id = $1 AND id = $2`, [organizationId, id]);
    return rows[0] ?? null;
  }

  /** How the execution stands, without its input (which may be megabytes): what a webhook delivery's duplicate is told. */
  async outcome(organizationId: string, id: string): Promise<Pick<ExecutionRow, 'status' | 'error'> | undefined> {
    const rows: Array<Pick<ExecutionRow, 'status' | 'error'>> = await this.db.query(
      `SELECT status, error FROM executions WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return rows[0];
  }

  /**
   * Which of these executions are still running (neither ended nor parked
   * at a wait), in one statement: the runs a webhook host answered at once
   * and watches until they end (RunEndWatch). A pruned one is not running.
   */
  async stillRunning(runs: Array<{ organizationId: string; id: string }>): Promise<Set<string>> {
    const rows: Array<{ id: string }> = await this.db.query(
      `SELECT e.id FROM unnest($1::uuid[], $2::text[]) AS w(organization_id, id)
       JOIN executions e ON e.organization_id = w.organization_id AND e.id = w.id
       WHERE e.status = 'running'`,
      [runs.map((r) => r.organizationId), runs.map((r) => r.id)],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** The execution's status alone (a caller polling for a change reads no input). */
  async status(organizationId: string, id: string): Promise<ExecutionStatus | undefined> {
    const rows: Array<{ status: ExecutionStatus }> = await this.db.query(`SELECT status FROM executions WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      id,
    ]);
    return rows[0]?.status;
  }

  /**
   * The executions a trigger started for a delivery id, one per generation
   * (what picks a delivery's execution id), each with whether it was started
   * with this body (`input`, compared as JSON).
   */
  async deliveryRuns(
    organizationId: string,
    triggerId: string,
    deliveryId: string,
    input: Record<string, unknown>,
  ): Promise<Array<{ id: string; status: ExecutionStatus; startedAt: Date; notStarted: boolean; sameInput: boolean }>> {
    return this.db.query(
      `SELECT id, status, started_at AS "startedAt", (status = 'failed' AND error->>'message' = $4) AS "notStarted",
              input = $5::jsonb AS "sameInput"
       FROM executions WHERE organization_id = $1 AND delivery_id = $3 AND trigger_id = $2`,
      [organizationId, triggerId, deliveryId, NOT_STARTED_MESSAGE, JSON.stringify(input)],
    );
  }

  /** Whether the execution was started with this input (compared as JSON); false when there is no such execution. */
  async hasInput(organizationId: string, id: string, input: Record<string, unknown>): Promise<boolean> {
    const rows: Array<{ same: boolean }> = await this.db.query(`SELECT input = $3::jsonb AS same FROM executions WHERE organization_id = $1 AND id = $2`, [
      organizationId,
      id,
      JSON.stringify(input),
    ]);
    return rows[0]?.same ?? false;
  }

  /**
   * Opens again an execution whose run Temporal never accepted, for a retried
   * delivery of the same id to start it; true when it was such an execution.
   */
  async reopenNotStarted(organizationId: string, id: string): Promise<boolean> {
    const [, affected] = await this.db.query(
      `UPDATE executions SET status = 'running', error = NULL, finished_at = NULL
       WHERE organization_id = $1 AND id = $2 AND status = 'failed' AND error->>'message' = $3`,
      [organizationId, id, NOT_STARTED_MESSAGE],
    );
    return affected > 0;
  }

  async list(organizationId: string, f: ExecutionFilter): Promise<{ total: number; data: ListedExecution[] }> {
    const where = ['organization_id = $1'];
    const params: unknown[] = [organizationId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.workflowId) add('workflow_id = ?', f.workflowId);
    if (f.status) add('status = ?', f.status);
    if (f.mode) add('mode = ?', f.mode);
    if (f.triggerId) add('trigger_id = ?', f.triggerId);
    if (f.startedAfter) add('started_at >= ?', f.startedAfter);
    if (f.startedBefore) add('started_at < ?', f.startedBefore);
    if (f.parentExecutionId) add('parent_execution_id = ?', f.parentExecutionId);
    if (f.deliveryId) add('delivery_id = ?', f.deliveryId);
    const filter = where.join(' AND ');
    const [data, [{ total }]] = await Promise.all([
      this.db.query(`SELECT ${LIST_COLUMNS} FROM executions WHERE ${filter} ORDER BY started_at DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`, params),
      this.db.query(`SELECT count(*)::int AS total FROM executions WHERE ${filter}`, params),
    ]);
    return { total, data };
  }

  /** Records how a run ended, once: a later, different report (say, a cancel racing a completion) is ignored. */
  async finish(organizationId: string, id: string, status: ExecutionStatus, error: ExecutionRow['error'], finishedAt?: Date): Promise<void> {
    const [closed]: [Array<{ mode: string }>, number] = await this.db.query(
      `UPDATE executions SET status = $3, error = $4, finished_at = coalesce($5, now())
       WHERE organization_id = $1 AND id = $2 AND status IN ${OPEN_STATUS_SQL} RETURNING mode`,
      [organizationId, id, status, error ? JSON.stringify(error) : null, finishedAt ?? null],
    );
    // Counted by the statement that closed the record: once per run, however often the activity is retried.
    for (const row of closed) runsEnded.inc({ mode: bounded(row.mode, EXECUTION_MODES), status: bounded(status, EXECUTION_STATUSES) });
  }

  /**
   * One row per step and run, written only into an execution of the given
   * organization; a later attempt overwrites an earlier one, never a completed
   * record with a stale attempt's. Input and output sizes are stored with them,
   * so reads can leave large values in the database.
   */
  async recordStep(organizationId: string, executionId: string, s: StepRow, options: { completesRun?: boolean } = {}): Promise<void> {
    const step = `INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, input, output, input_bytes, output_bytes,
         error, started_at, finished_at, parent_step_id, sub_seq, sealed_output, usage)
       SELECT e.id, $3, $4, $5, $6, $7, v.input, v.output, octet_length(v.input::text), octet_length(v.output::text), $10, $11, $12, $13, $14, $15, $16
       FROM executions e, (SELECT $8::jsonb AS input, $9::jsonb AS output) v WHERE e.id = $2 AND e.organization_id = $1
       ON CONFLICT (execution_id, step_id) DO UPDATE SET status = EXCLUDED.status, attempt = EXCLUDED.attempt,
         input = EXCLUDED.input, output = EXCLUDED.output, input_bytes = EXCLUDED.input_bytes, output_bytes = EXCLUDED.output_bytes,
         error = EXCLUDED.error, sealed_output = EXCLUDED.sealed_output, usage = EXCLUDED.usage,
         started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at
       WHERE execution_steps.status <> 'completed' OR EXCLUDED.attempt > execution_steps.attempt`;
    // The run's last step completes the run in the same statement: one commit, not two.
    const sql = options.completesRun
      ? `WITH step AS (${step})
         UPDATE executions SET status = 'completed', finished_at = $12 WHERE organization_id = $1 AND id = $2 AND status IN ${OPEN_STATUS_SQL}
         RETURNING mode`
      : step;
    const result: unknown = await this.db.query(sql, [
      organizationId,
      executionId,
      s.stepId,
      s.stepType,
      s.seq,
      s.status,
      s.attempt,
      jsonOrNull(s.input),
      jsonOrNull(s.output),
      s.error,
      s.startedAt,
      s.finishedAt,
      s.parentStepId ?? null,
      s.subSeq ?? 0,
      s.sealedOutput ?? null,
      s.usage ? JSON.stringify(s.usage) : null,
    ]);
    if (options.completesRun) {
      const [closed] = result as [Array<{ mode: string }>, number];
      for (const row of closed) runsEnded.inc({ mode: bounded(row.mode, EXECUTION_MODES), status: 'completed' });
    }
    const seconds = (s.finishedAt.getTime() - s.startedAt.getTime()) / 1000;
    stepDuration.observe({ step_type: bounded(s.stepType, STEP_TYPES), status: bounded(s.status, ['completed', 'failed']) }, Math.max(0, seconds));
  }

  /**
   * The sub-steps of one step (an agent's model and tool calls) in order,
   * values in full: the agent rebuilds its conversation from them. Bounded
   * by the step's budgets (calls) and by what each record holds.
   */
  async subSteps(organizationId: string, executionId: string, parentStepId: string): Promise<StepRow[]> {
    return this.db.query(
      `SELECT s.step_id AS "stepId", s.step_type AS "stepType", s.seq, s.status, s.attempt, s.input, s.output, s.error,
              s.started_at AS "startedAt", s.finished_at AS "finishedAt", s.parent_step_id AS "parentStepId", s.sub_seq AS "subSeq", s.usage
       FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.parent_step_id = $3
       ORDER BY s.sub_seq LIMIT 1000`,
      [organizationId, executionId, parentStepId],
    );
  }

  /**
   * A run's step records in order; values larger than `limits.value` octets,
   * and every value once `limits.read` octets are inlined, are left out (see ReadStep).
   */
  async steps(organizationId: string, executionId: string, limits: { value: number; read: number }): Promise<ReadStep[]> {
    return this.db.query(
      `SELECT ${STEP_COLUMNS} FROM execution_steps s JOIN (${STEP_SIZES}) w ON w.step_id = s.step_id
       WHERE s.execution_id = $2 AND s.sub_seq < $5 AND EXISTS (SELECT 1 FROM executions e WHERE e.id = s.execution_id AND e.organization_id = $1)
       ORDER BY s.seq, s.sub_seq`,
      [organizationId, executionId, limits.value, limits.read, SUB_STEPS_READ_BELOW],
    );
  }

  /**
   * The run's LLM usage: the sums over its steps' usage, every record counted
   * (also those a read of the steps leaves out), an agent's model calls once,
   * through the agent step's sums; null when no step used a model.
   */
  async usage(organizationId: string, executionId: string): Promise<RunUsage | null> {
    const rows: Array<{ steps: number; inputTokens: string | null; outputTokens: string | null; cost: string | null; unpricedSteps: number }> =
      await this.db.query(
        `SELECT count(*)::int AS steps, sum((s.usage->>'inputTokens')::bigint) AS "inputTokens", sum((s.usage->>'outputTokens')::bigint) AS "outputTokens",
                sum((s.usage->>'cost')::numeric) AS cost, (count(*) FILTER (WHERE jsonb_typeof(s.usage->'cost') IS DISTINCT FROM 'number'))::int AS "unpricedSteps"
         FROM execution_steps s JOIN executions e ON e.id = s.execution_id
         WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.usage IS NOT NULL AND s.step_type <> $3`,
        [organizationId, executionId, MODEL_STEP_TYPE],
      );
    const row = rows[0];
    if (!row || row.steps === 0) return null;
    const num = (v: string | null) => (v === null ? null : Number(v));
    return { inputTokens: num(row.inputTokens), outputTokens: num(row.outputTokens), cost: num(row.cost), unpricedSteps: row.unpricedSteps };
  }

  /** How many sub-steps a read of the run's steps leaves out (a loop's items past the first SUB_STEPS_READ_ITEMS). */
  async omittedSubSteps(organizationId: string, executionId: string): Promise<number> {
    const rows: Array<{ n: number }> = await this.db.query(
      `SELECT count(*)::int AS n FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.sub_seq >= $3`,
      [organizationId, executionId, SUB_STEPS_READ_BELOW],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * One step's recorded input or output as the stored JSON text (`null` when
   * it has none); undefined when the organization has no such execution, null
   * when the execution has no such step.
   */
  async stepValueJson(organizationId: string, executionId: string, stepId: string, part: StepPart): Promise<string | null | undefined> {
    const column = part === 'input' ? 's.input' : 's.output';
    const rows: Array<{ found: boolean; json: string }> = await this.db.query(
      `SELECT s.step_id IS NOT NULL AS found, coalesce(${column}::text, 'null') AS json
       FROM executions e LEFT JOIN execution_steps s ON s.execution_id = e.id AND s.step_id = $3
       WHERE e.organization_id = $1 AND e.id = $2`,
      [organizationId, executionId, stepId],
    );
    if (!rows[0]) return undefined;
    return rows[0].found ? rows[0].json : null;
  }

  /** Outputs of the given steps of a run (those kept outside workflow history). */
  /** The step whose response answered the run's caller: its first completed top-level return step, if any. */
  async answeringStep(organizationId: string, executionId: string): Promise<string | undefined> {
    const rows: Array<{ stepId: string }> = await this.db.query(
      `SELECT s.step_id AS "stepId" FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.step_type = 'core.return' AND s.status = 'completed' AND s.sub_seq = 0
       ORDER BY s.seq LIMIT 1`,
      [organizationId, executionId],
    );
    return rows[0]?.stepId;
  }

  /** The output of a step this run already completed, or undefined. */
  async completedStepOutput(organizationId: string, executionId: string, stepId: string): Promise<unknown> {
    const rows: Array<{ output: unknown }> = await this.db.query(
      `SELECT s.output FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.step_id = $3 AND s.status = 'completed'`,
      [organizationId, executionId, stepId],
    );
    return rows[0]?.output;
  }

  /**
   * Deletes at most `limit` executions that started longer ago than their
   * organization's plan keeps them (`daysByPlan`), oldest first, never one
   * still open (running or waiting); their step records, sealed outputs and sealed answers go
   * with them (ON DELETE CASCADE). Rows another transaction holds are skipped,
   * so runs being written never wait on it. How many were deleted.
   */
  async pruneExpired(daysByPlan: Record<string, number>, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM executions WHERE id IN (
         SELECT e.id FROM executions e JOIN organizations o ON o.id = e.organization_id
          WHERE e.started_at < now() - make_interval(days => $2) AND e.status NOT IN ${OPEN_STATUS_SQL}
            AND e.started_at < now() - make_interval(days => ($1::jsonb ->> o.plan)::int)
          ORDER BY e.started_at LIMIT $3
          FOR UPDATE OF e SKIP LOCKED)`,
      [JSON.stringify(daysByPlan), Math.min(...Object.values(daysByPlan)), limit],
    );
    return deleted;
  }

  /** The recorded outputs of steps of the run, each with its sealed original when it has one. */
  async stepOutputs(organizationId: string, executionId: string, stepIds: string[]): Promise<Map<string, StoredOutput>> {
    const rows: Array<{ stepId: string; output: unknown; sealed: string | null }> = await this.db.query(
      `SELECT s.step_id AS "stepId", s.output, s.sealed_output AS sealed FROM execution_steps s JOIN executions e ON e.id = s.execution_id
       WHERE e.organization_id = $1 AND s.execution_id = $2 AND s.step_id = ANY($3)`,
      [organizationId, executionId, stepIds],
    );
    return new Map(rows.map((r) => [r.stepId, { output: r.output, sealed: r.sealed }]));
  }
}

const jsonOrNull = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
