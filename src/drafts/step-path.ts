import type { StepDefinition } from '../workflows/definition.schemas';

/** Where a step sits: the steps that have run when it starts (in order), and whether a loop body holds it. */
export interface StepPlace {
  step: StepDefinition;
  /** The steps before it in its own list, and before each list that holds it (a core.if, a core.wait's timeout path). */
  before: StepDefinition[];
  inLoopBody: boolean;
}

const nestedKeys = (step: StepDefinition): string[] =>
  step.stepType === 'core.if' ? ['then', 'else'] : step.stepType === 'core.wait' ? ['onTimeout'] : step.stepType === 'core.loop' ? ['steps'] : [];

/**
 * The place of `stepId` in `steps`, or undefined when no step has that id.
 * What runs before a step in a branch is what runs before its core.if, then
 * the branch's earlier steps: the outputs its templates can read.
 */
export function placeOf(steps: StepDefinition[], stepId: string, before: StepDefinition[] = [], inLoopBody = false): StepPlace | undefined {
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (step.stepId === stepId) return { step, before: [...before, ...steps.slice(0, i)], inLoopBody };
    for (const key of nestedKeys(step)) {
      const nested: unknown = (step.input as Record<string, unknown>)[key];
      if (!Array.isArray(nested)) continue;
      const found = placeOf(nested as StepDefinition[], stepId, [...before, ...steps.slice(0, i)], inLoopBody || step.stepType === 'core.loop');
      if (found) return found;
    }
  }
  return undefined;
}

/** Whether any step of `steps` (nested ones included) has the id. */
export const hasStep = (steps: StepDefinition[], stepId: string): boolean => placeOf(steps, stepId) !== undefined;
