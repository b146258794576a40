import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { AGENT_LIMITS, type AgentModelCallRequest, type AgentModelCallResult } from './agent.types';
import { agentEvents } from './agent-step';
import { RUN_INLINE_EVENTS } from './history-budget';
import type { runWorkflowDefinition } from './interpreter';
import { INTERPRETER_WORKFLOW, type RunEnd, type RunInput, type StepDefinition } from './run.types';
import { startWorkflowEnv, stepResult, withWorker, type ActivityMocks, type WorkflowEnv } from './workflow-env.fixture';

// Agent steps draw their calls from the run's history budget (history-budget.ts), and one that does not fit runs in a child
// workflow of its own (agent-step.ts): the model is faked by mocking its activity, as agent-loop.test.ts does.

let w: WorkflowEnv;
beforeAll(async () => {
  w = await startWorkflowEnv();
});
afterAll(() => w?.env.teardown());

const TEMPORAL_WARNS_AT = 10_240;
const TEMPORAL_ENDS_AT = 51_200;
const atBudget = { maxIterations: AGENT_LIMITS.maxIterations.max, maxToolCalls: AGENT_LIMITS.maxToolCalls.max };
/** Four tool calls a turn: fifty turns spend the 200 tool calls too. */
const TOOLS_PER_TURN = AGENT_LIMITS.maxToolCalls.max / AGENT_LIMITS.maxIterations.max;

const agent = (stepId: string, input: Record<string, unknown> = {}): StepDefinition => ({
  stepId,
  stepType: 'ai.agent',
  input: { prompt: 'help', tools: [{ name: 'lookup', type: 'http' }], output_schema: { type: 'object' }, ...input },
});
const set = (stepId: string): StepDefinition => ({ stepId, stepType: 'core.set', input: { values: { name: stepId } } });

/** The agents' activities, mocked: `turn(stepId, iteration)` answers each model call; every call is kept with the workflow type that ran it. */
function mocks(turn: (request: AgentModelCallRequest) => AgentModelCallResult) {
  const calls: Array<{ stepId: string; workflowType: string }> = [];
  const runEnds: RunEnd[] = [];
  const seen = (stepId: string) => calls.push({ stepId, workflowType: Context.current().info.workflowType ?? '' });
  const activities: ActivityMocks = {
    async agentModelCall(request) {
      seen(request.step.stepId);
      return request.final ? { toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } } : turn(request);
    },
    async agentToolCall(request) {
      seen(request.step.stepId);
      return { ok: true };
    },
    async agentFinish(request) {
      seen(request.step.stepId);
      return stepResult({ text: 'done' });
    },
    async setStep(request) {
      return stepResult(request.step.input.values);
    },
    async recordRunEnd(end) {
      runEnds.push(end);
    },
  };
  /** Which workflow types ran each step's calls, and how many calls. */
  const byStep = () => {
    const seenBy: Record<string, { workflowTypes: string[]; calls: number }> = {};
    for (const { stepId, workflowType } of calls) {
      const entry = (seenBy[stepId] ??= { workflowTypes: [], calls: 0 });
      if (!entry.workflowTypes.includes(workflowType)) entry.workflowTypes.push(workflowType);
      entry.calls++;
    }
    return seenBy;
  };
  return { activities, byStep, runEnds };
}

const spendsItsBudget = (request: AgentModelCallRequest): AgentModelCallResult =>
  ['busy-1', 'busy-2'].includes(request.step.stepId)
    ? {
        toolCalls: Array.from({ length: TOOLS_PER_TURN }, (_, i) => ({ callId: `c-${request.iteration}-${i}`, tool: 'lookup' })),
        usage: { inputTokens: 1, outputTokens: 1 },
      }
    : { toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };

let runs = 0;
async function execute(activities: ActivityMocks, steps: StepDefinition[]) {
  const workflowId = `agent-budget-${++runs}-${Date.now()}`;
  const input: RunInput = { organizationId: 'org-1', workflow: { id: 'wf-1', name: 'agents', version: 1 }, initial: {}, steps };
  const outcome = await withWorker(w, activities, ({ taskQueue }) =>
    w.env.client.workflow.execute<typeof runWorkflowDefinition>(INTERPRETER_WORKFLOW, { taskQueue, workflowId, args: [input] }).then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    ),
  );
  const history = await w.env.client.workflow.getHandle(workflowId).fetchHistory();
  return { ...outcome, workflowId, history, events: history.events?.length ?? 0 };
}

describe('agent steps and the run history budget', () => {
  test('the budget is why: about 35 agents at their largest budgets would pass the limit in one history', () => {
    expect(agentEvents(atBudget)).toBeGreaterThan(RUN_INLINE_EVENTS / 2);
    expect(Math.ceil(TEMPORAL_ENDS_AT / agentEvents(atBudget))).toBeLessThanOrEqual(35);
  });

  test('in a 200-step definition, an agent at its budget that no longer fits runs in a child workflow; one that fits stays in the run', async () => {
    const steps = [agent('busy-1', atBudget), agent('busy-2', atBudget), agent('small'), ...Array.from({ length: 197 }, (_, i) => set(`set-${i}`))];
    expect(steps).toHaveLength(200);
    const m = mocks(spendsItsBudget);
    const { result, events, history } = await execute(m.activities, steps);

    expect(result).toEqual({ stepsRun: 200 });
    // 50 model calls, the final answer, 200 tool calls and the finishing write each.
    const spent = 50 + 1 + 200 + 1;
    expect(m.byStep()).toEqual({
      // The first fits the budget; what it spent is gone, so the second, at the same budget, does not fit and runs in a child.
      'busy-1': { workflowTypes: ['runWorkflowDefinition'], calls: spent },
      'busy-2': { workflowTypes: ['runAgentChild'], calls: spent },
      // What the first left, with what it did not use given back, still holds a small agent.
      small: { workflowTypes: ['runWorkflowDefinition'], calls: 3 },
    });
    // The run's own history: the first agent's calls, the second's child alone, and 197 local activities.
    expect(events).toBeLessThan(RUN_INLINE_EVENTS);
    expect(events).toBeLessThan(TEMPORAL_WARNS_AT);
    // The child's id comes from the history, not the run's workflow id: the history replays under another id too.
    await expect(Worker.runReplayHistory({ workflowBundle: w.bundle }, history, 'another-workflow-id')).resolves.toBeUndefined();
  });

  test("an agent failing in its child fails the run as it would in the run's own history, naming the step and the cause", async () => {
    const m = mocks((request) => {
      if (request.step.stepId === 'late') throw ApplicationFailure.nonRetryable('the provider refused the key', 'ProviderRefused');
      return spendsItsBudget(request);
    });
    const { error, workflowId } = await execute(m.activities, [agent('busy-1', atBudget), agent('late', atBudget)]);

    expect(m.byStep().late).toEqual({ workflowTypes: ['runAgentChild'], calls: 2 });
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(m.runEnds).toEqual([
      {
        executionId: workflowId,
        organizationId: 'org-1',
        status: 'failed',
        error: { stepId: 'late', code: 'ProviderRefused', message: 'Step "late" (ai.agent) failed: the provider refused the key' },
      },
    ]);
  });
});
