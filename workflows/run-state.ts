import { proxySinks } from '@temporalio/workflow';
import { HistoryBudget } from './history-budget';
import { RUN_INLINE_BUDGET, type CallerReply, type ReplySinks, type WebhookResponse } from './run.types';

const { callerReplies } = proxySinks<ReplySinks>();

/**
 * Where a run is. `unanswered`: its caller still waits, so steps are local
 * activities (a workflow task holds them and the answer together).
 * `answered`: the caller was told (a return step's response, or that the run
 * waits); steps are regular activities. `waiting`: parked at a `core.wait`.
 * `ended`: the run's outcome is known; nothing runs any more.
 */
export type RunPhase =
  | { name: 'unanswered' }
  | { name: 'answered'; answer: CallerReply }
  | { name: 'waiting'; answer: CallerReply; stepId: string }
  | { name: 'ended'; answer: CallerReply };

/** A run's state as its steps change it: the phase, and what the steps draw on (sequence numbers, inline bytes, history events). */
export class RunState {
  private current: RunPhase = { name: 'unanswered' };
  private announced = false;
  /** The first return step's response, when the run carries it: the run's result. */
  response: WebhookResponse | undefined;
  /** The next step's `seq`: also how many steps ran, for the result. */
  seq = 0;
  /** What step outputs may still add to history (RUN_INLINE_BUDGET). */
  inlineBytes = RUN_INLINE_BUDGET;
  /** What loop items and agent calls may still add to history. */
  readonly history = new HistoryBudget();
  /** A step's own write recorded the run's completion: no run-end activity follows. */
  endRecorded = false;

  get phase(): RunPhase {
    return this.current;
  }

  get answered(): boolean {
    return this.current.name !== 'unanswered';
  }

  /** The first answer the caller gets; undefined while there is none. */
  get answer(): CallerReply | undefined {
    return this.current.name === 'unanswered' ? undefined : this.current.answer;
  }

  /** A return step answered: the first answer is the caller's, with its response as the run's result; later ones change nothing here. */
  answerWith(reply: CallerReply, response: WebhookResponse | undefined): void {
    if (this.current.name !== 'unanswered') return;
    this.response = response;
    this.current = { name: 'answered', answer: reply };
    this.announce();
  }

  /** The run parks at wait `stepId`; a caller still owed an answer hears that it waits. */
  park(stepId: string, waiting: CallerReply): void {
    const answer = this.answer ?? waiting;
    this.current = { name: 'waiting', answer, stepId };
    this.announce();
  }

  /** The wait is over: the run goes on, answered. */
  resume(): void {
    if (this.current.name === 'waiting') this.current = { name: 'answered', answer: this.current.answer };
  }

  /** The outcome is known: a caller not answered yet gets `reply` (announced by the caller of `end`, once the end is recorded). */
  end(reply: CallerReply): void {
    this.current = { name: 'ended', answer: this.answer ?? reply };
  }

  /** A caller waiting beside this worker hears the answer at once (a sink: not in history); others through the update. */
  announce(): void {
    const answer = this.answer;
    if (this.announced || answer === undefined) return;
    this.announced = true;
    callerReplies.answered(answer);
  }
}
