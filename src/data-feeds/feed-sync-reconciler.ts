import { PeriodicTask } from '../lib/periodic-task';
import type { Logger } from '../logging/logger';
import type { FeedSyncRuns } from './feed-sync-runs';
import type { FeedSyncsRepository } from './feed-syncs.repository';

/** Runs read a query. */
const BATCH = 100;
/** A pass stops here; the next one goes on after the last run it checked. */
const PASS_TIME_LIMIT_MS = 20_000;
/** One describe of a run's workflow in Temporal. */
const DESCRIBE_TIMEOUT_MS = 5_000;

const HOW: Record<string, string> = {
  superseded: 'a later sync of the source has begun since',
  TERMINATED: 'its Temporal workflow was terminated',
  TIMED_OUT: 'its Temporal workflow timed out',
  CANCELLED: 'its Temporal workflow was cancelled',
  FAILED: 'its Temporal workflow failed',
  NOT_FOUND: 'Temporal no longer knows its workflow',
};

/** The `error` of a run that stopped without recording its end; `how` is a key of HOW or a Temporal status name. */
export function stoppedRunError(how: string): string {
  const what = HOW[how] ?? `its Temporal workflow ended (${how})`;
  return `The sync stopped without recording its end: ${what}. The records it wrote are kept (what it counted is unknown); the next sync without dates starts again from syncedThrough`;
}

/**
 * Ends the sync runs that stopped without recording their end. A run records
 * its end itself (workflows/data-feed-sync.ts), also when it fails or is
 * cancelled; a terminated workflow (or one that timed out) runs no more code,
 * so its history row, and its source's syncConfig.lastSyncStatus, would say
 * `running` for ever. Every `intervalSeconds` this looks from outside: each
 * run still `running` that began more than `afterSeconds` ago is `failed`,
 * with a message naming what happened, when a later run of its source has
 * begun or when its workflow is closed in Temporal (one describe per run).
 * Bounded: BATCH runs a query, PASS_TIME_LIMIT_MS a pass (the next pass goes
 * on from there), DESCRIBE_TIMEOUT_MS a describe. Several API processes may
 * run it at once: ending a run that has ended is a no-op.
 */
export class FeedSyncReconciler {
  private readonly task: PeriodicTask<number>;
  /** Where the last pass stopped, when it ran out of time; null: from the oldest. */
  private cursor: { startedAt: Date; id: string } | null = null;

  constructor(
    private readonly syncs: Pick<FeedSyncsRepository, 'openRuns' | 'endStopped'>,
    private readonly runs: Pick<FeedSyncRuns, 'closedStatus'>,
    private readonly logger: Logger,
    private readonly settings: { intervalSeconds: number; afterSeconds: number },
  ) {
    this.task = new PeriodicTask(() => this.pass(), { intervalSeconds: settings.intervalSeconds, logger, failure: 'feed sync reconciliation failed' });
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass; answers how many runs it ended. One pass at a time. */
  reconcileNow(): Promise<number> {
    return this.task.runNow();
  }

  private async pass(): Promise<number> {
    const deadline = Date.now() + PASS_TIME_LIMIT_MS;
    const startedBefore = new Date(Date.now() - this.settings.afterSeconds * 1000);
    let ended = 0;
    for (;;) {
      const batch = await this.syncs.openRuns(startedBefore, this.cursor, BATCH);
      for (const run of batch) {
        if (Date.now() > deadline) return this.done(ended);
        const how = run.superseded ? 'superseded' : await this.runs.closedStatus(run.workflowId, DESCRIBE_TIMEOUT_MS);
        if (how !== null && (await this.syncs.endStopped(run.organizationId, run.id, stoppedRunError(how), new Date().toISOString()))) ended += 1;
        this.cursor = { startedAt: run.startedAt, id: run.id };
      }
      if (batch.length < BATCH) {
        this.cursor = null;
        return this.done(ended);
      }
    }
  }

  private done(ended: number): number {
    if (ended > 0) this.logger.info({ ended }, 'feed sync runs that stopped without recording their end marked failed');
    return ended;
  }
}
