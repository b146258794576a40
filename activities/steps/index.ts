import type { createDataStoreActivities } from '../data-stores';
import type { ActivityDeps } from '../deps';
import { createControlSteps } from './control-steps';
import { createDataStoreSteps } from './data-store-steps';
import { createHttpStep } from './http-step';
import { createLlmStep } from './llm-step';
import { createLoopSteps } from './loop-steps';
import { createStepThenReturn } from './step-then-return';
import { createWaitSteps } from './wait-steps';
import { createWorkflowStep } from './workflow-step';

/** One activity per step type, so the Temporal UI names the kind of step each activity is. */
export function createStepActivities(deps: ActivityDeps, records: ReturnType<typeof createDataStoreActivities>) {
  const runner = { executions: deps.executions, renderer: deps.renderer, secrets: deps.secrets, seals: deps.seals, loopItems: deps.loopItems };
  const steps = {
    ...createControlSteps(runner, deps.sealedResponses),
    ...createHttpStep(runner, deps.http),
    ...createLlmStep(runner, deps.llm),
    ...createDataStoreSteps(runner, records),
    ...createWaitSteps(runner, { waits: deps.waits, resumeLinks: deps.resumeLinks }),
    ...createLoopSteps(runner, deps.loopItems),
    ...createWorkflowStep({ ...runner, workflows: deps.workflows }),
  };
  return { ...steps, ...createStepThenReturn(steps) };
}
