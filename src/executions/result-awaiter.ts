import { awaitSettledUpdate, INTERPRETER_WORKFLOW } from '../../workflows/run.types';
import type { AwaitedResult } from './awaited-answers';
import type { ExecutionsRepository } from './executions.repository';
import type { RunLauncher } from './run-launcher';
import type { RunRequest } from './run-request';

/** What awaiting a run's end reads of executions: its status, once, at the deadline. */
export type ResultRecords = Pick<ExecutionsRepository, 'status'>;

/**
 * Starts runs whose caller waits for their end (test runs, synchronous API
 * runs). Two long polls on Temporal tell it: the run's result, and the
 * `awaitSettled` update, which is `waiting` when the run parks at a
 * `core.wait` step (whether or not a return step answered before).
 */
export class ResultAwaiter {
  constructor(
    private readonly launcher: RunLauncher,
    private readonly executions: ResultRecords,
  ) {}

  /**
   * Starts and waits, at most `timeoutMs`, for the run to end; a run that
   * parks at a `core.wait` step ends the wait at once (`waiting`), since
   * nothing bounds how long it parks.
   */
  async startAndAwait(request: RunRequest, timeoutMs: number): Promise<{ executionId: string; outcome: AwaitedResult }> {
    const { client } = this.launcher;
    const { id, options } = await this.launcher.prepare(request);
    const handle = await this.launcher.guard(request, id, () => client.workflow.start(INTERPRETER_WORKFLOW, options));
    const deadline = AbortSignal.timeout(timeoutMs);
    const done = new AbortController();
    // Ending both long polls once the outcome is known leaves nothing waiting in this process for a caller already answered.
    const calls = AbortSignal.any([deadline, done.signal]);
    const ended = client
      .withAbortSignal(calls, () => handle.result())
      .then(
        (result): AwaitedResult => ({ kind: 'finished', result }),
        (): AwaitedResult | Promise<AwaitedResult> =>
          deadline.aborted && !done.signal.aborted ? this.parkedAtDeadline(request.organizationId, id) : { kind: 'failed' },
      );
    // `ended` leaves the outcome to the result; so does an update that failed (the run closed before it reached it, or
    // it runs a bundle from before the update, which the deadline's read covers).
    const parked = client
      .withAbortSignal(calls, () => handle.executeUpdate(awaitSettledUpdate))
      .then(
        (settled): AwaitedResult | Promise<AwaitedResult> => (settled === 'waiting' ? { kind: 'waiting' } : ended),
        () => ended,
      );
    try {
      return { executionId: id, outcome: await Promise.race([ended, parked]) };
    } finally {
      done.abort();
    }
  }

  /**
   * The one read of the run's record, at the deadline, for a run of a
   * workflow bundle from before `awaitSettled` (a deploy in progress): its
   * wait step records it `waiting`, which the caller learns from the record
   * once, when it would otherwise be told `timeout`.
   */
  private async parkedAtDeadline(organizationId: string, id: string): Promise<AwaitedResult> {
    const status = await this.executions.status(organizationId, id).catch(() => undefined);
    return status === 'waiting' ? { kind: 'waiting' } : { kind: 'timeout' };
  }
}
