import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { awaitReplyUpdate, INTERPRETER_WORKFLOW } from '../../workflows/run.types';
import { closedWithoutReply, recordedResponse, replyFromOutcome, type AwaitedReply } from './awaited-answers';
import { DuplicateStart } from './duplicate-starts';
import type { ExecutionsRepository } from './executions.repository';
import type { LocalWorker } from './local-replies';
import type { RunHandle } from './run-client';
import type { RunLauncher } from './run-launcher';
import type { RunRequest } from './run-request';

/**
 * How long a caller waits on its local worker before also asking Temporal:
 * past it, the run may have moved to another worker (this one stalled past
 * the workflow task timeout), whose answers only the update reaches.
 */
const LOCAL_ANSWER_GRACE_MS = 3_000;

/** What awaiting reads of executions: a run's recorded answer and how it stands. */
export type ReplyRecords = Pick<ExecutionsRepository, 'answeringStep' | 'outcome'>;

/**
 * Starts runs whose caller waits for their answer (synchronous webhooks):
 * the first return step's response, or how the run ended without one. The
 * answer comes from the local worker when there is one, else from Temporal.
 */
export class ReplyAwaiter {
  constructor(
    private readonly launcher: RunLauncher,
    private readonly executions: ReplyRecords,
  ) {}

  /**
   * Starts and waits, at most `timeoutMs`, for the run's answer. Beside a
   * worker (`local`), the run starts eagerly on it and the answer comes from
   * it; otherwise update-with-start makes this one round trip to Temporal.
   */
  async startAndAwait(request: RunRequest, timeoutMs: number, local?: LocalWorker): Promise<{ executionId: string; answer: AwaitedReply }> {
    if (local) return this.startLocallyAndAwait(local, request, timeoutMs);
    const { client } = this.launcher;
    const { id, options } = await this.launcher.prepare(request);
    // FAIL: a run of this id already there is an error, never a run this caller attaches to (a delivery's duplicate learns it is one).
    const operation = new WithStartWorkflowOperation(INTERPRETER_WORKFLOW, { ...options, workflowIdConflictPolicy: 'FAIL' });
    // The deadline also ends the update's long poll, so callers who gave up leave nothing waiting in this process.
    const deadline = AbortSignal.timeout(timeoutMs);
    const update = client.withAbortSignal(deadline, () => client.workflow.executeUpdateWithStart(awaitReplyUpdate, { startWorkflowOperation: operation }));
    const answer = await update.then(
      (a): AwaitedReply => a,
      async (err): Promise<AwaitedReply> => {
        if (request.deliveryId && err instanceof WorkflowExecutionAlreadyStartedError) throw new DuplicateStart(id);
        // The start is only confirmed together with the update's acceptance, which a long first step delays: ask Temporal.
        const started = await this.launcher.exists(id);
        if (!started) throw await this.launcher.notStarted(request, id, err);
        // Started, then no answer: past the deadline, or closed without answering (terminated, timed out).
        return deadline.aborted ? { kind: 'timeout' } : { kind: 'failed', message: 'The run ended before it answered' };
      },
    );
    return { executionId: id, answer };
  }

  /**
   * What a run told its caller so far, from its records: the first return
   * step's response, how it ended, or `timeout` while it goes on without
   * having answered. A duplicate delivery's caller gets this: the first
   * caller's answer, or 202 naming the run.
   */
  async soFar(organizationId: string, executionId: string): Promise<AwaitedReply> {
    const stepId = await this.executions.answeringStep(organizationId, executionId);
    if (stepId) return recordedResponse(stepId);
    return replyFromOutcome(await this.executions.outcome(organizationId, executionId));
  }

  /**
   * The fast path: eager start hands the first workflow task to this
   * process's worker without a trip through the task queue, and the answer
   * arrives through the interpreter's sink the moment the workflow has it.
   * A run that did not start here, or that moved to another worker, is
   * asked through Temporal (the update, or its result once closed).
   */
  private async startLocallyAndAwait(local: LocalWorker, request: RunRequest, timeoutMs: number) {
    const { id, options } = await this.launcher.prepare(request);
    const deadline = AbortSignal.timeout(timeoutMs);
    const heard = local.replies.expect(id);
    let grace: NodeJS.Timeout | undefined;
    try {
      const handle = await this.launcher.guard(request, id, () => local.client.workflow.start(INTERPRETER_WORKFLOW, { ...options, requestEagerStart: true }));
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
  private async askTemporal(organizationId: string, handle: RunHandle, deadline: AbortSignal): Promise<AwaitedReply> {
    const { client } = this.launcher;
    const run = client.workflow.getHandle(handle.workflowId);
    try {
      return await client.withAbortSignal(deadline, () => run.executeUpdate(awaitReplyUpdate));
    } catch {
      if (deadline.aborted) return { kind: 'timeout' };
    }
    const closed = await client
      .withAbortSignal(deadline, () => run.result())
      .then(
        (): AwaitedReply => ({ kind: 'completed' }),
        (err): AwaitedReply => (deadline.aborted ? { kind: 'timeout' } : closedWithoutReply(err)),
      );
    if (closed.kind === 'timeout') return closed;
    const stepId = await this.executions.answeringStep(organizationId, handle.workflowId);
    return stepId ? recordedResponse(stepId) : closed;
  }
}
