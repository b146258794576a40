import { ApplicationFailure } from '@temporalio/common';
import {
  answerAfter,
  RUNS_AHEAD_OF_RETURN,
  type StepRequest,
  type StepResult,
  type StepThenReturnRequest,
  type StepThenReturnResult,
} from '../../workflows/run.types';

type StepActivity = (request: StepRequest) => Promise<StepResult>;

/**
 * `stepThenReturn`: a step and the return step right after it in one local
 * activity, before the run has answered (a synchronous webhook's `core.http`
 * then `core.return`). Each local activity costs the worker and Temporal
 * milliseconds of CPU, and the answer waits for both. Each step is recorded
 * as its own activity records it. The first step's failure is the
 * activity's, retried with the first step's policy as when it runs alone;
 * the return step's failure is returned, not thrown, so that no retry sends
 * the first step again: the workflow retries the return step on its own.
 */
export function createStepThenReturn(steps: Record<(typeof RUNS_AHEAD_OF_RETURN)[keyof typeof RUNS_AHEAD_OF_RETURN] | 'returnStep', StepActivity>) {
  return {
    async stepThenReturn(request: StepThenReturnRequest): Promise<StepThenReturnResult> {
      const { first } = request;
      const activity = RUNS_AHEAD_OF_RETURN[first.step.stepType as keyof typeof RUNS_AHEAD_OF_RETURN];
      if (!activity) throw ApplicationFailure.nonRetryable(`A ${first.step.stepType} step does not run ahead of a return step`, 'StepThenReturnMisuse');
      const ran = await steps[activity](first);
      try {
        return { first: ran, answer: await steps.returnStep(answerAfter(request, ran)) };
      } catch (err) {
        // runStep throws ApplicationFailures with masked messages (toFailure); anything else is unexpected, and retried.
        const failure = err instanceof ApplicationFailure ? err : ApplicationFailure.create({ message: (err as Error).message, type: 'StepError' });
        return { first: ran, answerFailed: { message: failure.message, type: failure.type ?? undefined, nonRetryable: failure.nonRetryable ?? false } };
      }
    },
  };
}
