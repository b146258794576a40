import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ServiceError,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
  type WithStartWorkflowOperation,
  type Workflow,
  type WorkflowStartOptions,
} from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TerminatedFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/common';
import type { CallerReply, RunResult, RunSettled } from '../../workflows/run.types';
import type { ExecutionStatus } from './executions.constants';
import type { ExecutionRow, ExecutionsRepository } from './executions.repository';
import type { RunClient, RunHandle, StartedRun } from './run-client';
import type { StarterRecords } from './run-starter';

/** What a promise that is settled later exposes to the one settling it. */
class Later<T> {
  readonly promise: Promise<T>;
  resolve!: (value: T) => void;
  reject!: (err: unknown) => void;
  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Nobody may ever wait on it; an unwaited rejection is not a test failure.
    this.promise.catch(() => undefined);
  }
}

/**
 * One run in the fake Temporal: a test drives it as the interpreter and the
 * server would (`answer`, `complete`, `fail`, `cancel`, `terminate`), and
 * callers see it through the handles and errors the real client gives.
 */
export class FakeRun {
  /** The first answer, as the interpreter's `awaitAnswer` update returns it. */
  private readonly reply = new Later<CallerReply>();
  /** Where it settled, as the interpreter's `awaitSettled` update returns it. */
  private readonly settled = new Later<RunSettled>();
  private readonly closed = new Later<RunResult>();
  isClosed = false;
  /** How many `awaitAnswer` and `awaitSettled` updates reached the run (with start or on their own). */
  updates = 0;
  /** False: a run of a bundle from before `awaitSettled`, which refuses that update as the server does an unknown one. */
  knowsSettled = true;

  constructor(
    readonly workflowId: string,
    readonly options: WorkflowStartOptions,
    readonly eagerlyStarted: boolean,
  ) {}

  answer(reply: CallerReply): void {
    this.reply.resolve(reply);
  }

  /** Parks at a wait: a caller not answered yet is told it waits, and the run has settled. */
  park(stepId: string, event?: string): void {
    this.reply.resolve({ kind: 'waiting', stepId, event });
    this.settled.resolve('waiting');
  }

  complete(result: RunResult = { stepsRun: 1 }): void {
    this.close(() => this.closed.resolve(result));
  }

  /** Fails as the interpreter fails a run: a non-retryable StepFailed carrying the step and message. */
  fail(error: { stepId?: string; message: string }): void {
    this.close(() =>
      this.closed.reject(
        new WorkflowFailedError(
          'Workflow execution failed',
          ApplicationFailure.nonRetryable(error.message, 'StepFailed', error),
          RetryState.NON_RETRYABLE_FAILURE,
        ),
      ),
    );
  }

  cancel(): void {
    this.close(() =>
      this.closed.reject(new WorkflowFailedError('Workflow execution cancelled', new CancelledFailure('cancelled'), RetryState.CANCEL_REQUESTED)),
    );
  }

  /** Ended by an operator: no answer, whatever the run had reached. */
  terminate(): void {
    this.close(() =>
      this.closed.reject(new WorkflowFailedError('Workflow execution terminated', new TerminatedFailure('terminated'), RetryState.NON_RETRYABLE_FAILURE)),
    );
  }

  /** The update's answer; an update that reaches a closed run fails, as the server refuses it. */
  awaitAnswer(): Promise<CallerReply> {
    this.updates++;
    if (this.isClosed) return Promise.reject(new WorkflowNotFoundError('workflow execution already completed', this.workflowId, undefined));
    return this.reply.promise;
  }

  /** The `awaitSettled` update's answer; closed runs and runs without the handler refuse it. */
  awaitSettled(): Promise<RunSettled> {
    this.updates++;
    if (this.isClosed) return Promise.reject(new WorkflowNotFoundError('workflow execution already completed', this.workflowId, undefined));
    if (!this.knowsSettled) return Promise.reject(new WorkflowUpdateFailedError('Update handler not found: awaitSettled', undefined));
    return this.settled.promise;
  }

  result(): Promise<RunResult> {
    return this.closed.promise;
  }

  private close(settle: () => void): void {
    this.isClosed = true;
    // An update in flight when the run ends is answered (the run waits for its handlers); later ones are refused.
    this.settled.resolve('ended');
    this.reply.reject(new WorkflowNotFoundError('workflow execution already completed', this.workflowId, undefined));
    settle();
  }
}

/**
 * The parts of `@temporalio/client` that RunStarter uses, in memory: starts
 * with the id policies and WorkflowExecutionAlreadyStartedError, update with
 * start, handles (result, the `awaitAnswer` update, describe) and
 * `withAbortSignal`, which cancels the calls made inside it as the real
 * client does (a ServiceError for a cancelled call).
 */
export class FakeTemporal implements RunClient {
  readonly runs = new Map<string, FakeRun>();
  /** Whether a start that asks for eager start gets it (the server may refuse it). */
  grantsEagerStart = true;
  /** The next start (plain or with an update) fails with this, as an unreachable server would. */
  failNextStart: Error | undefined;
  /** Called as each run starts, before the start call returns: a test's worker reacts to it. */
  onStart: (run: FakeRun) => void = () => undefined;
  private readonly scope = new AsyncLocalStorage<AbortSignal>();

  readonly workflow = {
    start: async (_workflowType: string, options: WorkflowStartOptions): Promise<StartedRun> => {
      const run = this.begin(options, options.requestEagerStart === true && this.grantsEagerStart);
      return this.handle(run.workflowId, run.eagerlyStarted);
    },
    executeUpdateWithStart: async (_update: unknown, options: { startWorkflowOperation: WithStartWorkflowOperation<Workflow> }): Promise<CallerReply> => {
      const signal = this.scope.getStore();
      const run = this.begin(options.startWorkflowOperation.options, false);
      return this.abortable(run.awaitAnswer(), signal);
    },
    getHandle: (workflowId: string): RunHandle => this.handle(workflowId, false),
  };

