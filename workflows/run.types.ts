// Shared by the API (which starts and awaits runs), the interpreter workflow and
// the activities: types, the update both sides name, pure helpers. No I/O here.
import { defineUpdate, type Sinks } from '@temporalio/workflow';
import type { StepDefinition } from '../src/workflows/definition.schemas';
import { carryResult, contextOf, type StepContext, type StepResult } from './step-context';

export type { StepResult };

export type { StepDefinition };

/** The Temporal workflow type every definition runs as. */
export const INTERPRETER_WORKFLOW = 'runWorkflowDefinition';

/** What Temporal's Web UI shows of a run, whichever way it started (runSummary, runDetails). */
export interface RunPresentation {
  organizationId: string;
  /** The version is left out where it is not known yet (a schedule's runs read it as they begin). */
  workflow: { id: string; name: string; version?: number };
  /** An ExecutionMode (src/executions/executions.constants.ts). */
  mode: string;
  trigger?: { id: string; name: string };
  /** What else started it, for the details: the run an agent's tool call came from, the execution a rerun reruns. */
  origin?: string;
}

/**
 * A run's one-line static summary in Temporal, alike for every start path:
 * `orders v3 (webhook, trigger new-order, org <organization id>)`. The
 * organization is named by its id: every start path (workflow code and
 * schedules included) has it without a query, and it is what the
 * OrganizationId search attribute filters by. Names are at most 100 ASCII
 * characters, so it stays well below Temporal's 400-byte summary limit.
 */
export function runSummary(run: RunPresentation): string {
  const version = run.workflow.version === undefined ? '' : ` v${run.workflow.version}`;
  const trigger = run.trigger ? `, trigger ${run.trigger.name}` : '';
  return `${run.workflow.name}${version} (${run.mode}${trigger}, org ${run.organizationId})`;
}

/** The run's static details in Temporal (a markdown list): the ids behind the summary's names, and its origin. */
export function runDetails(run: RunPresentation): string {
  const facts = [
    `Workflow: ${run.workflow.name} (${run.workflow.id})${run.workflow.version === undefined ? '' : `, version ${run.workflow.version}`}`,
    `Mode: ${run.mode}`,
    ...(run.trigger ? [`Trigger: ${run.trigger.name} (${run.trigger.id})`] : []),
    `Organization: ${run.organizationId}`,
    ...(run.origin ? [`Started by: ${run.origin}`] : []),
  ];
  return facts.map((fact) => `- ${fact}`).join('\n');
}

/** A `core.http` step without `timeoutMs` waits this long (the activity and its Temporal timeout agree on it). */
export const HTTP_DEFAULT_TIMEOUT_MS = 30_000;

/** Everything a run needs, pinned when it starts: later edits to the workflow never reach it. */
export interface RunInput {
  organizationId: string;
  workflow: { id: string; name: string; version: number };
  trigger?: { id: string; name: string };
  /** Resolved by activities, never here: values are secrets. */
  environmentId?: string;
  /**
   * Left out for a run an agent's workflow tool starts: its input is the
   * model's arguments, part of the conversation, kept out of history; the
   * steps read it from the execution record.
   */
  initial?: Record<string, unknown>;
  steps: StepDefinition[];
  /**
   * The run's nesting depth: how many runs started it, one inside the other,
   * through core.workflow steps and agent workflow tools (0 or absent: started
   * by a trigger, the API or as an error workflow). Named for the agent tools
   * that came first; kept so for runs already in flight.
   */
  agentDepth?: number;
  /**
   * This run is an error workflow's run, or was started by one (through its
   * core.workflow steps or agent tools): when it fails, it starts no error
   * workflow, so error workflows never start one another.
   */
  errorRun?: boolean;
  /** A replay from a step: which steps it takes from the original instead of running them. */
  replay?: ReplayInput;
}

/**
 * What a replay's interpreter needs, step ids only (outputs stay in the
 * records, out of history): the steps before `fromStepId` whose records were
 * copied into the run before it started, and for each of those that holds
 * steps (`core.if`, `core.wait`) which nested steps the walk goes through.
 */
