import type { HistoryBudget } from './history-budget';
import type { RunState } from './run-state';
import type { RunInput, StepDefinition, StepRequest, StepResult } from './run.types';
import type { RunWaits } from './waits';

/** What a step handler (step-handlers.ts) gets of the run it runs in, as it was when the step began. */
export interface StepScope {
  /** The caller was answered: steps are regular activities (a local one would hold the answer back). */
  answered: boolean;
  /** How deep the run is nested, and whether it is an error run: what child runs its steps may start. */
  nesting: Pick<RunInput, 'agentDepth' | 'errorRun'>;
  /** The run's own history budget, shared by all its steps (history-budget.ts). */
  history: HistoryBudget;
  /** The run itself, where a step may park it (a run's own steps; not a loop's items). */
  run?: { state: RunState; waits: RunWaits };
}

/** A step's result, and the steps that run next inside it (a core.if's branch, a wait's onTimeout steps). */
export interface StepOutcome {
  result: StepResult;
  then?: StepDefinition[];
}

/** How one step type runs, and what the run's walk may do with it. */
export interface StepHandler {
  run(request: StepRequest, scope: StepScope): Promise<StepOutcome>;
  /** As the run's last step, its own write may complete the run (a branch, a loop, a wait or an agent ends elsewhere). */
  canEndRun: boolean;
  /** May run together with the answering step right after it in one local activity (RUNS_AHEAD_OF_RETURN, `stepThenReturn`). */
  runsAheadOfReturn: boolean;
  /** Its result is a response for the caller (core.return). */
  answers: boolean;
}