  withAbortSignal<R>(signal: AbortSignal, fn: () => Promise<R>): Promise<R> {
    return this.scope.run(signal, fn);
  }

  /** The one run of an id; fails the test when there is none. */
  run(workflowId: string): FakeRun {
    const run = this.runs.get(workflowId);
    if (!run) throw new Error(`No run ${workflowId} was started`);
    return run;
  }

  /** The run started most recently. */
  get last(): FakeRun {
    const runs = [...this.runs.values()];
    if (runs.length === 0) throw new Error('No run was started');
    return runs[runs.length - 1]!;
  }

  private begin(options: WorkflowStartOptions, eagerlyStarted: boolean): FakeRun {
    const failure = this.failNextStart;
    this.failNextStart = undefined;
    if (failure) throw failure;
    const { workflowId } = options;
    const earlier = this.runs.get(workflowId);
    // The server's id rules: a running id is refused unless the conflict policy says otherwise; a closed one under REJECT_DUPLICATE.
    if (earlier && (!earlier.isClosed || options.workflowIdReusePolicy === 'REJECT_DUPLICATE')) {
      throw new WorkflowExecutionAlreadyStartedError('Workflow execution already started', workflowId, 'runWorkflowDefinition');
    }
    const run = new FakeRun(workflowId, options, eagerlyStarted);
    this.runs.set(workflowId, run);
    this.onStart(run);
    return run;
  }

  private handle(workflowId: string, eagerlyStarted: boolean): StartedRun {
    const found = () => this.runs.get(workflowId);
    const missing = () => new WorkflowNotFoundError(`Workflow not found: ${workflowId}`, workflowId, undefined);
    return {
      workflowId,
      eagerlyStarted,
      result: () => {
        const signal = this.scope.getStore();
        const run = found();
        return this.abortable(run ? run.result() : Promise.reject(missing()), signal);
      },
      executeUpdate: ((update: { name: string }) => {
        const signal = this.scope.getStore();
        const run = found();
        if (!run) return this.abortable(Promise.reject(missing()), signal);
        return update.name === 'awaitSettled' ? this.abortable(run.awaitSettled(), signal) : this.abortable(run.awaitAnswer(), signal);
      }) as RunHandle['executeUpdate'],
      describe: async () => {
        if (!found()) throw missing();
        return { workflowId };
      },
    };
  }

  private abortable<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) return call;
    return new Promise<T>((resolve, reject) => {
      const cancelled = () => reject(new ServiceError('Call cancelled', { cause: Object.assign(new Error('1 CANCELLED: Call cancelled'), { code: 1 }) }));
      if (signal.aborted) return cancelled();
      signal.addEventListener('abort', cancelled, { once: true });
      call.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancelled));
    });
  }
}

type Recorded = Parameters<ExecutionsRepository['insert']>[0];

/** The executions RunStarter reads and writes, in memory, with the repository's rules (a delivery claimed once, only open runs finished). */
export class InMemoryExecutions implements StarterRecords {
  readonly rows = new Map<string, Recorded & Pick<ExecutionRow, 'status' | 'error'>>();
  /** A run's first completed return step, by execution id. */
  readonly answering = new Map<string, string>();
  /** How many times each method was called. */
  readonly calls = { status: 0, stillRunning: 0 };

  async insert(e: Recorded, options: { unlessDeliverySeen?: boolean } = {}): Promise<boolean> {
    const seen = [...this.rows.values()].some((r) => r.organizationId === e.organizationId && r.triggerId === e.triggerId && r.deliveryId === e.deliveryId);
    // ON CONFLICT (id) DO NOTHING: a derived id retried keeps its first record.
    if ((options.unlessDeliverySeen && seen) || this.rows.has(e.id)) return false;
    this.rows.set(e.id, { ...e, status: 'running', error: null });
    return true;
  }

  async finish(organizationId: string, id: string, status: ExecutionStatus, error: ExecutionRow['error']): Promise<void> {
    const row = this.rows.get(id);
    if (row?.organizationId === organizationId && (row.status === 'running' || row.status === 'waiting')) Object.assign(row, { status, error });
  }

  async answeringStep(organizationId: string, executionId: string): Promise<string | undefined> {
    return this.rows.get(executionId)?.organizationId === organizationId ? this.answering.get(executionId) : undefined;
  }

  async outcome(organizationId: string, id: string): Promise<Pick<ExecutionRow, 'status' | 'error'> | undefined> {
    const row = this.rows.get(id);
    return row?.organizationId === organizationId ? { status: row.status, error: row.error } : undefined;
  }

  async status(organizationId: string, id: string): Promise<ExecutionStatus | undefined> {
    this.calls.status++;
    const row = this.rows.get(id);
    return row?.organizationId === organizationId ? row.status : undefined;
  }

  async stillRunning(runs: Array<{ organizationId: string; id: string }>): Promise<Set<string>> {
    this.calls.stillRunning++;
    return new Set(runs.filter((r) => this.rows.get(r.id)?.status === 'running').map((r) => r.id));
  }

  /** Sets a run's recorded status, as its steps would. */
  mark(id: string, status: ExecutionStatus, error: ExecutionRow['error'] = null): void {
    const row = this.rows.get(id);
    if (!row) throw new Error(`No execution ${id} was recorded`);
    Object.assign(row, { status, error });
  }
}
