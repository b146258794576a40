import { PeriodicTask } from '../lib/periodic-task';
import type { Logger } from '../logging/logger';
import type { DataStoresRepository } from './data-stores.repository';

const BATCH = 5000;

/**
 * Deletes expired records in the background. Readers never see them past
 * their expiry anyway; this reclaims the space. Several processes may run it
 * at once: each batch skips rows another has locked.
 */
export class RecordPurger {
  private readonly task: PeriodicTask<number>;

  constructor(
    private readonly records: DataStoresRepository,
    private readonly logger: Logger,
    intervalSeconds: number,
  ) {
    this.task = new PeriodicTask(() => this.purgeAll(), { intervalSeconds, logger, failure: 'data store purge failed' });
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Purges until nothing expired is left; returns how many records went. One pass at a time. */
  purgeNow(): Promise<number> {
    return this.task.runNow();
  }

  private async purgeAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.records.purgeExpired(BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) this.logger.info({ purged: total }, 'expired data store records purged');
    return total;
  }
}
