import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyLocalActivities,
  proxySinks,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { startErrorRun } from './error-run';
import {
  RUN_INLINE_BUDGET,
  RUNS_AHEAD_OF_RETURN,
  awaitReplyUpdate,
  inlineLimit,
  type ReplySinks,
  type CallerReply,
  type RunEnd,
  type RunInput,
  type RunResult,
  type StepDefinition,
  type StepRequest,
  type StepResult,
  type WaitEndRequest,
  type WebhookResponse,
} from './run.types';
import { carryRef, carryResult, type StepContext } from './step-context';
import { byReference, executeStep, executeStepThenReturn, StepFailed, stepPartActivity } from './step-execution';
import { LOOP_INLINE_EVENTS, runLoopStep } from './loops';
import { reusedSteps } from './replay-from-step';
import { RunWaits } from './waits';

const { callerReplies } = proxySinks<ReplySinks>();

// Retried until the database answers: a run must not end unrecorded.
const { recordRunEnd } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/**
 * Runs started since this patch complete in their last step's write: one
 * local activity less per run (each costs the worker milliseconds of CPU).
 * Runs started before it replay with their separate run-end activity.
 */
const RUN_END_WITH_LAST_STEP = 'run-end-with-last-step';

/**
 * Runs started since this patch run a step and the return step right after it
 * in one local activity (step-execution.ts, executeStepThenReturn) while the
 * caller waits for its answer. Runs started before it replay step by step.
 */
const STEP_THEN_RETURN = 'step-then-return';

/** Runs started since this patch render a lone `{{ expression }}` yielding a number, boolean or null as that value, not text. */
const TYPED_VALUES = 'typed-values';

/** Step types whose activity can complete the run; a branch, an agent loop or a wait ends elsewhere. */
const CAN_END_RUN = new Set<string>(['core.http', 'core.return', 'core.set', 'core.workflow', 'ai.llm-call', 'data-store.get', 'data-store.set']);

/**
 * Runs any workflow definition. Steps run in order; `core.if` runs one of its
 * branches; the first `core.return` answers a waiting caller and later steps
 * go on; `ai.agent` is a loop of activities (agent-loop.ts). Every other step is an activity (templates are rendered there, where
 * secrets may be decrypted); short ones are local activities so a synchronous
 * webhook costs one workflow task, the model call is a regular activity.
 */
