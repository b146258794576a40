import type { StepDefinition } from './definition.schemas';

/**
 * Whether any step, in any branch, is a `core.return`: such a workflow
 * answers its webhook caller synchronously (interface.md 3); without one
 * the caller gets 202 at once.
 */
export function hasReturnStep(steps: StepDefinition[]): boolean {
  return steps.some(
    (s) => s.stepType === 'core.return' || (s.stepType === 'core.if' && (hasReturnStep(s.input.then ?? []) || hasReturnStep(s.input.else ?? []))),
  );
}
