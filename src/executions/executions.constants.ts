/**
 * The executions domain's fixed vocabularies and bounds, shared by the
 * schemas (the API's enums), the routes and the repository without any of
 * them importing another's module.
 */

/** `waiting`: parked at a `core.wait` step (a timer or an event); it goes on, so it is open like `running`. */
export type ExecutionStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out';
export const EXECUTION_STATUSES: ExecutionStatus[] = ['running', 'waiting', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out'];

/** The statuses of a run that has not ended; SQL reads them as OPEN_STATUS_SQL. */
export const OPEN_STATUSES: ReadonlySet<ExecutionStatus> = new Set(['running', 'waiting']);
export const OPEN_STATUS_SQL = `('running', 'waiting')`;

/**
 * How a run was started: a webhook call, the API, a test run, a rerun, a
 * schedule trigger, an agent step's workflow tool, a `core.workflow` step,
 * as the error workflow of a run that failed or was cancelled, or as a
 * replay from a step.
 */
export type ExecutionMode = 'webhook' | 'api' | 'test' | 'rerun' | 'schedule' | 'agent' | 'workflow' | 'error' | 'replay';
export const EXECUTION_MODES: ExecutionMode[] = ['webhook', 'api', 'test', 'rerun', 'schedule', 'agent', 'workflow', 'error', 'replay'];

/** The two recorded values of a step, each readable in full at /executions/{id}/steps/{stepId}/{part}. */
export type StepPart = 'input' | 'output';
export const STEP_PARTS: StepPart[] = ['input', 'output'];

/** Bounds of an input summary's keys (the migration that backfilled summaries repeats them). */
export const SUMMARY_KEYS = 10;
export const SUMMARY_KEY_CHARS = 64;
