import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { activitiesWith, localActivitiesWith } from './activity-proxies';
import {
  answerAfter,
  HTTP_DEFAULT_TIMEOUT_MS,
  type StepDefinition,
  type StepRequest,
  type StepResult,
  type StepThenReturnRequest,
  type StepThenReturnResult,
} from './run.types';
import type { ValueRef } from './step-context';

// How a step runs as activities: which kind, local or regular, with which timeouts and retries, and how its
// failure is told. The step handlers (step-handlers.ts) run every step type through here.

/** The activities that run a whole step of one type each (step-handlers.ts says which type). */
export type StepActivity = keyof Pick<Activities, 'httpStep' | 'ifStep' | 'returnStep' | 'setStep' | 'llmCallStep' | 'dataStoreGetStep' | 'dataStoreSetStep'>;

/** Raised (inside the workflow only) when a step fails; carries the step for the run's error. */
export class StepFailed extends Error {
  constructor(
    readonly stepId: string,
    message: string,
    /** The failure's type (a StepError's, `TemplateError`, `Timeout`…): the run's error code, which analytics groups by. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * Runs a step that is one activity. After the answer is out, steps are
 * regular activities: a local activity holds the workflow task open, and
 * with it the delivery of the answer to the waiting caller.
 */
export async function runStepActivity(activity: StepActivity, request: StepRequest, answered: boolean): Promise<StepResult> {
  const { step } = request;
  const summary = `${step.stepId} (${step.stepType})`;
  try {
    return answered
      ? await activitiesWith({ ...stepOptions(step), heartbeatTimeout: HEARTBEAT, activityId: `${request.seq}-${step.stepId}`, summary })[activity](
          byReference(request),
        )
      : await localActivitiesWith({ ...stepOptions(step), summary })[activity](request);
  } catch (err) {
    throw stepFailure(err, step);
  }
}

/** Runs a step whose activity is a model call: always a regular activity, which may take minutes. */
export async function runModelCallActivity(activity: StepActivity, request: StepRequest): Promise<StepResult> {
  const { step } = request;
  try {
    return await activitiesWith({ ...MODEL_CALL, activityId: `${request.seq}-${step.stepId}`, summary: `${step.stepId} (${step.stepType})` })[activity](
      byReference(request),
    );
  } catch (err) {
    throw stepFailure(err, step);
  }
}

/** Runs a step made of more than one activity or workflow (`run`), its failure told as any step's. */
export async function runCompositeStep(request: StepRequest, run: (request: StepRequest) => Promise<StepResult>): Promise<StepResult> {
  try {
    return await run(byReference(request));
  } catch (err) {
    throw stepFailure(err, request.step);
  }
}

/**
 * Runs a step and the return step after it in one local activity
 * (`stepThenReturn`): one activity less before the answer. The first step's
 * failure is reported and retried as when it runs alone (the activity has
 * its options). A return step that fails for good fails the run as it would
 * alone; one whose failure is worth retrying runs again on its own with its
 * whole retry policy, so the first step never runs twice.
 */
export async function executeStepThenReturn(
  first: StepRequest,
  answer: StepThenReturnRequest['answer'],
  inlineBudget: number,
): Promise<{ first: StepResult; answer: StepResult }> {
  const own = stepOptions(first.step);
  const options = {
    ...own,
    // The return step renders a template: the first step's bound and the return step's own.
    startToCloseTimeout: own.startToCloseTimeout + RETURN_STEP_TIMEOUT_MS,
    summary: `${first.step.stepId} (${first.step.stepType}), then ${answer.step.stepId} (core.return)`,
  };
  const request: StepThenReturnRequest = { first, answer, inlineBudget };
  let ran: StepThenReturnResult;
  try {
    ran = await localActivitiesWith(options).stepThenReturn(request);
  } catch (err) {
    throw stepFailure(err, first.step);
  }
  if ('answer' in ran) return ran;
  const { message, type, nonRetryable } = ran.answerFailed;
  if (nonRetryable) throw stepFailure(ApplicationFailure.create({ message, type, nonRetryable }), answer.step);
  return { first: ran.first, answer: await runStepActivity('returnStep', answerAfter(request, ran.first), false) };
}

/** A step's failure as the run reports it; a cancellation stays one. */
export function stepFailure(err: unknown, step: StepDefinition): unknown {
  if (isCancellation(err)) return err;
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const code = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : cause instanceof TimeoutFailure ? 'Timeout' : undefined;
  return new StepFailed(step.stepId, `Step "${step.stepId}" (${step.stepType}) failed: ${(cause as Error).message}`, code);
}

/**
 * The activity that begins or ends a step made of more than one (`core.wait`
 * around its parking, `core.loop` around its items): bookkeeping in the
 * database. Local before the run answered (as other steps); regular after,
 * and always for an end, which comes in a workflow task of its own anyway.
 */
export async function stepPartActivity<T>(
  request: StepRequest,
  regular: boolean,
  part: 'begin' | 'end',
  call: (activities: ReturnType<typeof activitiesWith>) => Promise<T>,
): Promise<T> {
  const { step } = request;
  const options = { ...stepOptions(step), summary: `${step.stepId} (${step.stepType}): ${part === 'begin' ? 'begins' : 'ends'}` };
  try {
    return await call(
      regular ? activitiesWith({ ...options, heartbeatTimeout: HEARTBEAT, activityId: `${request.seq}-${step.stepId}-${part}` }) : localActivitiesWith(options),
    );
  } catch (err) {
    throw stepFailure(err, step);
  }
}

/**
 * A regular activity's input is kept in history, so it carries earlier
 * outputs as references (every step recorded its output); the activity loads
 * them. Local activity inputs are not recorded and carry the values.
 */
export function byReference(request: StepRequest): StepRequest {
  // A value the run carries is its step's output, recorded under the same id (values are carried under their own step's id only).
  const recorded = Object.keys(request.context.steps).map((stepId): [string, ValueRef] => [stepId, { record: stepId }]);
  return { ...request, context: { steps: {}, refs: { ...request.context.refs, ...Object.fromEntries(recorded) } } };
}

/** Regular activities heartbeat (step-runner), so a dead worker is noticed in seconds and cancellation reaches them. */
const HEARTBEAT = '5 seconds';

const MODEL_CALL = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: HEARTBEAT,
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', backoffCoefficient: 2 },
} as const;

/**
 * `core.http` maps `retry.limit` onto Temporal retries: the activity stops
 * retrying its own failures (HTTP status, timeout, network) after `limit`
 * retries; two attempts beyond are kept for the worker itself failing
 * (killed, restarted). Other steps retry transient failures twice.
 */
function stepOptions(step: StepDefinition) {
  if (step.stepType === 'core.http') {
    const timeoutMs: number = step.input.timeoutMs ?? HTTP_DEFAULT_TIMEOUT_MS;
    return {
      startToCloseTimeout: timeoutMs + 5_000,
      retry: { maximumAttempts: (step.input.retry?.limit ?? 0) + 3, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
    };
  }
  return { startToCloseTimeout: RETURN_STEP_TIMEOUT_MS, retry: { maximumAttempts: 3, initialInterval: '200 milliseconds' } };
}

/** The bound of a step without I/O of its own (a return step among them); its templates may still read secrets and outputs from the database. */
const RETURN_STEP_TIMEOUT_MS = 30_000;
