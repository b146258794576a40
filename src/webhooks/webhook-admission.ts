import { ServiceBusyError } from '../errors/errors';
import { FairScheduler } from '../lib/fair-scheduler';
import { webhookAdmissionWait, webhookRunsInFlight } from '../observability/metrics';

/**
 * How long a run answered at once (202) keeps its slot at most. A run still
 * going then waits on something other than this service's CPU (a slow
 * vendor, a model, a timer), and holding its slot longer would refuse calls
 * the workers have room for.
 */
export const ANSWERED_RUN_HOLD_MS = 5_000;

/** Calls of one organization waiting for room at most, as a multiple of the runs in flight: waiting calls hold their bodies. */
const WAITING_PER_RUN_IN_FLIGHT = 4;

/** A call's place among the webhook runs in flight. */
export interface AdmissionSlot {
  /** For a run answered at once: the slot is freed when it ends, not when the call is answered. */
  keepUntil(ended: Promise<void>): void;
  /** Frees the slot, unless `keepUntil` handed it to the run. */
  free(): void;
}

/**
 * Admission of webhook runs: at most `runsInFlight` runs of this API
 * process between their call and their answer (for a caller who waits) or
 * their end (for a run answered at once, up to ANSWERED_RUN_HOLD_MS). Past
 * it, calls wait in turn, organizations taking turns, for at most
 * `maxWaitMs`; a call that finds no room by then is answered 503 with
 * `Retry-After` before its run starts. Without it, Temporal's task queue
 * is the queue: it grows without bound under load, every run in it gets
 * slower, and 202s promise runs that finish long after.
 */
export class WebhookAdmission {
  private readonly scheduler: FairScheduler;

  constructor(limits: { runsInFlight: number; maxWaitMs: number }) {
    const retryAfterSeconds = Math.max(1, Math.ceil(limits.maxWaitMs / 1000));
    const busy = () =>
      new ServiceBusyError(
        `This service has as many webhook runs in flight as it can finish promptly; nothing was started, try again in ${retryAfterSeconds} s`,
        'overloaded',
        retryAfterSeconds,
      );
    const { runsInFlight } = limits;
    this.scheduler = new FairScheduler({
      concurrency: runsInFlight,
      // One organization never takes every slot: another one's first call finds room at once.
      perKey: Math.max(1, runsInFlight - Math.max(1, Math.floor(runsInFlight / 8))),
      maxWaitingPerKey: runsInFlight * WAITING_PER_RUN_IN_FLIGHT,
      maxWaitMs: limits.maxWaitMs,
      whenFull: busy,
      whenLate: busy,
    });
  }

  /** Waits for room for one of the organization's runs, or throws 503 `overloaded`. */
  async admit(organizationId: string): Promise<AdmissionSlot> {
    const waited = webhookAdmissionWait.startTimer();
    let releaseSlot: () => void;
    try {
      releaseSlot = await this.scheduler.slot(organizationId);
    } catch (err) {
      if (err instanceof ServiceBusyError) waited({ outcome: 'shed' });
      throw err;
    }
    waited({ outcome: 'admitted' });
    webhookRunsInFlight.inc();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      webhookRunsInFlight.dec();
      releaseSlot();
    };
    let kept = false;
    return {
      keepUntil: (ended) => {
        kept = true;
        void ended.finally(release);
      },
      free: () => {
        if (!kept) release();
      },
    };
  }
}
