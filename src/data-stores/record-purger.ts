import type { Logger } from '../logging/logger';
import type { DataStoresRepository } from './data-stores.repository';

const BATCH = 5000;

/**
 * Deletes expired records in the background. Readers never see them past
 * their expiry anyway; this reclaims the space. Several processes may run it
 * at once: each batch skips rows another has locked.
 */
export class RecordPurger {
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly records: DataStoresRepository,
    private readonly logger: Logger,
    private readonly intervalSeconds: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      void this.purgeNow().catch((err: Error) => this.logger.warn({ err: err.message }, 'data store purge failed'));
    }, this.intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Purges until nothing expired is left; returns how many records went. One pass at a time. */
  purgeNow(): Promise<number> {
    this.running ??= this.purgeAll().finally(() => {
      this.running = undefined;
    });
    return this.running;
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
