import type { ApiAnswer, ApiSchema } from '../../api/schemas';

/**
 * Executions as GET /executions and GET /executions/{id} answer them
 * (src/executions/executions.schemas.ts), and what the run pages derive from
 * them: the tree of steps and sub-steps, an agent step's token use, the run's answer.
 */

export const EXECUTION_STATUSES = [
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
] as const satisfies readonly Execution['status'][];
export const EXECUTION_MODES = [
  'webhook',
  'api',
  'test',
  'rerun',
  'schedule',
  'agent',
  'workflow',
  'error',
  'replay',
] as const satisfies readonly Execution['mode'][];
/** The statuses of an ended run: the only runs a replay may start from. */
export const ENDED_STATUSES = ['completed', 'failed', 'cancelled', 'terminated', 'timed_out'] as const;

/** Where a step value too large to inline (null in its place) is read in full. */
export type OmittedValue = ApiSchema<'OmittedStepValue'>;

export type Execution = ApiSchema<'Execution'>;
export type ExecutionListItem = ApiSchema<'ExecutionListItem'>;
export type ExecutionList = ApiAnswer<'/executions', 'get'>;
/** One recorded step; a replay's steps carry `replay`: whether the original's output was reused (or replaced) and whether it differs. */
export type ExecutionStep = NonNullable<Execution['steps']>[number];
/** How a replay's step relates to the same step of the original run (GET /executions/{id}, mode `replay`). */
export type ReplayMark = NonNullable<ExecutionStep['replay']>;
/** A core.wait step the run is parked at: an event (with the JSON Schema its payload must match) or a timer. */
export type ExecutionWait = ApiSchema<'ExecutionWait'>;
export type RunStarted = ApiSchema<'RunStarted'>;
export type ReplayStarted = ApiSchema<'ReplayStarted'>;
export type BulkReplayProgress = ApiSchema<'BulkReplayProgress'>;
export type BulkReplayPreview = ApiSchema<'BulkReplayPreview'>;
export type BulkReplayStarted = ApiSchema<'BulkReplayStarted'>;
/** The lists the run filters and the bulk replay form pick from. */
export type WorkflowList = ApiAnswer<'/workflows', 'get'>;
export type WebhookTriggerList = ApiAnswer<'/webhook-triggers', 'get'>;
export type ScheduleTriggerList = ApiAnswer<'/schedule-triggers', 'get'>;

/** Still going: running, or parked at a wait (both refresh, both may be cancelled). */
export const isFinished = (status: string) => status !== 'running' && status !== 'waiting';

/**
 * A step with what is recorded under it: sub-steps (an agent's model and tool
 * calls, a loop's item records) and, when the definition is known, the steps
 * of the branch or timeout path it took (`inner`, each with its `branch`).
 */
export interface StepNode {
  step: ExecutionStep;
  children: ExecutionStep[];
  inner: StepNode[];
  /** For a step inside a core.if branch or a wait's timeout path: which (then, else, timeout). */
  branch?: string;
}

/** Where a step sits in the definition: the core.if or core.wait holding it, and the branch. */
export type BranchParents = ReadonlyMap<string, { parent: string; branch: string }>;

/** The steps the definition nests in branches and timeout paths, by id (loop bodies are recorded as sub-steps already). */
export function branchParents(steps: unknown, into = new Map<string, { parent: string; branch: string }>()): BranchParents {
  if (!Array.isArray(steps)) return into;
  for (const step of steps as Array<{ stepId?: string; stepType?: string; input?: Record<string, unknown> }>) {
    if (!step?.stepId || !step.input) continue;
    const keys = step.stepType === 'core.if' ? { then: 'then', else: 'else' } : step.stepType === 'core.wait' ? { onTimeout: 'timeout' } : {};
    for (const [key, branch] of Object.entries(keys)) {
      const nested = step.input[key];
      if (!Array.isArray(nested)) continue;
      for (const s of nested as Array<{ stepId?: string }>) if (s?.stepId) into.set(s.stepId, { parent: step.stepId, branch });
      branchParents(nested, into);
    }
  }
  return into;
}

/** Top-level steps in the order they ran, each with its sub-steps, and branch steps under the step that chose them. */
export function stepTree(steps: ExecutionStep[], branches?: BranchParents): StepNode[] {
  const nodes = new Map<string, StepNode>();
  const roots: StepNode[] = [];
  for (const step of steps) {
    if (step.parentStepId === null) {
      const node: StepNode = { step, children: [], inner: [] };
      nodes.set(step.stepId, node);
      roots.push(node);
    }
  }
  for (const step of steps) {
    if (step.parentStepId !== null) {
      const parent = nodes.get(step.parentStepId);
      if (parent) parent.children.push(step);
      else roots.push({ step, children: [], inner: [] });
    }
  }
  if (!branches) return roots;
  // A branch's step goes under the step that chose it, when that step was recorded; else it stays where it ran.
  return roots.filter((node) => {
    const place = branches.get(node.step.stepId);
    const parent = place && nodes.get(place.parent);
    if (!parent || parent === node) return true;
    node.branch = place.branch;
    parent.inner.push(node);
    return false;
  });
}

