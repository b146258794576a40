export interface FairSchedulerOptions {
  /** Tasks running at once, all keys together. */
  concurrency: number;
  /** Tasks of one key running at once; below `concurrency`, another key always finds a slot. */
  perKey: number;
  /** Tasks of one key waiting at once; one more is refused with `whenFull()`. */
  maxWaitingPerKey: number;
  whenFull: () => Error;
}

/** Idle keys whose turn order is remembered; one forgotten starts afresh, as a newcomer. */
const MAX_IDLE_KEYS_REMEMBERED = 10_000;

interface KeyState {
  running: number;
  waiting: Array<() => void>;
  /** When the key last started a task (a counter; 0: never), to find whose turn it is. */
  lastStart: number;
}

/**
 * Runs tasks under a global concurrency limit, shared fairly between keys
 * (organizations): one key runs at most `perKey` tasks at once, and a freed
 * slot goes to the key that started a task least recently among those with
 * work waiting (round robin), so a key with a long queue cannot starve one
 * with a short queue. Each key's own tasks start in arrival order.
 */
export class FairScheduler {
  private running = 0;
  private starts = 0;
  /** Keys with tasks running or waiting, in order of arrival. */
  private readonly keys = new Map<string, KeyState>();
  /** When idle keys last started a task, the most recently idle last; bounded, the oldest forgotten first. */
  private readonly idleLastStarts = new Map<string, number>();

  constructor(private readonly options: FairSchedulerOptions) {
    if (options.concurrency < 1 || options.perKey < 1 || options.maxWaitingPerKey < 0) throw new Error('FairScheduler: limits must be positive');
  }

  /** Runs `task` when the key's turn comes; throws `whenFull()` at once if the key already has too many waiting. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  /** Tasks of a key running and waiting now. */
  stats(key: string): { running: number; waiting: number } {
    const state = this.keys.get(key);
    return { running: state?.running ?? 0, waiting: state?.waiting.length ?? 0 };
  }

  private acquire(key: string): Promise<void> {
    // A key back after going idle keeps its place in the turn order: sending one query at a time never jumps the queue.
    const state = this.keys.get(key) ?? { running: 0, waiting: [], lastStart: this.idleLastStarts.get(key) ?? 0 };
    // After every dispatch no waiting task could start, so one that can start now passes no one.
    if (this.running < this.options.concurrency && state.running < this.options.perKey) {
      this.start(key, state);
      return Promise.resolve();
    }
    if (state.waiting.length >= this.options.maxWaitingPerKey) return Promise.reject(this.options.whenFull());
    this.keys.set(key, state);
    return new Promise((resolve) => state.waiting.push(resolve));
  }

  private start(key: string, state: KeyState): void {
    this.running++;
    state.running++;
    state.lastStart = ++this.starts;
    this.keys.set(key, state);
  }

  private release(key: string): void {
    const state = this.keys.get(key)!;
    this.running--;
    state.running--;
    if (state.running === 0 && state.waiting.length === 0) {
      this.keys.delete(key);
      this.idleLastStarts.delete(key);
      this.idleLastStarts.set(key, state.lastStart);
      if (this.idleLastStarts.size > MAX_IDLE_KEYS_REMEMBERED) this.idleLastStarts.delete(this.idleLastStarts.keys().next().value!);
    }
    this.dispatch();
  }

  /** Fills free slots, each from the eligible key that started a task least recently (one that never did first). */
  private dispatch(): void {
    while (this.running < this.options.concurrency) {
      let next: [string, KeyState] | undefined;
      for (const entry of this.keys) {
        const [, s] = entry;
        if (s.waiting.length > 0 && s.running < this.options.perKey && (!next || s.lastStart < next[1].lastStart)) next = entry;
      }
      if (!next) return;
      const [key, state] = next;
      this.start(key, state);
      state.waiting.shift()!();
    }
  }
}
