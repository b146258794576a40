import { condition, setHandler, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { deliverEventUpdate, type CallerReply, type RunEvent, type WaitOutcome } from './run.types';

// The key of src/temporal/search-attributes.ts, spelled out: workflow code imports nothing from src/.
const WAITING_FOR = { name: 'WaitingFor', type: 'KEYWORD' } as const;

/**
 * The `core.wait` state of one run: which event it may take now, the event
 * once it came, and the sender waiting to hear what the run tells next.
 * Registers the event update; the interpreter calls `park` at each wait,
 * `tell` with each thing a caller could be told, and `close` as the run ends.
 */
export class RunWaits {
  /** The event wait in progress (set before its wait is recorded, so an event racing the record is not refused). */
  private expecting: { stepId: string; event: string } | undefined;
  private delivered: RunEvent | undefined;
  /** The sender of the last event, until the run tells it something. */
  private sender: { answer?: CallerReply; via: RunEvent['via'] } | undefined;
  /** How the run ended: an event arriving after it is refused, and a sender still waiting hears this at once. */
  private closed: CallerReply | undefined;

  constructor() {
    setHandler(
      deliverEventUpdate,
      async (event) => {
        this.delivered = event;
        const sender: { answer?: CallerReply; via: RunEvent['via'] } = { via: event.via };
        this.sender = sender;
        await condition(() => sender.answer !== undefined || this.closed !== undefined);
        return sender.answer ?? this.closed!;
      },
      {
        // The wait's step as well as its name: a run may wait twice for an event of the same name, and a
        // link or payload checked against the first wait must not resume the second.
        validator: (event) => {
          const expected = this.expecting;
          if (this.closed || this.delivered || expected?.event !== event.name || expected?.stepId !== event.stepId) {
            throw new Error(`The run is not waiting for event "${event.name}" at step ${event.stepId}`);
          }
        },
      },
    );
  }

  /**
   * Whether a resume link's caller waits for the run's next answer: a return
   * step then answers it, its response sealed like a first answer. A member
   * who sent the event through the API was answered once it was accepted.
   */
  get senderWaiting(): boolean {
    return this.sender !== undefined && this.sender.answer === undefined && this.sender.via === 'link';
  }

  /** Hands `answer` to the sender of the last event, if it still waits to hear one. */
  tell(answer: CallerReply): void {
    if (this.sender && this.sender.answer === undefined) this.sender.answer = answer;
  }

  /** The run ends with `answer`: a waiting sender hears it, and no event is taken from here on. */
  close(answer: CallerReply): void {
    this.tell(answer);
    this.expecting = undefined;
    this.closed ??= answer;
  }

  /** From here on, the event `event` of step `stepId` is taken (before the wait is even recorded); undefined takes none. */
  expect(stepId: string, event: string | undefined): void {
    this.expecting = event === undefined ? undefined : { stepId, event };
    this.delivered = undefined;
  }

  /**
   * Parks the run until its event comes or `wakesAt` (workflow time, epoch
   * ms): a timer, or a condition with one, so no worker holds anything
   * meanwhile. The WaitingFor search attribute says what it waits for.
   */
  async park(stepId: string, wakesAt: number, event: string | undefined): Promise<WaitOutcome> {
    const remaining = Math.max(0, wakesAt - Date.now());
    upsertSearchAttributes([{ key: WAITING_FOR, value: event === undefined ? 'timer' : `event:${event}` }]);
    try {
      if (event === undefined) {
        if (remaining > 0) await sleep(remaining, { summary: `${stepId}: wait until ${new Date(wakesAt).toISOString()}` });
        return { kind: 'time' };
      }
      // No timer for a deadline already passed (a zero timeout would not mean "now" to every SDK version).
      const came = this.delivered !== undefined || (remaining > 0 && (await condition(() => this.delivered !== undefined, remaining)));
      return came ? { kind: 'event', event: this.delivered! } : { kind: 'timeout' };
    } finally {
      this.expecting = undefined;
      upsertSearchAttributes([{ key: WAITING_FOR, value: null }]);
    }
  }
}
