import { ChildWorkflowFailure, executeChild, isCancellation, patched, uuid4 } from '@temporalio/workflow';
import { agentBudgets, runAgentStep, type AgentTally } from './agent-loop';
import { MAX_CHILD_RUNS_PER_STEP } from './agent.types';
import { REGULAR_CALL_EVENTS } from './history-budget';
import { PATCHES } from './patches';
import type { RunInput, StepRequest, StepResult } from './run.types';
import { runCompositeStep } from './step-execution';
import type { StepOutcome, StepScope } from './step-scope';

/** An agent step run in a child workflow of its own: its request (earlier outputs by reference) and the run's nesting. */
export interface AgentChildInput {
  request: StepRequest;
  nesting: Pick<RunInput, 'agentDepth' | 'errorRun'>;
}

/** The workflow type of an agent step's child (`runAgentChild`); named, not imported, as a loop's batches are. */
const AGENT_CHILD_WORKFLOW = 'runAgentChild';

/**
 * The history events an agent step may cost at most, from its budgets: every
 * model call (the final answer's included), every tool call and the
 * finishing write are regular activities; a workflow tool adds an activity
 * before its child run and one after, about two calls more. At the largest
 * budgets (50 model calls, 200 tool calls) 1,632 events.
 */
export function agentEvents(input: StepRequest['step']['input']): number {
  const { maxIterations, maxToolCalls } = agentBudgets(input);
  const calls = maxIterations + 1 + maxToolCalls + 1;
  return (calls + 2 * Math.min(maxToolCalls, MAX_CHILD_RUNS_PER_STEP)) * REGULAR_CALL_EVENTS;
}

/** What an agent step cost, counted as it ran (agentEvents' terms). */
const tallied = (tally: AgentTally) => (tally.calls + 2 * tally.childRuns) * REGULAR_CALL_EVENTS;

/**
 * The `ai.agent` step of a run. Since the `agentHistoryBudget` patch, its
 * calls draw from the run's history budget (history-budget.ts), which its
 * loops draw from too: the step takes the most its budgets allow before it
 * starts and gives back what it did not use. One that does not fit what is
 * left runs in a child workflow (`runAgentChild`), a history of its own, and
 * the run's history holds the child alone. Runs begun before the patch run
 * every agent step in their own history, as they did.
 */
export async function runAgentStepOfRun(request: StepRequest, { nesting, history }: StepScope): Promise<StepOutcome> {
  const depth = nesting.agentDepth ?? 0;
  const errorRun = nesting.errorRun ?? false;
  if (!patched(PATCHES.agentHistoryBudget.id)) return { result: await runCompositeStep(request, (r) => runAgentStep(r, depth, errorRun)) };
  const most = agentEvents(request.step.input);
  if (history.take(most)) {
    const tally: AgentTally = { calls: 0, childRuns: 0 };
    try {
      return { result: await runCompositeStep(request, (r) => runAgentStep(r, depth, errorRun, tally)) };
    } finally {
      history.giveBack(Math.max(0, most - tallied(tally)));
    }
  }
  return { result: await runCompositeStep(request, (r) => runInChild(r, nesting)) };
}

/** Runs the step in a child workflow; its failure is told as the step's own would be (the child's cause, not "child workflow failed"). */
async function runInChild(request: StepRequest, nesting: AgentChildInput['nesting']): Promise<StepResult> {
  const stepId: string = request.step.stepId;
  const input: AgentChildInput = {
    request,
    // Only what the agent needs of the run: its input and definition stay out of the child's start event.
    nesting: { ...(nesting.agentDepth ? { agentDepth: nesting.agentDepth } : {}), ...(nesting.errorRun ? { errorRun: true } : {}) },
  };
  try {
    return await executeChild<typeof runAgentChild>(AGENT_CHILD_WORKFLOW, {
      // From the run's seeded randomness, not its workflow id: a replay of this history under another id starts the same child.
      workflowId: `${stepId}.agent.${uuid4()}`,
      args: [input],
      // Cancelling the run cancels the agent, and the runs its workflow tools started.
      parentClosePolicy: 'REQUEST_CANCEL',
      staticSummary: `${stepId} (ai.agent), execution ${request.run.executionId}`,
    });
  } catch (err) {
    if (err instanceof ChildWorkflowFailure && err.cause && !isCancellation(err)) throw err.cause;
    throw err;
  }
}

/** A child workflow running one agent step of a run (see runAgentStepOfRun): its model and tool calls in a history of their own. */
export async function runAgentChild({ request, nesting }: AgentChildInput): Promise<StepResult> {
  return runAgentStep(request, nesting.agentDepth ?? 0, nesting.errorRun ?? false);
}