export interface ReplayInput {
  of: string;
  fromStepId: string;
  reused: string[];
  paths: Record<string, 'then' | 'else' | 'onTimeout'>;
}

export interface WebhookResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What a synchronous caller is told, as soon as it is known. */
export type CallerReply =
  /**
   * `sealed`: the response holds secrets, so this copy is masked; the caller
   * gets the sealed original. A large response stays in its return step's
   * record, named by `record` instead (src/executions/reply-resolver.ts resolves both).
   */
  | { kind: 'response'; response: WebhookResponse; sealed?: boolean }
  | { kind: 'response'; record: string; sealed?: boolean }
  | { kind: 'completed' }
  | { kind: 'failed'; stepId?: string; message: string; code?: string }
  | { kind: 'cancelled' }
  /** The run parked at a `core.wait` step before it answered: the caller hears so at once, not at its timeout. */
  | { kind: 'waiting'; stepId: string; event?: string };

export interface RunResult {
  response?: WebhookResponse;
  stepsRun: number;
}

/**
 * Outputs above this size (UTF-8 bytes of their JSON) stay out of workflow history:
 * Temporal warns at 256 KB per payload and fails at 2 MB. The output is kept
 * in the execution's step record and referenced instead.
 */
export const STEP_INLINE_LIMIT = 128 * 1024;

/**
 * All outputs a run keeps in history together stay under this: local
 * activity results travel to Temporal in one message (4 MB gRPC limit), so
 * many medium outputs must not add up past it. Past the budget, outputs are
 * offloaded whatever their size.
 */
export const RUN_INLINE_BUDGET = 1024 * 1024;

/** What each step activity receives. `context` holds earlier outputs, or where they are (StepContext). */
export interface StepRequest {
  /** `workflowId` labels the step's trace spans; absent in requests of runs started before it was added. */
  run: { executionId: string; organizationId: string; workflowId?: string; environmentId?: string };
  step: StepDefinition;
  seq: number;
  /** `initial` is left out (undefined) where the request itself is kept in history; the activity reads it from the execution. */
  context: StepContext;
  /** The output is offloaded when its JSON is longer than this (see RUN_INLINE_BUDGET). */
  offloadAboveBytes: number;
  /** A return step whose response is the run's answer (the first one reached): it seals that answer when it holds secrets. */
  answersCaller?: boolean;
  /** The run's last step: its completed record and the run's completion are one write, and no run-end activity follows. */
  endsRun?: boolean;
  /** A lone `{{ expression }}` keeps its number, boolean or null (runs started since the `typed-values` patch). */
  typedValues?: boolean;
  /** A loop item's step: recorded as a sub-step of the loop (its `step.stepId` is the record's own, `<loop>[<index>].<stepId>`). */
  parent?: { stepId: string; subSeq: number };
}

/** An item's place among its loop's records: sub_seq is `index * LOOP_SUB_SEQ_SPAN + position` of the body step (positions stay below it). */
export const LOOP_SUB_SEQ_SPAN = 1000;

/** What `loopBegin` settled: how many items, when the loop began (its record's start, epoch ms), and its batches' name. */
export interface LoopBegun {
  count: number;
  begunAt: number;
  /**
   * What the loop's batches are named after (`<batchName>.<from>`): the
   * execution and the loop step, settled by the activity so a replay of the
   * history, under any workflow id, names them as the run did.
   */
  batchName: string;
}

/** `loopEnd` records the loop from its items' records; `failed`: an item failed with `onItemError: fail` and ended the loop. */
export interface LoopEndRequest extends StepRequest {
  begunAt: number;
  count: number;
  /** What ended the loop early: an item's failure (`onItemError: fail`), or a batch that failed as a whole. */
  failed?: LoopFailure;
}

export type LoopFailure = { kind: 'item'; index: number; message: string } | { kind: 'batch'; from: number; to: number; message: string };

/** The size above which a step's output is offloaded, given what the run's inline budget has left. */
export const inlineLimit = (budget: number) => Math.max(1024, Math.min(STEP_INLINE_LIMIT, budget));

