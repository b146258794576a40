export interface FairSchedulerOptions {
  /** Tasks running at once, all keys together. */
  concurrency: number;
  /** Tasks of one key running at once; below `concurrency`, another key always finds a slot. */
  perKey: number;
  /** Tasks of one key waiting at once; one more is refused with `whenFull()`. */
  maxWaitingPerKey: number;
  whenFull: () => Error;
  /**
   * How long a task may wait for its turn; past it, it leaves the queue and is
   * refused with `whenLate()`. Without it a task waits as long as it takes.
   */
  maxWaitMs?: number;
  whenLate?: () => Error;
}

/** Idle keys whose turn order is remembered; one forgotten starts afresh, as a newcomer. */
const MAX_IDLE_KEYS_REMEMBERED = 10_000;

interface Waiter {
  start: () => void;
  timer?: NodeJS.Timeout;
}

interface KeyState {
  running: number;
  waiting: Waiter[];
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
    if (options.maxWaitMs !== undefined && !options.whenLate) throw new Error('FairScheduler: maxWaitMs needs whenLate');
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

  /**
   * Takes a slot when the key's turn comes, for work that outlives one
   * function call (a run answered at once and watched until it ends); the
   * returned function frees it, once however often it is called.
   */
  async slot(key: string): Promise<() => void> {
    await this.acquire(key);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.release(key);
    };
  }

  /** Tasks of every key running and waiting now (the metrics read it at each scrape). */
  totals(): { running: number; waiting: number } {
    let waiting = 0;
    for (const state of this.keys.values()) waiting += state.waiting.length;
    return { running: this.running, waiting };
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
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { start: resolve };
      const { maxWaitMs, whenLate } = this.options;
      if (maxWaitMs !== undefined) {
        waiter.timer = setTimeout(() => {
          state.waiting.splice(state.waiting.indexOf(waiter), 1);
          this.forgetIfIdle(key, state);
          reject(whenLate!());
        }, maxWaitMs);
      }
      state.waiting.push(waiter);
    });
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
    this.forgetIfIdle(key, state);
    this.dispatch();
  }

  /** A key with nothing running or waiting leaves the active set; its last start is remembered for its next turn. */
  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.running > 0 || state.waiting.length > 0 || this.keys.get(key) !== state) return;
    this.keys.delete(key);
    this.idleLastStarts.delete(key);
    this.idleLastStarts.set(key, state.lastStart);
    if (this.idleLastStarts.size > MAX_IDLE_KEYS_REMEMBERED) this.idleLastStarts.delete(this.idleLastStarts.keys().next().value!);
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
      const waiter = state.waiting.shift()!;
      clearTimeout(waiter.timer);
      waiter.start();
    }
  }
}
