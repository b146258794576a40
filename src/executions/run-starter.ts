import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type Client,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure, TypedSearchAttributes } from '@temporalio/common';
import { newId } from '../ids';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import type { Logger } from '../logging/logger';
import type { StepDefinition } from '../workflows/definition.schemas';
import {
  awaitReplyUpdate,
  INTERPRETER_WORKFLOW,
  runDetails,
  runSummary,
  type CallerReply,
  type RunInput,
  type ReplayInput,
  type RunPresentation,
  type RunResult,
} from '../../workflows/run.types';
import { NOT_STARTED_MESSAGE, type ExecutionMode, type ExecutionsRepository } from './executions.repository';
import type { LocalReplies } from './local-replies';
import { RunEndWatch } from './run-end-watch';

const { OrganizationId: ORGANIZATION_ID, WorkflowName: WORKFLOW_NAME, TriggerName: TRIGGER_NAME, DeliveryId: DELIVERY_ID } = SEARCH_ATTRIBUTE_KEYS;

/**
 * A delivery's execution could not be claimed: its trigger has an
 * execution of that delivery id already (RunRequest.claimNewDelivery).
 * Nothing was written.
 */
export class DeliveryRecorded extends Error {
  constructor() {
    super('An execution of this delivery is recorded already');
  }
}

/**
 * A delivery's run was started already (by an earlier delivery of the same
 * id, or a concurrent one that got there first): Temporal refused the
 * second start of its workflow id. Nothing was started or marked.
 */
export class DuplicateStart extends Error {
  constructor(readonly executionId: string) {
    super(`Execution ${executionId} was started already`);
  }
}

/** A run to start: the pinned definition and where its input and environment come from. */
export interface RunRequest {
  organizationId: string;
  workflow: { id: string; name: string; version: number; steps: StepDefinition[] };
  trigger?: { id: string; name: string };
  environmentId: string | null;
  initial: Record<string, unknown>;
  mode: ExecutionMode;
  rerunOf?: string;
  /** A replay from a step: what it takes from its original (its records are copied before the run starts). */
  replay?: ReplayInput;
  /** The execution id, when the caller derives it (a bulk replay, a webhook delivery); else a new one. */
  executionId?: string;
  /**
   * A webhook delivery's id: `executionId` is derived from it, and Temporal
   * refuses a second start of that id (DuplicateStart) instead of this
   * starting a second run.
   */
  deliveryId?: string;
  /**
   * Record the execution only if its trigger has none of this delivery id
   * yet, else throw DeliveryRecorded: a new delivery costs one statement,
   * and one seen before is told apart from it.
   */
  claimNewDelivery?: boolean;
  /** Runs once the execution is recorded, before Temporal starts the run: a replay copies its reused step records. */
  beforeStart?: (executionId: string) => Promise<void>;
}

/** How long a caller waited and what it learned. `timeout`: the run goes on, the caller stops waiting. */
export type AwaitedReply = CallerReply | { kind: 'timeout' };
export type AwaitedResult = { kind: 'finished'; result: RunResult } | { kind: 'failed' } | { kind: 'timeout' } | { kind: 'waiting' };

/** How often a caller waiting for a run's end looks whether it parked at a wait instead. */
const WAITING_POLL_MS = 250;

/**
 * The worker of this process, when the API runs beside one: a client on the
 * worker's own connection (so Temporal can hand a new run's first workflow
 * task straight back to it: eager start) and the answers it announces.
 */
export interface LocalWorker {
  client: Client;
  replies: LocalReplies;
}

/**
 * A run's steps before its answer are local activities inside one workflow
 * task; when their worker dies, Temporal hands the task to another worker
 * after this (10 s by default). Local activities running longer keep the
 * task alive with heartbeats every 80% of it, so it bounds recovery, not steps.
 */
const WORKFLOW_TASK_TIMEOUT = '4 seconds';

/**
 * How long a caller waits on its local worker before also asking Temporal:
 * past it, the run may have moved to another worker (this one stalled past
 * the workflow task timeout), whose answers only the update reaches.
 */
const LOCAL_ANSWER_GRACE_MS = 3_000;

/**
 * Starts interpreter runs on Temporal. The execution row is written first
 * (a step records into it), then the run starts with search attributes that
 * let operators find it by organization, workflow and trigger.
 */
export class RunStarter {
  private local: LocalWorker | undefined;
  private readonly endWatch: RunEndWatch;

  constructor(
    private readonly client: Client,
    private readonly executions: ExecutionsRepository,
    private readonly taskQueue: string,
    private readonly logger: Logger,
  ) {
    this.endWatch = new RunEndWatch(executions);
  }

