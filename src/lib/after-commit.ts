/**
 * Work outside the database that a change brings with it, such as deleting
 * the Temporal Schedule of a deleted schedule trigger or feed source, handed
 * over by the code that makes the change. Who owns the transaction decides
 * when it runs: `runNow` on the pool, where each statement commits by itself;
 * an AfterCommit queue in a unit of work that holds one transaction (a package
 * install or uninstall), so that work outside the database never happens for
 * a change that is then rolled back.
 */
export type Effects = (task: () => Promise<void>) => Promise<void>;

/** Runs the work at once: the statements before it have committed already. */
export const runNow: Effects = (task) => task();

/**
 * Queues the work of one transaction; its owner calls run() once the
 * transaction has committed, and drops the queue when it rolls back.
 */
export class AfterCommit {
  private readonly tasks: Array<() => Promise<void>> = [];

  constructor(private readonly log: { warn(fields: object, message: string): void }) {}

  /** The Effects of the transaction: queues `task`, runs nothing yet. */
  readonly defer: Effects = (task) => {
    this.tasks.push(task);
    return Promise.resolve();
  };

  /**
   * Runs the queued work in order, once. The change has committed by then, so
   * a failing task is logged and the others still run (whatever a task leaves
   * behind must be cleaned up later: a schedule whose trigger or source is
   * gone deletes itself at its next beat).
   */
  async run(): Promise<void> {
    for (const task of this.tasks.splice(0)) {
      try {
        await task();
      } catch (err) {
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'the change committed, but work to do after its commit failed');
      }
    }
  }
}
