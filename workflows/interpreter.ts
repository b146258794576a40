import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { startErrorRun } from './error-run';
import { PATCHES } from './patches';
import { reusedSteps } from './replay-from-step';
import { RunState } from './run-state';
import { awaitReplyUpdate, awaitSettledUpdate, type CallerReply, type RunEnd, type RunInput, type RunResult } from './run.types';
import { StepFailed } from './step-execution';
import { StepWalk } from './step-walk';
import { RunWaits } from './waits';

// Retried until the database answers: a run must not end unrecorded.
const { recordRunEnd } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } });

/** How the walk of a run's steps ended: the run's status, and what a caller not answered yet is told. */
type WalkEnd =
  | { status: 'completed'; reply: CallerReply }
  | { status: 'cancelled'; reply: CallerReply; cancellation: unknown }
  | { status: 'failed'; reply: CallerReply; error: { stepId?: string; message: string; code?: string } };

/**
 * Runs any workflow definition. Steps run in order, each through its type's
 * handler (step-handlers.ts, walked by step-walk.ts); the first `core.return`
 * answers a waiting caller and later steps go on. Every step is one or more
 * activities (templates are rendered there, where secrets may be
 * decrypted); short ones are local activities while the caller waits, so a
 * synchronous webhook costs one workflow task. The run's phase (run-state.ts)
 * goes from unanswered to answered (or waiting, and back) to ended.
 */
export async function runWorkflowDefinition(input: RunInput): Promise<RunResult> {
  const executionId = workflowInfo().workflowId;
  const state = new RunState();
  // In this order: each first call writes its marker, and recorded histories have them so.
  const endWithLastStep = patched(PATCHES.runEndWithLastStep.id);
  const typedValues = patched(PATCHES.typedValues.id);
  const waits = new RunWaits();
  const settings = { endWithLastStep, typedValues, stepThenReturn: () => patched(PATCHES.stepThenReturn.id) };
  const walk = new StepWalk(input, state, waits, reusedSteps(input), settings, executionId);

  setHandler(awaitReplyUpdate, async () => {
    await condition(() => state.answer !== undefined);
    return state.answer!;
  });
  // A handler adds no command: histories recorded before it replay unchanged.
  setHandler(awaitSettledUpdate, async () => {
    await condition(() => state.phase.name === 'waiting' || state.phase.name === 'ended');
    return state.phase.name === 'waiting' ? 'waiting' : 'ended';
  });

  const ended = await walk.steps(input.steps, true).then(
    (): WalkEnd => ({ status: 'completed', reply: { kind: 'completed' } }),
    (err: unknown): WalkEnd => {
      if (isCancellation(err)) return { status: 'cancelled', reply: { kind: 'cancelled' }, cancellation: err };
      // Only a step's own failure is described to callers; anything else is an internal error, named by the run.
      const error =
        err instanceof StepFailed
          ? { stepId: err.stepId, message: err.message, ...(err.code ? { code: err.code } : {}) }
          : { message: 'The run failed on an internal error; an operator can see it in Temporal' };
      return { status: 'failed', reply: { kind: 'failed', ...error }, error };
    },
  );

  state.end(ended.reply);
  waits.close(ended.reply);
  const end: RunEnd = {
    executionId,
    organizationId: input.organizationId,
    status: ended.status,
    ...(ended.status === 'failed' ? { error: ended.error } : {}),
  };
  if (end.status !== 'completed' || !state.endRecorded) await CancellationScope.nonCancellable(() => recordRunEnd(end));
  state.announce();
  if (ended.status !== 'completed') await startErrorRun(input, { ...end, status: ended.status });
  // Lets a waiting caller collect its answer before the run closes, even a cancelled one.
  await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  if (ended.status === 'cancelled') throw ended.cancellation;
  if (ended.status === 'failed') throw ApplicationFailure.nonRetryable(ended.error.message, 'StepFailed', ended.error);
  // A parent (agent workflow tool, core.workflow step) reads a child's answer from its records: it stays out of the parent's history.
  return { ...(input.agentDepth ? {} : { response: state.response }), stepsRun: state.seq };
}
