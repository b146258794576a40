import type { STEP_TYPES } from '../src/workflows/definition.schemas';
import { runAgentStepOfRun } from './agent-step';
import { runLoopStep } from './loops';
import { RUNS_AHEAD_OF_RETURN, type StepRequest } from './run.types';
import { runCompositeStep, runModelCallActivity, runStepActivity, type StepActivity } from './step-execution';
import type { StepHandler, StepOutcome, StepScope } from './step-scope';
import { runWaitStep } from './wait-step';
import { runWorkflowStep } from './workflow-step';

type StepType = (typeof STEP_TYPES)[number];

/** A step type that is one activity; `canEndRun`: as the run's last step, its write completes the run. */
function activityStep(type: StepType, activity: StepActivity, { canEndRun = true } = {}): StepHandler {
  return {
    run: async (request, { answered }) => ({ result: await runStepActivity(activity, request, answered) }),
    canEndRun,
    runsAheadOfReturn: type in RUNS_AHEAD_OF_RETURN,
    answers: type === 'core.return',
  };
}

/** A step type that is more than one activity or workflow: it ends in a write of its own, after its parts, and needs the workflow between them. */
function compositeStep(run: StepHandler['run'], { canEndRun = false } = {}): StepHandler {
  return { run, canEndRun, runsAheadOfReturn: false, answers: false };
}

/**
 * Every step type and how it runs: the one dispatch of the interpreter
 * (step-walk.ts) and of a loop's items (loops.ts). Most are one activity
 * (local before the run answered, regular after); `core.if` is one whose
 * output picks the branch that runs next; `ai.llm-call` a model call, always
 * regular; `ai.agent` a loop of activities (agent-step.ts); `core.workflow`
 * two activities around a child run (workflow-step.ts); `core.loop` two
 * around its items (loops.ts); `core.wait` two around the run parked
 * (wait-step.ts).
 */
export const STEP_HANDLERS: Record<StepType, StepHandler> = {
  'core.http': activityStep('core.http', 'httpStep'),
  'core.set': activityStep('core.set', 'setStep'),
  'core.return': activityStep('core.return', 'returnStep'),
  'data-store.get': activityStep('data-store.get', 'dataStoreGetStep'),
  'data-store.set': activityStep('data-store.set', 'dataStoreSetStep'),
  'core.if': {
    ...activityStep('core.if', 'ifStep', { canEndRun: false }),
    run: async (request, { answered }) => {
      const result = await runStepActivity('ifStep', request, answered);
      // The boolean, not the branch name: masking rewrites strings, never booleans.
      const holds = (result.output as { result: boolean }).result === true;
      return { result, then: (holds ? request.step.input.then : request.step.input.else) ?? [] };
    },
  },
  'ai.llm-call': { ...activityStep('ai.llm-call', 'llmCallStep'), run: async (request) => ({ result: await runModelCallActivity('llmCallStep', request) }) },
  'ai.agent': compositeStep(runAgentStepOfRun),
  'core.workflow': compositeStep(
    async (request, { nesting }) => ({
      result: await runCompositeStep(request, (r) => runWorkflowStep(r, nesting.agentDepth ?? 0, nesting.errorRun ?? false)),
    }),
    { canEndRun: true },
  ),
  'core.loop': compositeStep((request, scope) => runLoopStep(request, scope, runStep)),
  'core.wait': compositeStep(runWaitStep),
};

/** The handler of a step's type (the definition was checked: its type is one of STEP_TYPES). */
export function handlerOf(step: StepRequest['step']): StepHandler {
  return STEP_HANDLERS[step.stepType as StepType];
}

/** Runs one step through its type's handler. */
export function runStep(request: StepRequest, scope: StepScope): Promise<StepOutcome> {
  return handlerOf(request.step).run(request, scope);
}
