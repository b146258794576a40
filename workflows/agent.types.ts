// The ai.agent step's activities as the workflow calls them: requests carry
// references (step ids, sub-step positions, tool call ids), never the
// conversation, which stays in the step's sub-step records.
import { MAX_NESTING_DEPTH } from './child-run.types';
import type { RunInput, StepRequest } from './run.types';

export { AGENT_LIMITS } from './agent-limits';

/**
 * Runs started by agent workflow tools nest at most this deep: the one
 * nesting bound (child-run.types.ts), shared with core.workflow steps.
 */
export const MAX_AGENT_DEPTH = MAX_NESTING_DEPTH;

/** The step types of an agent's sub-step records: a model call and a tool call (activities/agent/sub-steps.ts). */
export const MODEL_STEP_TYPE = 'ai.agent.model';
export const TOOL_STEP_TYPE = 'ai.agent.tool';

/** An agent step starts at most this many child runs: with the depth limit, one run fans out to at most 10³ others, not 200³. */
export const MAX_CHILD_RUNS_PER_STEP = 10;

/**
 * One call of an agent step: which step of which run, and where this call's
 * sub-step record goes. Sub-step ids are `<stepId>.model-<n>` (the n-th model
 * call, the final structured answer included) and `<stepId>.tool-<n>` (the
 * n-th tool call); `subSeq` orders them after the step's own record (0).
 * `context` holds earlier outputs by reference, as a regular step activity's does.
 */
export interface AgentCall {
  run: StepRequest['run'];
  step: StepRequest['step'];
  seq: number;
  context: StepRequest['context'];
  subSeq: number;
  /** As the step's own request: its tools' templates keep a lone expression's type. */
  typedValues?: boolean;
}

/** Token use of one model call, or summed over the step. */
export interface AgentUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * A model call: the conversation so far is rebuilt from the sub-step records
 * (prompts rendered again, then each earlier model turn and tool result).
 * `final`: the structured answer call (output_schema set): no tools offered,
 * the answer must match the schema; `reason` says why the loop ended.
 */
export interface AgentModelCallRequest extends AgentCall {
  /** 1-based; the sub-step is `<stepId>.model-<iteration>`. */
  iteration: number;
  final?: { reason: 'answered' | 'budget'; budget?: AgentBudget };
}

export interface AgentModelCallResult {
  /** The tools the model asked for, in its order; empty when it answered. */
  toolCalls: Array<{ callId: string; tool: string }>;
  usage: AgentUsage;
}

export type AgentBudget = 'maxIterations' | 'maxToolCalls' | 'maxTotalTokens' | 'timeoutSeconds';

/**
 * A tool call the model asked for in model call `modelIteration`, by its
 * call id; recorded as `<stepId>.tool-<toolCallNumber>`. A bad argument or a
 * failing tool is recorded and goes back to the model as the tool's error:
 * the activity fails only on its own faults (database, worker).
 */
export interface AgentToolCallRequest extends AgentCall {
  modelIteration: number;
  callId: string;
  tool: string;
  toolCallNumber: number;
}

export interface AgentToolCallResult {
  ok: boolean;
}

/**
 * A workflow tool call, before its child run starts: arguments validated,
 * the workflow found (its current version), the child's execution row
 * written. `refused`: the tool error is already recorded for the model.
 */
export interface AgentChildPrepareRequest extends AgentToolCallRequest {
  /** The calling run's nesting depth (RunInput.agentDepth); the child runs at depth + 1. */
  depth: number;
  /** The calling run is an error workflow's run, or descends from one: the child starts no error workflow either. */
  errorRun?: boolean;
  /** 1 for the step's first workflow tool call, and so on; past MAX_CHILD_RUNS_PER_STEP the call is refused. */
  childRunNumber: number;
}
export type AgentChildPrepareResult = { kind: 'start'; executionId: string; input: RunInput } | { kind: 'refused' };

/** After the child run ended: its answer (return body, else its last step's output) or its failure recorded as the tool result. */
export interface AgentChildFinishRequest extends AgentToolCallRequest {
  executionId: string;
  outcome: { status: 'completed' } | { status: 'failed'; message: string };
}

/**
 * Ends the step: its own record (sub_seq 0) with the rendered prompts as
 * input and, when completed, the output `{ text, object?, toolCalls,
 * iterations, usage, stoppedBy? }` built from the sub-step records, always
 * offloaded (it repeats the conversation in brief).
 */
export interface AgentFinishRequest extends AgentCall {
  outcome: { status: 'completed'; stoppedBy?: AgentBudget } | { status: 'failed'; message: string };
  iterations: number;
  usage: AgentUsage;
}
