import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Logger } from '../logging/logger';
import { INTERPRETER_WORKFLOW } from '../../workflows/run.types';
import type { AwaitedReply, AwaitedResult } from './awaited-answers';
import type { ExecutionsRepository } from './executions.repository';
import type { LocalWorker } from './local-replies';
import type { RunClient } from './run-client';
import { RunEndWatch } from './run-end-watch';
import { RunLauncher } from './run-launcher';
import type { RunRequest } from './run-request';
import { ReplyAwaiter } from './reply-awaiter';
import { ResultAwaiter } from './result-awaiter';

/** What starting and awaiting runs read and write of executions. */
export type StarterRecords = Pick<ExecutionsRepository, 'insert' | 'finish' | 'answeringStep' | 'outcome' | 'status' | 'stillRunning'>;

/**
 * Starts interpreter runs on Temporal, in each of the ways callers need:
 * at once (202 callers, reruns), watched until they end (webhooks answered
 * at once), once per derived id (bulk replays), or awaited for their answer
 * (ReplyAwaiter) or their end (ResultAwaiter). The execution row is written
 * first (RunLauncher), then the run starts.
 */
export class RunStarter {
  private local: LocalWorker | undefined;
  private readonly launcher: RunLauncher;
  private readonly endWatch: RunEndWatch;
  private readonly replies: ReplyAwaiter;
  private readonly results: ResultAwaiter;

  constructor(client: RunClient, executions: StarterRecords, taskQueue: string, logger: Logger) {
    this.launcher = new RunLauncher(client, executions, taskQueue, logger);
    this.endWatch = new RunEndWatch(executions);
    this.replies = new ReplyAwaiter(this.launcher, executions);
    this.results = new ResultAwaiter(this.launcher, executions);
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
    const { id, options } = await this.launcher.prepare(request);
    await this.launcher.guard(request, id, () => this.launcher.client.workflow.start(INTERPRETER_WORKFLOW, options));
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
    const { id, options } = await this.launcher.prepare(request);
    // Before the start: a run can end before the start call returns.
    const heard = this.local?.replies.expect(id);
    try {
      await this.launcher.guard(request, id, () => this.launcher.client.workflow.start(INTERPRETER_WORKFLOW, options));
    } catch (err) {
      heard?.cancel();
      throw err;
    }
    const ended = this.endWatch.until(request.organizationId, id, atMostMs, heard?.answer).finally(() => heard?.cancel());
    return { executionId: id, ended };
  }

  /**
   * Starts the run of a derived execution id unless Temporal already had one
   * of that id (a bulk replay's retried start): the id is refused once used,
   * running or closed, so the run starts once however often this is called.
   * The record is written once too. A failure is thrown as it is, without
   * marking the execution failed: the caller retries it.
   */
  async startOnce(request: RunRequest & { executionId: string }): Promise<{ executionId: string; started: boolean }> {
    const { id, options } = await this.launcher.prepare(request);
    try {
      await this.launcher.client.workflow.start(INTERPRETER_WORKFLOW, {
        ...options,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
      });
      return { executionId: id, started: true };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return { executionId: id, started: false };
      throw err;
    }
  }

  /** Starts and waits, at most `timeoutMs`, for the run's answer (ReplyAwaiter.startAndAwait). */
  startAndAwaitReply(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; answer: AwaitedReply }> {
    return this.replies.startAndAwait(request, timeoutMs, this.local);
  }

  /** What a run told its caller so far, from its records (ReplyAwaiter.soFar): a duplicate delivery's caller gets this. */
  answerSoFar(organizationId: string, executionId: string): Promise<AwaitedReply> {
    return this.replies.soFar(organizationId, executionId);
  }

  /** Starts and waits, at most `timeoutMs`, for the run to end or park at a wait (ResultAwaiter.startAndAwait). */
  startAndAwaitResult(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; outcome: AwaitedResult }> {
    return this.results.startAndAwait(request, timeoutMs);
  }
}
