import { MODEL_STEP_TYPE } from '../../workflows/agent.types';
import { NOT_STARTED_MESSAGE } from '../executions/executions.repository';
import { literal } from '../db/sql';
import type { FieldDefinition } from './data-sources.schemas';

/**
 * The built-in sources over an organization's own runs (issue 41, "Runs as
 * data"): what their Cube models read and which members they have. Their rows
 * in data_sources are built-in-sources.ts's; a row of one of these types,
 * loaded, carries its model (AnalyticsSource.builtIn), which cube/model.ts
 * renders instead of a model over a serving relation.
 *
 * The SQL reads the live tables (executions, execution_steps, workflows), so
 * retention's deletions leave the source with the runs; every statement names
 * the organization as a checked UUID literal, never text a caller sent.
 */

export const RUNS_TYPE = 'flowbase:runs';
export const RUN_STEPS_TYPE = 'flowbase:run-steps';
export type BuiltInType = typeof RUNS_TYPE | typeof RUN_STEPS_TYPE;

/** A member of a built-in model: a column of its SELECT (dimension) or an aggregate (measure), in Cube's terms. */
export interface BuiltInMember {
  title: string;
  type: string;
  /** Measures only: the aggregate over `${CUBE}` columns; a dimension reads its own column. */
  sql?: string;
  /** Cube's format of the values (`currency`: the console writes them as money). */
  format?: 'currency';
}

