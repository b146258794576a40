import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { AgentFinishRequest, AgentModelCallRequest, AgentModelCallResult, AgentToolCallRequest } from './agent.types';
import type { runWorkflowDefinition } from './interpreter';
import { INTERPRETER_WORKFLOW, type RunEnd, type RunInput, type RunResult } from './run.types';
import { startWorkflowEnv, stepResult, withWorker, type WorkflowEnv } from './workflow-env.fixture';

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(() => w?.env.teardown());

let runs = 0;

/** A run of one ai.agent step with an HTTP tool `lookup`; `budgets` and `output_schema` go into its input. */
function agentRun(stepInput: Record<string, unknown>): RunInput {
  return {
    organizationId: 'org-1',
    workflow: { id: 'wf-1', name: 'support', version: 1 },
    initial: {},
    steps: [{ stepId: 'agent', stepType: 'ai.agent', input: { prompt: 'help', tools: [{ name: 'lookup', type: 'http' }], ...stepInput } }],
  };
}

/**
 * The agent's activities mocked: each model call (but the final one) answers
 * with `turn(iteration)`; every call is kept with the activity id Temporal ran it under.
 */
function agentMocks(turn: (iteration: number) => AgentModelCallResult) {
  const modelCalls: Array<{ request: AgentModelCallRequest; activityId: string }> = [];
  const toolCalls: Array<{ request: AgentToolCallRequest; activityId: string }> = [];
  const finishes: AgentFinishRequest[] = [];
  const runEnds: RunEnd[] = [];
  const mocks = {
    async agentModelCall(request: AgentModelCallRequest): Promise<AgentModelCallResult> {
      modelCalls.push({ request, activityId: Context.current().info.activityId });
      return request.final ? { toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } } : turn(request.iteration);
    },
    async agentToolCall(request: AgentToolCallRequest) {
      toolCalls.push({ request, activityId: Context.current().info.activityId });
      return { ok: true };
    },
    async agentFinish(request: AgentFinishRequest) {
      finishes.push(request);
      return stepResult({ text: 'done' });
    },
    async recordRunEnd(end: RunEnd) {
      runEnds.push(end);
    },
  };
  return { mocks, modelCalls, toolCalls, finishes, runEnds };
}

async function execute(mocks: ReturnType<typeof agentMocks>['mocks'], input: RunInput): Promise<{ workflowId: string; result?: RunResult; error?: unknown }> {
  const workflowId = `agent-run-${++runs}-${Date.now()}`;
  const outcome = await withWorker(w, mocks, ({ taskQueue }) =>
    w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId, args: [input] }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
  );
  return { workflowId, ...outcome };
}

const asksForTools =
  (count: number, usage = { inputTokens: 10, outputTokens: 5 }) =>
  (iteration: number): AgentModelCallResult => ({
    toolCalls: Array.from({ length: count }, (_, i) => ({ callId: `call-${iteration}-${i}`, tool: 'lookup' })),
    usage,
  });

describe('the ai.agent step', () => {
  test('without output_schema, spending maxIterations fails the step naming the budget; each call has its activity id', async () => {
    const m = agentMocks(asksForTools(1));
    const { workflowId, error } = await execute(m.mocks, agentRun({ maxIterations: 2 }));

    expect(m.modelCalls.map((c) => [c.request.iteration, c.request.final, c.activityId])).toEqual([
      [1, undefined, '0-agent-model-1'],
      [2, undefined, '0-agent-model-2'],
    ]);
    expect(m.toolCalls.map((c) => [c.request.modelIteration, c.request.callId, c.request.toolCallNumber, c.activityId])).toEqual([
      [1, 'call-1-0', 1, '0-agent-tool-1'],
      [2, 'call-2-0', 2, '0-agent-tool-2'],
    ]);
    // Model and tool calls number their sub-steps in the order they ran.
    expect([...m.modelCalls, ...m.toolCalls].map((c) => c.request.subSeq).sort()).toEqual([1, 2, 3, 4]);
    const message = 'the agent spent its budget of model calls (maxIterations) before it answered; raise the budget, or set output_schema to force an answer';
    expect(m.finishes).toEqual([
      expect.objectContaining({ subSeq: 0, iterations: 2, usage: { inputTokens: 20, outputTokens: 10 }, outcome: { status: 'failed', message } }),
    ]);
    expect(m.runEnds).toEqual([
      {
        executionId: workflowId,
        organizationId: 'org-1',
        status: 'failed',
        error: { stepId: 'agent', code: 'AgentBudgetSpent', message: `Step "agent" (ai.agent) failed: ${message}` },
      },
    ]);
    expect(error).toBeInstanceOf(WorkflowFailedError);
  });

  test('with output_schema, spending maxTotalTokens forces a final answer without tools; the step completes, stopped by that budget', async () => {
    const m = agentMocks(asksForTools(1, { inputTokens: 60, outputTokens: 50 }));
    const { workflowId, result } = await execute(m.mocks, agentRun({ maxTotalTokens: 200, output_schema: { type: 'object' } }));

    // 110 tokens after the first call, 220 after the second: no third turn, the final call instead.
    expect(m.modelCalls.map((c) => [c.request.iteration, c.request.final, c.activityId])).toEqual([
      [1, undefined, '0-agent-model-1'],
      [2, undefined, '0-agent-model-2'],
      [3, { reason: 'budget', budget: 'maxTotalTokens' }, '0-agent-model-3'],
    ]);
    expect(m.toolCalls).toHaveLength(2);
    expect(m.finishes).toEqual([
      expect.objectContaining({ iterations: 2, usage: { inputTokens: 121, outputTokens: 101 }, outcome: { status: 'completed', stoppedBy: 'maxTotalTokens' } }),
    ]);
    expect(result).toEqual({ stepsRun: 1 });
    expect(m.runEnds).toEqual([{ executionId: workflowId, organizationId: 'org-1', status: 'completed' }]);
  });

  test('tool calls past maxToolCalls do not run; with output_schema the final answer says which budget stopped the loop', async () => {
    const m = agentMocks(asksForTools(3));
    const { result } = await execute(m.mocks, agentRun({ maxToolCalls: 2, output_schema: { type: 'object' } }));

    expect(m.toolCalls.map((c) => c.request.callId)).toEqual(['call-1-0', 'call-1-1']);
    expect(m.modelCalls.map((c) => c.request.final)).toEqual([undefined, { reason: 'budget', budget: 'maxToolCalls' }]);
    expect(m.finishes[0].outcome).toEqual({ status: 'completed', stoppedBy: 'maxToolCalls' });
    expect(result).toEqual({ stepsRun: 1 });
  });

  test('a model that answers ends the loop; with output_schema one more call shapes the answer', async () => {
    const m = agentMocks((iteration) => (iteration === 1 ? asksForTools(1)(iteration) : { toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }));
    const { result } = await execute(m.mocks, agentRun({ output_schema: { type: 'object' } }));

    expect(m.modelCalls.map((c) => c.request.final)).toEqual([undefined, undefined, { reason: 'answered' }]);
    expect(m.finishes[0].outcome).toEqual({ status: 'completed' });
    expect(result).toEqual({ stepsRun: 1 });
  });
});