  /**
   * Runs whose caller waits start eagerly on this worker from now on, and
   * their callers take answers from it; the returned function stops that
   * (call it before the worker shuts down: later runs go through the task queue).
   */
  attachWorker(local: LocalWorker): () => void {
    this.local = local;
    return () => {
      if (this.local === local) this.local = undefined;
    };
  }

  /**
   * Starts and returns at once (202 callers). Not eagerly: eager start
   * would run the new run's first task in this process at once, competing
   * with the next caller; a 202 needs only Temporal's durable start, and the
   * workers take the backlog at their pace (`npm run bench:webhook`: about
   * 1.8 times the accepted calls per second).
   */
  async start(request: RunRequest): Promise<string> {
    const { id, options } = await this.prepare(request);
    await this.guardStart(request, id, () => this.client.workflow.start(INTERPRETER_WORKFLOW, options));
    return id;
  }

  /**
   * Starts as `start` does, and tells when the run has ended or parked at a
   * wait (`ended`; after `atMostMs` at the latest): a webhook answered at
   * once keeps its admission slot until then, so the runs accepted are the
   * runs the workers keep up with. The local worker announces its runs' ends;
   * others are looked up (RunEndWatch).
   */
  async startWatched(request: RunRequest, atMostMs: number): Promise<{ executionId: string; ended: Promise<void> }> {
    const { id, options } = await this.prepare(request);
    // Before the start: a run can end before the start call returns.
    const heard = this.local?.replies.expect(id);
    try {
      await this.guardStart(request, id, () => this.client.workflow.start(INTERPRETER_WORKFLOW, options));
    } catch (err) {
      heard?.cancel();
      throw err;
    }
    const ended = this.endWatch.until(request.organizationId, id, atMostMs, heard?.answer).finally(() => heard?.cancel());
    return { executionId: id, ended };
  }

  /**
   * What a run told its caller so far, from its records: the first return
   * step's response, how it ended, or `timeout` while it goes on without
   * having answered. A duplicate delivery's caller gets this: the first
   * caller's answer, or 202 naming the run.
   */
  async answerSoFar(organizationId: string, executionId: string): Promise<AwaitedReply> {
    const stepId = await this.executions.answeringStep(organizationId, executionId);
    if (stepId) return { kind: 'response', record: stepId, sealed: true };
    const row = await this.executions.outcome(organizationId, executionId);
    if (!row) return { kind: 'timeout' };
    switch (row.status) {
      case 'running':
      case 'waiting':
        return { kind: 'timeout' };
      case 'completed':
        return { kind: 'completed' };
      case 'cancelled':
        return { kind: 'cancelled' };
      default:
        return { kind: 'failed', ...(row.error?.stepId ? { stepId: row.error.stepId } : {}), message: row.error?.message ?? 'The run failed' };
    }
  }

  /**
   * Starts and waits, at most `timeoutMs`, for the run's answer: the first
   * return step's response, or how the run ended. Beside a worker, the run
   * starts eagerly on it and the answer comes from it; otherwise
   * update-with-start makes this one round trip to Temporal.
   */
  async startAndAwaitReply(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; answer: AwaitedReply }> {
    const local = this.local;
    if (local) return this.startLocallyAndAwaitReply(local, request, timeoutMs);
    const { id, options } = await this.prepare(request);
    // FAIL: a run of this id already there is an error, never a run this caller attaches to (a delivery's duplicate learns it is one).
    const operation = new WithStartWorkflowOperation(INTERPRETER_WORKFLOW, { ...options, workflowIdConflictPolicy: 'FAIL' });
    // The deadline also ends the update's long poll, so callers who gave up leave nothing waiting in this process.
    const deadline = AbortSignal.timeout(timeoutMs);
    const update = this.client.withAbortSignal(deadline, () =>
      this.client.workflow.executeUpdateWithStart(awaitReplyUpdate, { startWorkflowOperation: operation }),
    );
    const answer = await update.then(
      (a): AwaitedReply => a,
      async (err): Promise<AwaitedReply> => {
        if (request.deliveryId && err instanceof WorkflowExecutionAlreadyStartedError) throw new DuplicateStart(id);
        // The start is only confirmed together with the update's acceptance, which a long first step delays: ask Temporal.
        const started = await this.exists(id);
        if (!started) throw await this.notStarted(request, id, err);
        // Started, then no answer: past the deadline, or closed without answering (terminated, timed out).
        return deadline.aborted ? { kind: 'timeout' } : { kind: 'failed', message: 'The run ended before it answered' };
      },
    );
    return { executionId: id, answer };
  }

