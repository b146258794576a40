import type { CallerReply } from '../../workflows/run.types';

/**
 * Callers waiting in this process for the answer of a run, and the worker of
 * this process handing answers over (the interpreter's `callerReplies` sink).
 * An answer nobody here waits for (the run's caller is in another process,
 * or gave up) is dropped: the update through Temporal still answers those.
 */
export class LocalReplies {
  private readonly waiting = new Map<string, (answer: CallerReply) => void>();

  /** Registers a caller before its run starts, so an answer cannot arrive unheard; `cancel` when done waiting. */
  expect(executionId: string): { answer: Promise<CallerReply>; cancel(): void } {
    const answer = new Promise<CallerReply>((resolve) => this.waiting.set(executionId, resolve));
    return { answer, cancel: () => this.waiting.delete(executionId) };
  }

  deliver(executionId: string, answer: CallerReply): void {
    const resolve = this.waiting.get(executionId);
    if (!resolve) return;
    this.waiting.delete(executionId);
    resolve(answer);
  }

  /** How many callers wait (for tests and diagnostics). */
  get size(): number {
    return this.waiting.size;
  }
}
