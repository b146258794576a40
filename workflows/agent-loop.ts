import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { activitiesWith } from './activity-proxies';
import { awaitChildRun } from './child-run';
import {
  AGENT_LIMITS,
  type AgentBudget,
  type AgentChildFinishRequest,
  type AgentChildPrepareRequest,
  type AgentFinishRequest,
  type AgentModelCallRequest,
  type AgentModelCallResult,
  type AgentToolCallRequest,
  type AgentUsage,
} from './agent.types';
import { HTTP_DEFAULT_TIMEOUT_MS, type StepRequest, type StepResult } from './run.types';

/** Regular activities heartbeat, so a dead worker is noticed in seconds (as the interpreter's steps do). */
const HEARTBEAT = '5 seconds';
const MODEL_CALL = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT,
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', backoffCoefficient: 2 },
};
/** Bookkeeping activities (arguments checked, a child's row written, the step recorded): database work only. */
const BOOKKEEPING = { startToCloseTimeout: '30 seconds', heartbeatTimeout: HEARTBEAT, retry: { maximumAttempts: 5, initialInterval: '500 milliseconds' } };

const BUDGET_NAMES: Record<AgentBudget, string> = {
  maxIterations: 'model calls (maxIterations)',
  maxToolCalls: 'tool calls (maxToolCalls)',
  maxTotalTokens: 'tokens (maxTotalTokens)',
  timeoutSeconds: 'time (timeoutSeconds)',
};

/** What an agent step ran, counted as it runs: its calls (model, tool, and the finishing one) and its tools' child runs. */
export interface AgentTally {
  calls: number;
  childRuns: number;
}

/** The step's budgets of model and tool calls and tokens, its own or the defaults. */
export function agentBudgets(input: StepRequest['step']['input']): { maxIterations: number; maxToolCalls: number; maxTotalTokens: number } {
  return {
    maxIterations: (input.maxIterations as number | undefined) ?? AGENT_LIMITS.maxIterations.default,
    maxToolCalls: (input.maxToolCalls as number | undefined) ?? AGENT_LIMITS.maxToolCalls.default,
    maxTotalTokens: (input.maxTotalTokens as number | undefined) ?? AGENT_LIMITS.maxTotalTokens.default,
  };
}

interface AgentTool {
  name: string;
  type: 'http' | 'data-store' | 'workflow';
  request?: { timeoutMs?: number };
}

/**
 * The `ai.agent` step: a model call, then the tools it asked for (each its
 * own activity, a workflow tool a child run), again until it answers or a
 * budget is spent. Budgets are counted here, from what each call reports;
 * the conversation itself never passes through (the activities rebuild it
 * from the step's sub-step records), so history holds only references.
 *
 * When a budget is spent: with `output_schema`, one more model call, without
 * tools, forces the structured answer from what the agent has (`stoppedBy`
 * says which budget); without it, the step fails naming the budget. A
 * natural answer with `output_schema` is shaped by that same last call.
 */