  /**
   * The fast path: eager start hands the first workflow task to this
   * process's worker without a trip through the task queue, and the answer
   * arrives through the interpreter's sink the moment the workflow has it.
   * A run that did not start here, or that moved to another worker, is
   * asked through Temporal (the update, or its result once closed).
   */
  private async startLocallyAndAwaitReply(local: LocalWorker, request: RunRequest, timeoutMs: number) {
    const { id, options } = await this.prepare(request);
    const deadline = AbortSignal.timeout(timeoutMs);
    const heard = local.replies.expect(id);
    let grace: NodeJS.Timeout | undefined;
    try {
      const handle = await this.guardStart(request, id, () => local.client.workflow.start(INTERPRETER_WORKFLOW, { ...options, requestEagerStart: true }));
      const askTemporal = new Promise<AwaitedReply>((resolve) => {
        grace = setTimeout(() => resolve(this.askTemporal(request.organizationId, handle, deadline)), handle.eagerlyStarted ? LOCAL_ANSWER_GRACE_MS : 0);
      });
      const timedOut = new Promise<AwaitedReply>((resolve) => deadline.addEventListener('abort', () => resolve({ kind: 'timeout' }), { once: true }));
      const answer = await Promise.race([heard.answer, askTemporal, timedOut]);
      return { executionId: id, answer };
    } finally {
      clearTimeout(grace);
      heard.cancel();
    }
  }

  /**
   * The answer of a started run, through the update. A run that closed
   * before the update reached it answered, if at all, with its first
   * completed return step (a later step may have failed it since): that
   * record, else how the run closed.
   */
  private async askTemporal(organizationId: string, handle: WorkflowHandle, deadline: AbortSignal): Promise<AwaitedReply> {
    const run = this.client.workflow.getHandle(handle.workflowId);
    try {
      return await this.client.withAbortSignal(deadline, () => run.executeUpdate(awaitReplyUpdate));
    } catch {
      if (deadline.aborted) return { kind: 'timeout' };
    }
    const closed = await this.client
      .withAbortSignal(deadline, () => run.result())
      .then(
        (): AwaitedReply => ({ kind: 'completed' }),
        (err): AwaitedReply => (deadline.aborted ? { kind: 'timeout' } : closedWithoutReply(err)),
      );
    if (closed.kind === 'timeout') return closed;
    const stepId = await this.executions.answeringStep(organizationId, handle.workflowId);
    // A reference to the recorded response, `sealed` for its sealed original when it held secrets (ReplyResolver resolves both).
    return stepId ? { kind: 'response', record: stepId, sealed: true } : closed;
  }

  /**
   * Starts the run of a derived execution id unless Temporal already had one
   * of that id (a bulk replay's retried start): the id is refused once used,
   * running or closed, so the run starts once however often this is called.
   * The record is written once too. A failure is thrown as it is, without
   * marking the execution failed: the caller retries it.
   */
  async startOnce(request: RunRequest & { executionId: string }): Promise<{ executionId: string; started: boolean }> {
    const { id, options } = await this.prepare(request);
    try {
      await this.client.workflow.start(INTERPRETER_WORKFLOW, { ...options, workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowIdConflictPolicy: 'FAIL' });
      return { executionId: id, started: true };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return { executionId: id, started: false };
      throw err;
    }
  }

