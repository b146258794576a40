import type { CallerReply, StepRequest, WaitEndRequest } from './run.types';
import type { StepOutcome, StepScope } from './step-scope';
import { byReference, stepPartActivity } from './step-execution';

/**
 * A `core.wait` step: `waitBegin` records the wait (rendering `until`), the
 * run parks (waits.ts), `waitEnd` records how it ended as the step's output.
 * A caller still owed an answer hears at once that the run waits. Timed out
 * with `onTimeout` steps, those run next.
 */
export async function runWaitStep(request: StepRequest, { answered, run }: StepScope): Promise<StepOutcome> {
  // The definition checks refuse a wait in a loop's body, the one place without a run of its own.
  if (!run) throw new Error('A core.wait step runs only among the steps of a run');
  const { state, waits } = run;
  const { step } = request;
  const event: string | undefined = step.input.event?.name;
  waits.expect(step.stepId, event);
  const begun = await stepPartActivity(request, answered, 'begin', (a) => a.waitBegin(answered ? byReference(request) : request)).catch((err: unknown) => {
    waits.expect(step.stepId, undefined);
    throw err;
  });
  const waiting: CallerReply = { kind: 'waiting', stepId: step.stepId, ...(event ? { event } : {}) };
  waits.tell(waiting);
  state.park(step.stepId, waiting);
  const outcome = await waits.park(step.stepId, begun.wakesAt, begun.event);
  state.resume();
  const ended: WaitEndRequest = { ...byReference(request), outcome, begunAt: begun.begunAt, wakesAt: begun.wakesAt };
  const result = await stepPartActivity(request, true, 'end', (a) => a.waitEnd(ended));
  const onTimeout: unknown = step.input.onTimeout;
  return { result, ...(outcome.kind === 'timeout' && Array.isArray(onTimeout) ? { then: onTimeout } : {}) };
}