export async function runWorkflowDefinition(input: RunInput): Promise<RunResult> {
  const executionId = workflowInfo().workflowId;
  const run = { executionId, organizationId: input.organizationId, environmentId: input.environmentId };
  const context: StepContext = { initial: input.initial, steps: {}, refs: {} };
  let answer: CallerReply | undefined;
  let response: WebhookResponse | undefined;
  let seq = 0;
  let inlineBudget = RUN_INLINE_BUDGET;
  // What the run's own history may still take of loop items (loops.ts): over all its loops together.
  let loopInlineEvents = LOOP_INLINE_EVENTS;
  let announced = false;
  const endWithLastStep = patched(RUN_END_WITH_LAST_STEP);
  const typedValues = patched(TYPED_VALUES);
  let endRecorded = false;
  const waits = new RunWaits();
  const reused = reusedSteps(input);

  setHandler(awaitReplyUpdate, async () => {
    await condition(() => answer !== undefined);
    return answer!;
  });
  // A caller waiting beside this worker hears the answer at once; others through the update.
  const announce = () => {
    if (announced || answer === undefined) return;
    announced = true;
    callerReplies.answered(answer);
  };

  /** What a step's result changes for the steps after it; a return step's is the answer. */
  const took = (step: StepDefinition, endsRun: boolean, result: StepResult) => {
    endRecorded ||= endsRun;
    inlineBudget -= result.bytes;
    carryResult(context, step.stepId, step.stepId, result);
    if (step.stepType !== 'core.return') return;
    const sealed = result.sealedAnswer ? { sealed: true } : {};
    const carried = Object.hasOwn(context.steps, step.stepId) ? (context.steps[step.stepId] as WebhookResponse) : undefined;
    const reply: CallerReply = carried ? { kind: 'response', response: carried, ...sealed } : { kind: 'response', record: step.stepId, ...sealed };
    waits.tell(reply);
    if (answer === undefined) {
      response = carried;
      answer = reply;
      announce();
    }
  };

  /** `tail`: nothing follows these steps, so the last of them is the run's last. */
  const runSteps = async (steps: StepDefinition[], tail: boolean): Promise<void> => {
    // The return step that ran together with the step before it.
    let ranAhead: StepDefinition | undefined;
    for (const [index, step] of steps.entries()) {
      if (step === ranAhead) continue;
      const last = tail && index === steps.length - 1;
      if (reused?.has(step.stepId)) {
        // A replay takes this step's recorded output (copied into this run) instead of running it: nothing is sent again.
        seq++;
        carryRef(context, step.stepId, { record: step.stepId });
        await runSteps(reused.nested(step), last);
        continue;
      }
      // A core.if output (its branch) is tiny and must stay readable here, so the floor keeps it inline.
      const offloadAboveBytes = inlineLimit(inlineBudget);
      // The first return step answers the run's caller; after an event, the next one answers the event's sender too.
      const answersCaller = step.stepType === 'core.return' && (answer === undefined || waits.senderWaiting);
      const endsRun = endWithLastStep && last && CAN_END_RUN.has(step.stepType);
      const request: StepRequest = {
        run,
        step,
        seq: seq++,
        context,
        offloadAboveBytes,
        ...(answersCaller ? { answersCaller } : {}),
        ...(endsRun ? { endsRun } : {}),
        ...(typedValues ? { typedValues } : {}),
      };
      if (step.stepType === 'core.loop') {
        const { inlineEvents, ...result } = await runLoopStep(request, answer !== undefined, input, loopInlineEvents);
        loopInlineEvents = inlineEvents;
        inlineBudget -= result.bytes;
        carryResult(context, step.stepId, step.stepId, result);
        continue;
      }
      if (step.stepType === 'core.wait') {
        const { timedOut, ...result } = await waitStep(request, answer !== undefined);
        inlineBudget -= result.bytes;
        carryResult(context, step.stepId, step.stepId, result);
        if (timedOut && Array.isArray(step.input.onTimeout)) await runSteps(step.input.onTimeout, last);
        continue;
      }
      const next = steps[index + 1];
      if (
        answer === undefined &&
        next?.stepType === 'core.return' &&
        step.stepType in RUNS_AHEAD_OF_RETURN &&
        !reused?.has(next.stepId) &&
        patched(STEP_THEN_RETURN)
      ) {
        const answerEndsRun = endWithLastStep && tail && index + 1 === steps.length - 1;
        const answering = {
          run,
          step: next,
          seq: seq++,
          answersCaller: true,
          ...(answerEndsRun ? { endsRun: true } : {}),
          ...(typedValues ? { typedValues } : {}),
        };
        const ran = await executeStepThenReturn(request, answering, inlineBudget);
        took(step, endsRun, ran.first);
        took(next, answerEndsRun, ran.answer);
        ranAhead = next;
        continue;
      }
      const result = await executeStep(request, answer !== undefined, input);
      took(step, endsRun, result);
      if (step.stepType === 'core.if') {
        // The boolean, not the branch name: masking rewrites strings, never booleans.
        const holds = (result.output as { result: boolean }).result === true;
        await runSteps((holds ? step.input.then : step.input.else) ?? [], last);
      }
    }
  };

  /**
   * A `core.wait` step: `waitBegin` records the wait (rendering `until`),
   * the run parks (waits.ts), `waitEnd` records how it ended as the step's
   * output. A caller still owed an answer hears at once that the run waits.
   */
  const waitStep = async (request: StepRequest, answered: boolean): Promise<StepResult & { timedOut: boolean }> => {
    const { step } = request;
    const event: string | undefined = step.input.event?.name;
    waits.expect(step.stepId, event);
    const begun = await stepPartActivity(request, answered, 'begin', (a) => a.waitBegin(answered ? byReference(request) : request)).catch((err: unknown) => {
      waits.expect(step.stepId, undefined);
      throw err;
    });
    const waiting: CallerReply = { kind: 'waiting', stepId: step.stepId, ...(event ? { event } : {}) };
    waits.tell(waiting);
    if (answer === undefined) {
      answer = waiting;
      announce();
    }
    const outcome = await waits.park(step.stepId, begun.wakesAt, begun.event);
    const ended: WaitEndRequest = { ...byReference(request), outcome, begunAt: begun.begunAt, wakesAt: begun.wakesAt };
    const result = await stepPartActivity(request, true, 'end', (a) => a.waitEnd(ended));
    return { ...result, timedOut: outcome.kind === 'timeout' };
  };

  const end = (outcome: Omit<RunEnd, 'executionId' | 'organizationId'>) =>
    CancellationScope.nonCancellable(() => recordRunEnd({ executionId, organizationId: input.organizationId, ...outcome }));

  // Lets a waiting caller collect its answer before the run closes, even a cancelled one.
  const settle = () => CancellationScope.nonCancellable(() => condition(allHandlersFinished));

  try {
    await runSteps(input.steps, true);
  } catch (err) {
    if (isCancellation(err)) {
      answer ??= { kind: 'cancelled' };
      waits.close({ kind: 'cancelled' });
      await end({ status: 'cancelled' });
      announce();
      await startErrorRun(input, { executionId, organizationId: input.organizationId, status: 'cancelled' });
      await settle();
      throw err;
    }
    // Only a step's own failure is described to callers; anything else is an internal error, named by the run.
    const error =
      err instanceof StepFailed
        ? { stepId: err.stepId, message: err.message }
        : { message: 'The run failed on an internal error; an operator can see it in Temporal' };
    answer ??= { kind: 'failed', ...error };
    waits.close({ kind: 'failed', ...error });
    await end({ status: 'failed', error });
    announce();
    await startErrorRun(input, { executionId, organizationId: input.organizationId, status: 'failed', error });
    await settle();
    throw ApplicationFailure.nonRetryable(error.message, 'StepFailed', error);
  }
  answer ??= { kind: 'completed' };
  waits.close({ kind: 'completed' });
  if (!endRecorded) await end({ status: 'completed' });
  announce();
  await settle();
  // A parent (agent workflow tool, core.workflow step) reads a child's answer from its records: it stays out of the parent's history.
  return { ...(input.agentDepth ? {} : { response }), stepsRun: seq };
}