  /**
   * Starts and waits, at most `timeoutMs`, for the run to end (test runs,
   * synchronous API runs); a run that parks at a `core.wait` step ends the
   * wait at once (`waiting`), since nothing bounds how long it parks.
   */
  async startAndAwaitResult(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; outcome: AwaitedResult }> {
    const { id, options } = await this.prepare(request);
    const handle = await this.guardStart(request, id, () => this.client.workflow.start(INTERPRETER_WORKFLOW, options));
    const deadline = AbortSignal.timeout(timeoutMs);
    const done = new AbortController();
    const ended = this.client
      .withAbortSignal(AbortSignal.any([deadline, done.signal]), () => handle.result())
      .then(
        (result: RunResult): AwaitedResult => ({ kind: 'finished', result }),
        (): AwaitedResult => (deadline.aborted ? { kind: 'timeout' } : { kind: 'failed' }),
      );
    const parked = (async (): Promise<AwaitedResult | undefined> => {
      while (!deadline.aborted && !done.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, WAITING_POLL_MS));
        const status = await this.executions.status(request.organizationId, id).catch(() => undefined);
        if (status === 'waiting') return { kind: 'waiting' };
      }
      return undefined;
    })();
    try {
      const outcome = await Promise.race([ended, parked.then((waiting) => waiting ?? ended)]);
      return { executionId: id, outcome };
    } finally {
      done.abort();
    }
  }

  private async prepare(request: RunRequest) {
    const id = request.executionId ?? newId();
    const claimed = await this.executions.insert(
      {
        id,
        organizationId: request.organizationId,
        workflowId: request.workflow.id,
        workflowName: request.workflow.name,
        workflowVersion: request.workflow.version,
        triggerId: request.trigger?.id ?? null,
        triggerName: request.trigger?.name ?? null,
        environmentId: request.environmentId,
        mode: request.mode,
        input: request.initial,
        rerunOf: request.rerunOf ?? null,
        replayOf: request.replay?.of ?? null,
        replayFromStepId: request.replay?.fromStepId ?? null,
        deliveryId: request.deliveryId ?? null,
      },
      { unlessDeliverySeen: request.claimNewDelivery },
    );
    if (request.claimNewDelivery && !claimed) throw new DeliveryRecorded();
    // A derived id is retried by its caller, which must find the execution still open; a new one would sit "running".
    await request.beforeStart?.(id).catch(async (err: unknown) => {
      throw request.executionId ? err : await this.notStarted(request, id, err);
    });
    const input: RunInput = {
      organizationId: request.organizationId,
      workflow: { id: request.workflow.id, name: request.workflow.name, version: request.workflow.version },
      ...(request.trigger ? { trigger: request.trigger } : {}),
      ...(request.environmentId ? { environmentId: request.environmentId } : {}),
      initial: request.initial,
      steps: request.workflow.steps,
      ...(request.replay ? { replay: request.replay } : {}),
    };
    const shown: RunPresentation = {
      organizationId: request.organizationId,
      workflow: input.workflow,
      mode: request.mode,
      trigger: request.trigger,
      origin: request.rerunOf
        ? `a rerun of execution ${request.rerunOf}`
        : request.replay
          ? `a replay of execution ${request.replay.of} from step ${request.replay.fromStepId}`
          : undefined,
    };
    const options: WorkflowStartOptions = {
      workflowId: id,
      taskQueue: this.taskQueue,
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
      args: [input],
      typedSearchAttributes: new TypedSearchAttributes([
        { key: ORGANIZATION_ID, value: request.organizationId },
        { key: WORKFLOW_NAME, value: request.workflow.name },
        ...(request.trigger ? [{ key: TRIGGER_NAME, value: request.trigger.name }] : []),
        ...(request.deliveryId ? [{ key: DELIVERY_ID, value: request.deliveryId }] : []),
      ]),
      memo: { workflowId: request.workflow.id, version: request.workflow.version, mode: request.mode },
      staticSummary: runSummary(shown),
      staticDetails: runDetails(shown),
      // A delivery's id is refused once used, running (FAIL) or closed (REJECT_DUPLICATE), for as long as Temporal remembers it.
      ...(request.deliveryId ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const, workflowIdConflictPolicy: 'FAIL' as const } : {}),
    };
    return { id, options };
  }

  private async guardStart<T>(request: RunRequest, id: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (err) {
      // A delivery's execution is shared by its duplicates: once Temporal has a run of this id (refused as a duplicate, or
      // started by another caller or by this very call before its answer was lost), the execution is that run's, not this caller's to mark.
      if (request.deliveryId && (err instanceof WorkflowExecutionAlreadyStartedError || (await this.exists(id)))) throw new DuplicateStart(id);
      throw await this.notStarted(request, id, err);
    }
  }

  private exists(workflowId: string): Promise<boolean> {
    return this.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      );
  }

  /** A run Temporal never accepted is marked failed, so it does not sit "running" forever; returns the error to throw. */
  private async notStarted(request: RunRequest, id: string, err: unknown): Promise<unknown> {
    this.logger.error({ executionId: id, err: { type: (err as Error).name, message: (err as Error).message } }, 'run did not start');
    await this.executions.finish(request.organizationId, id, 'failed', { message: NOT_STARTED_MESSAGE }).catch(() => undefined);
    return err;
  }
}

/** What a caller is told of a run that closed without answering, from how it closed. */
function closedWithoutReply(err: unknown): AwaitedReply {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof CancelledFailure) return { kind: 'cancelled' };
  if (cause instanceof ApplicationFailure && cause.type === 'StepFailed') {
    const error = (cause.details?.[0] ?? {}) as { stepId?: string; message?: string };
    return { kind: 'failed', ...(error.stepId ? { stepId: error.stepId } : {}), message: error.message ?? cause.message };
  }
  return { kind: 'failed', message: 'The run ended before it answered' };
}
