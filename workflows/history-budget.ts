/**
 * What a run's own Temporal history may still take of the work whose size a
 * definition does not fix: a loop's items (loops.ts) and an agent's model and
 * tool calls (agent-step.ts). Temporal warns past 10,240 events in one
 * history and ends a run at 51,200. A call costs about 2 events as a local
 * activity (its marker, and its share of workflow tasks) and about 6 as a
 * regular one (scheduled, started, completed, and a workflow task of three
 * events to take the result). Work that does not fit what is left runs in
 * child workflows, each a history of its own, and the run's history holds
 * one child per piece of it. The other steps cost what the definition says,
 * a few events each, and do not draw from it.
 */
export const RUN_INLINE_EVENTS = 3_000;

/** History events of one call run as a local activity, and as a regular one. */
export const LOCAL_CALL_EVENTS = 2;
export const REGULAR_CALL_EVENTS = 6;

/** One per run, shared by all its steps: loops and agents draw from the same events. */
export class HistoryBudget {
  constructor(private left = RUN_INLINE_EVENTS) {}

  /** Takes `events` when they fit what is left and answers true; takes nothing and answers false when they do not. */
  take(events: number): boolean {
    if (events > this.left) return false;
    this.left -= events;
    return true;
  }

  /** Gives back what a piece of work took but did not use. */
  giveBack(events: number): void {
    this.left += events;
  }
}
