import type { CallerReply } from '../../workflows/run.types';
import type { RunClient } from './run-client';

/**
 * The worker of this process, when the API runs beside one: a client on the
 * worker's own connection (so Temporal can hand a new run's first workflow
 * task straight back to it: eager start) and the answers it announces.
 */
export interface LocalWorker {
  client: RunClient;
  replies: LocalReplies;
}

/**
 * Callers waiting in this process for the answer of a run, and the worker of
 * this process handing answers over (the interpreter's `callerReplies` sink).
 * An answer nobody here waits for (the run's caller is in another process,
 * or gave up) is dropped: the update through Temporal still answers those.
 */
export class LocalReplies {
  // Callers of a webhook delivery and its concurrent duplicates expect the same id: one of them starts the run, and a caller's cancel takes only its own.
  private readonly waiting = new Map<string, Set<(answer: CallerReply) => void>>();

  /** Registers a caller before its run starts, so an answer cannot arrive unheard; `cancel` when done waiting. */
  expect(executionId: string): { answer: Promise<CallerReply>; cancel(): void } {
    let callers = this.waiting.get(executionId);
    if (!callers) this.waiting.set(executionId, (callers = new Set()));
    let resolver!: (answer: CallerReply) => void;
    const answer = new Promise<CallerReply>((resolve) => (resolver = resolve));
    callers.add(resolver);
    return {
      answer,
      cancel: () => {
        callers.delete(resolver);
        if (callers.size === 0 && this.waiting.get(executionId) === callers) this.waiting.delete(executionId);
      },
    };
  }

  deliver(executionId: string, answer: CallerReply): void {
    const callers = this.waiting.get(executionId);
    if (!callers) return;
    this.waiting.delete(executionId);
    for (const resolve of callers) resolve(answer);
  }

  /** How many runs have callers waiting (for tests and diagnostics). */
  get size(): number {
    return this.waiting.size;
  }
}