export async function runAgentStep(
  request: StepRequest,
  agentDepth: number,
  errorRun = false,
  tally: AgentTally = { calls: 0, childRuns: 0 },
): Promise<StepResult> {
  const input = request.step.input;
  const stepId: string = request.step.stepId;
  const limits = agentBudgets(input);
  // Workflow time: deterministic on replay.
  const deadline = Date.now() + ((input.timeoutSeconds as number | undefined) ?? AGENT_LIMITS.timeoutSeconds.default) * 1000;
  const tools = new Map<string, AgentTool>((input.tools as AgentTool[]).map((t) => [t.name, t]));
  const base = { run: request.run, step: request.step, seq: request.seq, context: request.context, ...(request.typedValues ? { typedValues: true } : {}) };
  const usage: AgentUsage = { inputTokens: 0, outputTokens: 0 };
  let subSeq = 0;
  let iterations = 0;
  let toolCalls = 0;
  let childRuns = 0;

  const modelCall = async (iteration: number, final?: AgentModelCallRequest['final']): Promise<AgentModelCallResult> => {
    const call: AgentModelCallRequest = { ...base, subSeq: ++subSeq, iteration, ...(final ? { final } : {}) };
    const summary = final ? `${stepId}: final answer` : `${stepId}: model call ${iteration}`;
    tally.calls++;
    const result = await activitiesWith({ ...MODEL_CALL, activityId: `${request.seq}-${stepId}-model-${iteration}`, summary }).agentModelCall(call);
    usage.inputTokens += result.usage.inputTokens;
    usage.outputTokens += result.usage.outputTokens;
    return result;
  };

  const toolCall = (modelIteration: number, callId: string, toolName: string): Promise<void> => {
    const call: AgentToolCallRequest = { ...base, subSeq: ++subSeq, modelIteration, callId, tool: toolName, toolCallNumber: ++toolCalls };
    const tool = tools.get(toolName);
    tally.calls++;
    if (tool?.type === 'workflow')
      return workflowToolCall({ ...call, depth: agentDepth, childRunNumber: ++childRuns, ...(errorRun ? { errorRun } : {}) }, tally);
    return activitiesWith({
      // An HTTP tool waits as long as its request may; the activity records any failure of the tool itself for the model.
      startToCloseTimeout: (tool?.request?.timeoutMs ?? HTTP_DEFAULT_TIMEOUT_MS) + 10_000,
      heartbeatTimeout: HEARTBEAT,
      retry: { maximumAttempts: 3, initialInterval: '1 second' },
      activityId: `${request.seq}-${stepId}-tool-${call.toolCallNumber}`,
      summary: `${stepId}: tool ${toolName} (call ${call.toolCallNumber})`,
    })
      .agentToolCall(call)
      .then(() => undefined);
  };

  const spent = (): AgentBudget | undefined => {
    if (iterations >= limits.maxIterations) return 'maxIterations';
    if (usage.inputTokens + usage.outputTokens >= limits.maxTotalTokens) return 'maxTotalTokens';
    if (Date.now() >= deadline) return 'timeoutSeconds';
    return undefined;
  };

  const finish = (outcome: AgentFinishRequest['outcome']) => {
    const call: AgentFinishRequest = { ...base, subSeq: 0, outcome, iterations, usage };
    tally.calls++;
    return activitiesWith({ ...BOOKKEEPING, activityId: `${request.seq}-${stepId}-finish`, summary: `${stepId}: result` }).agentFinish(call);
  };

  let stoppedBy: AgentBudget | undefined;
  try {
    for (;;) {
      stoppedBy = spent();
      if (stoppedBy) break;
      iterations += 1;
      const turn = await modelCall(iterations);
      if (turn.toolCalls.length === 0) break;
      // The calls that still fit the budget run; the others are answered "not run" in the conversation.
      const room = limits.maxToolCalls - toolCalls;
      if (turn.toolCalls.length > room) stoppedBy = 'maxToolCalls';
      const iteration = iterations;
      await Promise.all(turn.toolCalls.slice(0, room).map((c) => toolCall(iteration, c.callId, c.tool)));
      if (stoppedBy) break;
    }
    if (input.output_schema) {
      await modelCall(iterations + 1, stoppedBy ? { reason: 'budget', budget: stoppedBy } : { reason: 'answered' });
    } else if (stoppedBy) {
      throw ApplicationFailure.nonRetryable(
        `the agent spent its budget of ${BUDGET_NAMES[stoppedBy]} before it answered; raise the budget, or set output_schema to force an answer`,
        'AgentBudgetSpent',
      );
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = (err as { cause?: Error }).cause;
    const message = (err instanceof ApplicationFailure || !cause ? (err as Error).message : cause.message) || 'the agent failed';
    await finish({ status: 'failed', message });
    throw err;
  }
  return finish({ status: 'completed', ...(stoppedBy ? { stoppedBy } : {}) });
}

/**
 * A workflow tool: the arguments checked and the child's execution row
 * written first (an activity), then the child run (child-run.ts, as a
 * core.workflow step runs one), then its answer recorded as the tool's
 * result. The child's input is not in its start event: its steps read it
 * from its execution record, so the arguments stay out of history.
 */
async function workflowToolCall(call: AgentChildPrepareRequest, tally: AgentTally): Promise<void> {
  const stepId: string = call.step.stepId;
  const options = (what: string) => ({ ...BOOKKEEPING, activityId: `${call.seq}-${stepId}-tool-${call.toolCallNumber}-${what}` });
  const prepared = await activitiesWith({
    ...options('prepare'),
    summary: `${stepId}: tool ${call.tool} (call ${call.toolCallNumber}), child run prepared`,
  }).agentChildPrepare(call);
  if (prepared.kind === 'refused') return;
  tally.childRuns++;
  const origin = `tool ${call.tool} (call ${call.toolCallNumber}) of agent step ${stepId} in execution ${call.run.executionId}`;
  const outcome = await awaitChildRun(prepared, { mode: 'agent', origin });
  const finish: AgentChildFinishRequest = { ...call, executionId: prepared.executionId, outcome };
  await activitiesWith({
    ...options('finish'),
    summary: `${stepId}: tool ${call.tool} (call ${call.toolCallNumber}), child run ${outcome.status}`,
  }).agentChildFinish(finish);
}
