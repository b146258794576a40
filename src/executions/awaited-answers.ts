import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { CallerReply, RunResult } from '../../workflows/run.types';
import type { ExecutionRow } from './executions.repository';

/** How long a caller waited and what it learned. `timeout`: the run goes on, the caller stops waiting. */
export type AwaitedReply = CallerReply | { kind: 'timeout' };
export type AwaitedResult = { kind: 'finished'; result: RunResult } | { kind: 'failed' } | { kind: 'timeout' } | { kind: 'waiting' };

/** A reference to a return step's recorded response, `sealed` for its sealed original when it held secrets (ReplyResolver resolves both). */
export function recordedResponse(stepId: string): AwaitedReply {
  return { kind: 'response', record: stepId, sealed: true };
}

/** What a caller is told of a run that closed without answering, from how it closed (the error of its result). */
export function closedWithoutReply(err: unknown): AwaitedReply {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof CancelledFailure) return { kind: 'cancelled' };
  if (cause instanceof ApplicationFailure && cause.type === 'StepFailed') {
    const error = (cause.details?.[0] ?? {}) as { stepId?: string; message?: string };
    return { kind: 'failed', ...(error.stepId ? { stepId: error.stepId } : {}), message: error.message ?? cause.message };
  }
  return { kind: 'failed', message: 'The run ended before it answered' };
}

/** What a run that has not answered told its caller, from its recorded status: how it ended, or `timeout` while it goes on. */
export function replyFromOutcome(outcome: Pick<ExecutionRow, 'status' | 'error'> | undefined): AwaitedReply {
  if (!outcome) return { kind: 'timeout' };
  switch (outcome.status) {
    case 'running':
    case 'waiting':
      return { kind: 'timeout' };
    case 'completed':
      return { kind: 'completed' };
    case 'cancelled':
      return { kind: 'cancelled' };
    default:
      return { kind: 'failed', ...(outcome.error?.stepId ? { stepId: outcome.error.stepId } : {}), message: outcome.error?.message ?? 'The run failed' };
  }
}
