import type { ReplayInput, RunInput, StepDefinition } from './run.types';

/**
 * The steps a replay takes from its original run (POST /executions/{id}/replay):
 * the interpreter walks them without running them. Their records were copied
 * into this run before it started, so later steps read their outputs by
 * reference, like any output kept out of history.
 */
export class ReusedSteps {
  private readonly ids: ReadonlySet<string>;

  constructor(private readonly replay: ReplayInput) {
    this.ids = new Set(replay.reused);
  }

  has(stepId: string): boolean {
    return this.ids.has(stepId);
  }

  /** The nested steps the walk goes through under a reused step: the branch its core.if took, a wait's onTimeout path, or none. */
  nested(step: StepDefinition): StepDefinition[] {
    const path = this.replay.paths[step.stepId];
    const steps: unknown = path === undefined ? undefined : step.input[path];
    return Array.isArray(steps) ? (steps as StepDefinition[]) : [];
  }
}

/** The reused steps of a replay; undefined for any other run (whose walk stays as it was). */
export function reusedSteps(input: RunInput): ReusedSteps | undefined {
  return input.replay ? new ReusedSteps(input.replay) : undefined;
}
