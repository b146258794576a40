import type { WithStartWorkflowOperation, Workflow, WorkflowStartOptions } from '@temporalio/client';
import type { awaitReplyUpdate, awaitSettledUpdate, CallerReply, INTERPRETER_WORKFLOW, RunResult, RunSettled } from '../../workflows/run.types';

/**
 * The parts of Temporal's client (`@temporalio/client`'s Client) that start
 * runs and await them: a Client is one, and unit tests pass a small fake
 * (fake-temporal.fixture.ts) that throws the client's own errors.
 */
export interface RunClient {
  workflow: {
    start(workflowType: typeof INTERPRETER_WORKFLOW, options: WorkflowStartOptions): Promise<StartedRun>;
    executeUpdateWithStart(update: typeof awaitReplyUpdate, options: { startWorkflowOperation: WithStartWorkflowOperation<Workflow> }): Promise<CallerReply>;
    getHandle(workflowId: string): RunHandle;
  };
  /** Aborts the service calls made in `fn` (their long polls included) when `signal` aborts. */
  withAbortSignal<R>(signal: AbortSignal, fn: () => Promise<R>): Promise<R>;
}

/** A run Temporal knows by its workflow id (the execution id). */
export interface RunHandle {
  readonly workflowId: string;
  /** The run's result, once it closes: a long poll; WorkflowFailedError when it failed, was cancelled, terminated or timed out. */
  result(): Promise<RunResult>;
  executeUpdate(update: typeof awaitReplyUpdate): Promise<CallerReply>;
  executeUpdate(update: typeof awaitSettledUpdate): Promise<RunSettled>;
  /** Rejects when Temporal has no run of this id. */
  describe(): Promise<unknown>;
}

/** The handle a start returns: `eagerlyStarted` when Temporal handed the first workflow task straight to the starting worker. */
export interface StartedRun extends RunHandle {
  readonly eagerlyStarted: boolean;
}