export const MODEL_STEP_TYPE = 'ai.agent.model';
export const TOOL_STEP_TYPE = 'ai.agent.tool';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A model call's token use, from its recorded output `{ …, usage: { inputTokens, outputTokens } }`. */
export function usageOf(step: ExecutionStep): TokenUsage | undefined {
  const output = step.output as { usage?: Partial<TokenUsage> } | null;
  if (!output || typeof output !== 'object' || !output.usage) return undefined;
  return { inputTokens: output.usage.inputTokens ?? 0, outputTokens: output.usage.outputTokens ?? 0 };
}

/** The tokens of all of an agent step's model calls. */
export function totalUsage(children: ExecutionStep[]): TokenUsage | undefined {
  const usages = children.filter((c) => c.stepType === MODEL_STEP_TYPE).map(usageOf);
  if (usages.length === 0) return undefined;
  return usages.reduce<TokenUsage>(
    (sum, u) => ({ inputTokens: sum.inputTokens + (u?.inputTokens ?? 0), outputTokens: sum.outputTokens + (u?.outputTokens ?? 0) }),
    { inputTokens: 0, outputTokens: 0 },
  );
}

/** What a step's model calls used, as recorded with it (ai.llm-call, ai.agent and its calls): tokens and USD cost. */
export type StepUsage = NonNullable<ExecutionStep['usage']>;
export type RunUsage = NonNullable<Execution['usage']>;

/** USD to the micro-dollar the service records, trailing zeros dropped past the cents: $0.75, $0.000036. */
export function formatCost(usd: number): string {
  const [whole, fraction] = usd.toFixed(6).split('.');
  return `$${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}

const count = (n: number | null) => (n === null ? '?' : n.toLocaleString());

/** One line for a step's recorded usage: tokens, and the cost or why there is none. */
export function usageText(u: StepUsage): string {
  const cost = u.cost === null ? `no price for ${u.model}` : formatCost(u.cost);
  return `${count(u.inputTokens)} in · ${count(u.outputTokens)} out tokens · ${cost}`;
}

/** The run's total: tokens, and the cost of the priced steps (with how many had no price). */
export function runUsageText(u: RunUsage): string {
  const cost = u.cost === null ? 'no cost known' : formatCost(u.cost);
  const unpriced = u.unpricedSteps > 0 ? ` (${u.unpricedSteps} step${u.unpricedSteps === 1 ? '' : 's'} without a price)` : '';
  return `${count(u.inputTokens)} in · ${count(u.outputTokens)} out tokens · ${cost}${unpriced}`;
}

/** What a tool sub-step called (`{ tool, callId, args }` is its input). */
export const toolNameOf = (step: ExecutionStep): string | undefined => (step.input as { tool?: string } | null)?.tool;

/**
 * What the run answered, as its callers (and an agent's workflow tool) see it:
 * the response of its return step, else the output of its last completed step.
 */
export function runAnswer(
  steps: ExecutionStep[],
): { kind: 'response' | 'output'; stepId: string; statusCode?: number; value: unknown; omitted?: OmittedValue } | undefined {
  const done = steps.filter((s) => s.parentStepId === null && s.status === 'completed');
  const returned = done.find((s) => s.stepType === 'core.return');
  if (returned) {
    const omitted = returned.omitted?.output;
    if (omitted) return { kind: 'response', stepId: returned.stepId, value: null, omitted };
    const output = returned.output as { statusCode?: number; body?: unknown } | null;
    return { kind: 'response', stepId: returned.stepId, statusCode: output?.statusCode, value: output?.body ?? output };
  }
  const last = done.at(-1);
  return last ? { kind: 'output', stepId: last.stepId, value: last.output, omitted: last.omitted?.output } : undefined;
}

/**
 * The word a replay's step is marked with: `reused` (the original's output, nothing run), `changed` (an output
 * given in its place, or a step run again whose output differs), `unchanged` (run again, same output), `new`
 * (the original recorded no such step).
 */
export function replayMarkLabel(mark: ReplayMark): 'reused' | 'changed' | 'unchanged' | 'new' {
  if (mark.changed === true) return 'changed';
  if (mark.reused) return 'reused';
  return mark.changed === null ? 'new' : 'unchanged';
}

/** The steps a replay may start from (`fromStepId`): the top-level steps the run recorded, not an agent's sub-steps. */
export const replayableSteps = (steps: ExecutionStep[]): ExecutionStep[] => steps.filter((s) => s.parentStepId === null);

/** The steps whose outputs a replay from `fromStepId` reuses, and so may replace: top-level steps completed before it. */
export function stepsBefore(steps: ExecutionStep[], fromStepId: string): ExecutionStep[] {
  const top = replayableSteps(steps);
  const at = top.findIndex((s) => s.stepId === fromStepId);
  return at < 0 ? [] : top.slice(0, at).filter((s) => s.status === 'completed');
}