export interface BuiltInModel {
  name: string;
  /** The rows: one per run, or one per step record; `__key` unique. */
  sql(organizationId: string): string;
  dimensions: Record<string, BuiltInMember>;
  measures: Record<string, BuiltInMember>;
  /** The dimension that is the source's time dimension (the run's or the step's start). */
  time: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization as a SQL literal; anything but a UUID is a bug upstream, refused before it reaches SQL. */
function organizationLiteral(organizationId: string): string {
  if (!UUID.test(organizationId)) throw new Error(`Not an organization id: ${JSON.stringify(organizationId)}`);
  return literal(organizationId.toLowerCase());
}

const col = (name: string) => '${CUBE}.' + `"${name}"`;
/** A number over the group: percentiles of a duration column (PostgreSQL's ordered-set aggregate; NULLs, the runs still open, are skipped). */
const percentile = (fraction: number, column: string) => `percentile_cont(${fraction}) WITHIN GROUP (ORDER BY ${col(column)})`;
const countWhere = (condition: string) => `sum(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
const rateOf = (condition: string) => `round(1.0 * ${countWhere(condition)} / NULLIF(count(*), 0), 4)`;

/**
 * A failed run's error code, from what the run records: `step_failed` (a step
 * failed: failedStep names it), `not_started` (Temporal never accepted the
 * run), `internal_error`; a run that was cancelled, terminated or timed out
 * has its status as its code. A code the record carries itself wins.
 */
const ERROR_CODE_SQL = `CASE
      WHEN e.status = 'failed' THEN coalesce(e.error->>'code', CASE
        WHEN e.error->>'stepId' IS NOT NULL THEN 'step_failed'
        WHEN e.error->>'message' = ${literal(NOT_STARTED_MESSAGE)} THEN 'not_started'
        ELSE 'internal_error' END)
      WHEN e.status IN ('cancelled', 'terminated', 'timed_out') THEN e.status END`;

/** Milliseconds from start to end; NULL while the run (or step) is open. */
const durationSql = (alias: string) => `(extract(epoch FROM ${alias}.finished_at - ${alias}.started_at) * 1000)::float8`;

/**
 * The usage columns of a step record, counted once: an agent's model calls have records of their own, and the
 * agent step's usage sums them. A run's figures take the agent step's sums (as ExecutionsRepository.usage does, so
 * they equal the run's usage); the step rows take each call's own, under the model that answered it.
 */
const usageOf = (s: string, key: 'inputTokens' | 'outputTokens' | 'cost', type: string, skipped: string) =>
  `CASE WHEN ${s}.step_type <> ${literal(skipped)} THEN (${s}.usage->>${literal(key)})::${type} END`;
const AGENT_STEP_TYPE = 'ai.agent';

const RUN_DIMENSIONS: Record<string, BuiltInMember> = {
  startedAt: { title: 'Started at', type: 'time' },
  workflow: { title: 'Workflow', type: 'string' },
  workflowId: { title: 'Workflow id', type: 'string' },
  version: { title: 'Version', type: 'number' },
  mode: { title: 'Mode', type: 'string' },
};

const TOKEN_MEASURES: Record<string, BuiltInMember> = {
  inputTokens: { title: 'Input tokens', type: 'sum', sql: col('inputTokens') },
  outputTokens: { title: 'Output tokens', type: 'sum', sql: col('outputTokens') },
  tokens: { title: 'Tokens', type: 'sum', sql: `coalesce(${col('inputTokens')}, 0) + coalesce(${col('outputTokens')}, 0)` },
  cost: { title: 'Cost (USD)', type: 'sum', sql: col('cost'), format: 'currency' },
};

/** One row per run: what GET /executions lists, with each run's model usage summed over its steps. */
export const RUNS_MODEL: BuiltInModel = {
  name: 'Runs',
  time: 'startedAt',
  // Usage per run as scalar subqueries over the run's own steps: a query's date range bounds them with the runs, and
  // one reading no usage column computes none (an aggregate over every step of the organization did both neither).
  // The workflows join is removable too: PostgreSQL leaves it out when no name is read.
  sql: (organizationId) => {
    const org = organizationLiteral(organizationId);
    const usage = (key: 'inputTokens' | 'outputTokens' | 'cost', type: string) =>
      `(SELECT sum(${usageOf('s', key, type, MODEL_STEP_TYPE)}) FROM execution_steps s WHERE s.execution_id = e.id AND s.usage IS NOT NULL)`;
    return `SELECT e.id AS "__key", e.id AS "runId", e.started_at AS "startedAt", e.finished_at AS "finishedAt",
      coalesce(w.name, e.workflow_name) AS "workflow", e.workflow_id::text AS "workflowId", e.workflow_version AS "version",
      e.trigger_name AS "trigger", e.trigger_id::text AS "triggerId", e.mode AS "mode", e.status AS "status",
      e.error->>'stepId' AS "failedStep", ${ERROR_CODE_SQL} AS "errorCode", ${durationSql('e')} AS "durationMs",
      ${usage('inputTokens', 'bigint')} AS "inputTokens", ${usage('outputTokens', 'bigint')} AS "outputTokens", ${usage('cost', 'numeric')} AS "cost"
    FROM executions e
    LEFT JOIN workflows w ON w.id = e.workflow_id AND w.organization_id = e.organization_id
    WHERE e.organization_id = ${org}`;
  },
  dimensions: {
    ...RUN_DIMENSIONS,
    runId: { title: 'Run id', type: 'string' },
    finishedAt: { title: 'Finished at', type: 'time' },
    trigger: { title: 'Trigger', type: 'string' },
    triggerId: { title: 'Trigger id', type: 'string' },
    status: { title: 'Status', type: 'string' },
    failedStep: { title: 'Failed step', type: 'string' },
    errorCode: { title: 'Error code', type: 'string' },
    durationMs: { title: 'Duration (ms)', type: 'number' },
  },
  measures: {
    count: { title: 'Runs', type: 'count', sql: '*' },
    failures: { title: 'Failures', type: 'number', sql: countWhere(`${col('status')} = 'failed'`) },
    failureRate: { title: 'Failure rate', type: 'number', sql: rateOf(`${col('status')} = 'failed'`) },
    durationAvg: { title: 'Average duration (ms)', type: 'avg', sql: col('durationMs') },
    durationP50: { title: 'p50 duration (ms)', type: 'number', sql: percentile(0.5, 'durationMs') },
    durationP95: { title: 'p95 duration (ms)', type: 'number', sql: percentile(0.95, 'durationMs') },
    ...TOKEN_MEASURES,
  },
};

/**
 * One row per step record (an agent's model calls and tool calls, and a loop's items, are records of their own).
 * Provider, model, tokens and cost are each model call's: an ai.llm-call step's, or an agent's call's (the agent
 * step's row has none, its calls have them), so figures by model count every call once.
 */
export const RUN_STEPS_MODEL: BuiltInModel = {
  name: 'Run steps',
  time: 'startedAt',
  sql: (organizationId) => {
    const org = organizationLiteral(organizationId);
    return `SELECT s.execution_id || '/' || s.step_id AS "__key", s.execution_id AS "runId", s.step_id AS "stepId", s.step_type AS "stepType",
      s.status AS "stepStatus", s.attempt AS "attempt", e.started_at AS "startedAt", s.started_at AS "stepStartedAt", ${durationSql('s')} AS "durationMs",
      coalesce(w.name, e.workflow_name) AS "workflow", e.workflow_id::text AS "workflowId", e.workflow_version AS "version",
      e.mode AS "mode", e.status AS "runStatus",
      CASE WHEN s.step_type <> ${literal(AGENT_STEP_TYPE)} THEN s.usage->>'provider' END AS "provider",
      CASE WHEN s.step_type <> ${literal(AGENT_STEP_TYPE)} THEN s.usage->>'model' END AS "model",
      ${usageOf('s', 'inputTokens', 'bigint', AGENT_STEP_TYPE)} AS "inputTokens", ${usageOf('s', 'outputTokens', 'bigint', AGENT_STEP_TYPE)} AS "outputTokens",
      ${usageOf('s', 'cost', 'numeric', AGENT_STEP_TYPE)} AS "cost"
    FROM execution_steps s
    JOIN executions e ON e.id = s.execution_id
    LEFT JOIN workflows w ON w.id = e.workflow_id AND w.organization_id = e.organization_id
    WHERE e.organization_id = ${org}`;
  },
  dimensions: {
    ...RUN_DIMENSIONS,
    // The time dimension is the run's start, as in Runs: a date range then reads the organization's runs by their index.
    startedAt: { title: 'Run started at', type: 'time' },
    stepStartedAt: { title: 'Step started at', type: 'time' },
    runId: { title: 'Run id', type: 'string' },
    runStatus: { title: 'Run status', type: 'string' },
    stepId: { title: 'Step', type: 'string' },
    stepType: { title: 'Step type', type: 'string' },
    stepStatus: { title: 'Step status', type: 'string' },
    attempt: { title: 'Attempt', type: 'number' },
    provider: { title: 'Provider', type: 'string' },
    model: { title: 'Model', type: 'string' },
    durationMs: { title: 'Duration (ms)', type: 'number' },
  },
  measures: {
    count: { title: 'Steps', type: 'count', sql: '*' },
    failures: { title: 'Failures', type: 'number', sql: countWhere(`${col('stepStatus')} = 'failed'`) },
    failureRate: { title: 'Failure rate', type: 'number', sql: rateOf(`${col('stepStatus')} = 'failed'`) },
    durationAvg: { title: 'Average duration (ms)', type: 'avg', sql: col('durationMs') },
    durationP50: { title: 'p50 duration (ms)', type: 'number', sql: percentile(0.5, 'durationMs') },
    durationP95: { title: 'p95 duration (ms)', type: 'number', sql: percentile(0.95, 'durationMs') },
    ...TOKEN_MEASURES,
  },
};

export const BUILT_IN_MODELS: Record<BuiltInType, BuiltInModel> = { [RUNS_TYPE]: RUNS_MODEL, [RUN_STEPS_TYPE]: RUN_STEPS_MODEL };

export const isBuiltInType = (type: string): type is BuiltInType => Object.hasOwn(BUILT_IN_MODELS, type);

/** What cube/model.ts renders for a built-in source: its SELECT for one organization, and its members. */
export interface BuiltInCube {
  sql: string;
  dimensions: Record<string, BuiltInMember>;
  measures: Record<string, BuiltInMember>;
}

/** The model of a built-in source of `type` over the organization's runs; undefined for any other type. */
export function builtInCube(type: string, organizationId: string): BuiltInCube | undefined {
  if (!isBuiltInType(type)) return undefined;
  const model = BUILT_IN_MODELS[type];
  return { sql: model.sql(organizationId), dimensions: model.dimensions, measures: model.measures };
}

const FIELD_TYPES: Record<string, FieldDefinition['type']> = { time: 'date', string: 'string', number: 'number' };

/**
 * The record schema a built-in row carries: its dimensions as fields (the start its time dimension) and its summed
 * measures as measure fields, so the pages and checks that read a source's fields see what it holds. The model
 * itself comes from BUILT_IN_MODELS, never from the row.
 */
export function builtInRecordSchema(type: BuiltInType): { name: string; fields: Record<string, FieldDefinition>; calculatedFields: [] } {
  const model = BUILT_IN_MODELS[type];
  const fields: Record<string, FieldDefinition> = {};
  for (const [name, d] of Object.entries(model.dimensions)) {
    fields[name] = { type: FIELD_TYPES[d.type], label: d.title, ...(name === model.time ? { timeDimension: true } : {}) };
  }
  for (const [name, m] of Object.entries(model.measures)) if (m.type === 'sum') fields[name] = { type: 'number', label: m.title, measure: true };
  return { name: model.name, fields, calculatedFields: [] };
}