/**
 * Step types that may run together with the return step right after them
 * in one local activity (`stepThenReturn`): each is one activity of its own
 * otherwise, and none needs the workflow between it and the answer (a
 * branch does, and the others are several activities or regular ones).
 */
export const RUNS_AHEAD_OF_RETURN = {
  'core.http': 'httpStep',
  'core.set': 'setStep',
  'data-store.get': 'dataStoreGetStep',
  'data-store.set': 'dataStoreSetStep',
} as const;

/**
 * A step and the return step after it, in one local activity. `answer` gets
 * the first step's context with its output added, and its offload limit
 * from the budget left after it.
 */
export interface StepThenReturnRequest {
  first: StepRequest;
  answer: Omit<StepRequest, 'context' | 'offloadAboveBytes'>;
  /** The run's inline budget before the first step. */
  inlineBudget: number;
}

/** The return step's request once the step before it ran: that step's output added to its context, the offload limit from the budget left. */
export function answerAfter({ first, answer, inlineBudget }: StepThenReturnRequest, ran: StepResult): StepRequest {
  const context = contextOf(first);
  const after: StepContext = { ...context, steps: { ...context.steps }, refs: { ...context.refs } };
  carryResult(after, first.step.stepId, first.step.stepId, ran);
  return { ...answer, context: after, offloadAboveBytes: inlineLimit(inlineBudget - ran.bytes) };
}

/**
 * The first step's result, and the return step's, or how it failed: that
 * failure is no failure of the activity, which would run the first step
 * again when retried; the workflow retries the return step alone.
 */
export type StepThenReturnResult =
  { first: StepResult; answer: StepResult } | { first: StepResult; answerFailed: { message: string; type?: string; nonRetryable: boolean } };

export interface RunEnd {
  executionId: string;
  organizationId: string;
  status: 'completed' | 'failed' | 'cancelled';
  error?: { stepId?: string; message: string };
}

/** An event for a run parked at an event wait: POST /executions/{id}/events/{name} (`api`) or a resume link (`link`). */
export interface RunEvent {
  name: string;
  /** The wait step the sender's check (schema, link) was made against: the run takes it only there. */
  stepId: string;
  payload: unknown;
  via: 'api' | 'link';
}

/**
 * Delivers an event to the wait expecting it; refused (by the validator,
 * leaving no trace in history) when the run waits for no such event. Answers
 * the sender with what the run tells next: the next return step's response,
 * that it waits again, or how it ended.
 */
export const deliverEventUpdate = defineUpdate<CallerReply, [RunEvent]>('deliverEvent');

/** What `waitBegin` settled: when the wait ends by itself (epoch ms; an event wait's timeout), and its event. */
export interface WaitBegun {
  wakesAt: number;
  event?: string;
  /** When the wait began (epoch ms): the step record's start. */
  begunAt: number;
}

/** How a wait ended, for `waitEnd` to record: the event that came, its time reached, or an event wait's timeout. */
export type WaitOutcome = { kind: 'event'; event: RunEvent } | { kind: 'time' } | { kind: 'timeout' };

export interface WaitEndRequest extends StepRequest {
  outcome: WaitOutcome;
  begunAt: number;
  /** When the wait was to end by itself (epoch ms): the timer, the deadline, an event's timeout. */
  wakesAt: number;
}

/** Waits for the run's answer: the first return step's response, or how the run ended without one. */
export const awaitReplyUpdate = defineUpdate<CallerReply>('awaitAnswer');

/** Where a run settled: parked at a `core.wait` step (for as long as the wait lasts), or ended. */
export type RunSettled = 'waiting' | 'ended';

/**
 * Waits until the run parks at a wait or ends, whatever it answered before: a
 * caller awaiting the run's end (test runs, synchronous API runs) learns that
 * a run which answered and then parked will not end soon.
 */
export const awaitSettledUpdate = defineUpdate<RunSettled>('awaitSettled');

/**
 * The answer handed to the worker's own process as soon as the workflow has
 * it: a sink, so it is not in history and not called on replay. A caller
 * waiting in that process (the API beside the worker) takes it from there
 * without the update's round trip through Temporal.
 */
export interface ReplySinks extends Sinks {
  callerReplies: { answered(answer: CallerReply): void };
}
