/**
 * Upkeep a process runs in the background every `intervalSeconds` once
 * started (the purge of expired records, the end of feed syncs that stopped
 * unrecorded): one pass at a time (runNow while one runs joins it), a pass's
 * failure logged as `failure`, never thrown from the timer; stop() waits for
 * the pass in progress. The timer keeps no process alive.
 */
export class PeriodicTask<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  constructor(
    private readonly pass: () => Promise<T>,
    private readonly options: { intervalSeconds: number; logger: { warn(fields: object, message: string): void }; failure: string },
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      void this.runNow().catch((err: Error) => this.options.logger.warn({ err: err.message }, this.options.failure));
    }, this.options.intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass now, or the one in progress. */
  runNow(): Promise<T> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }
}
