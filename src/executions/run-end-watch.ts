import type { ExecutionsRepository } from './executions.repository';

/**
 * How often the runs still watched are looked up: a slot is held this much
 * longer than its run at most, so the lookup must be frequent (one indexed
 * statement for all of them). A run the local worker announces is never looked up.
 */
const POLL_MS = 100;
/** Runs younger than this are not looked up yet: most are still on their first step, or about to be announced. */
const LOOK_UP_AFTER_MS = 50;
/** The most runs one lookup names; more wait for the next tick. */
const POLL_BATCH = 500;

interface Watched {
  organizationId: string;
  id: string;
  since: number;
  end: () => void;
}

/**
 * Runs started for callers answered at once (202), watched until they end
 * or park at a wait: the webhook host holds an admission slot until then
 * (src/webhooks/webhook-admission.ts). The worker beside the API announces
 * its runs' ends through its sink; a run on another worker is seen by a
 * lookup of the executions table, one statement a tick for all of them.
 */
export class RunEndWatch {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly executions: Pick<ExecutionsRepository, 'stillRunning'>) {}

  /** Resolves when the run ends or parks (`heard`: the local worker's announcement), or after `atMostMs` whatever it does. */
  until(organizationId: string, id: string, atMostMs: number, heard?: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const entry: Watched = {
        organizationId,
        id,
        since: Date.now(),
        end: () => {
          clearTimeout(cap);
          this.watched.delete(entry);
          resolve();
        },
      };
      const cap = setTimeout(entry.end, atMostMs);
      cap.unref();
      this.watched.add(entry);
      void heard?.then(entry.end);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.watched.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.poll().finally(() => this.schedule());
    }, POLL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const due = [...this.watched].filter((w) => Date.now() - w.since >= LOOK_UP_AFTER_MS).slice(0, POLL_BATCH);
      if (due.length === 0) return;
      const running = await this.executions.stillRunning(due);
      for (const w of due) if (!running.has(w.id)) w.end();
    } catch {
      // The database is out of reach for a moment: the next tick asks again, and `atMostMs` bounds the wait meanwhile.
    } finally {
      this.polling = false;
    }
  }
}
