// Every live `patched()` id of the workflow code, with when it came and when its old branch may go
// (docs/architecture.md, "Workflow patches"). Data only: patches.test.ts reads it outside a workflow.

export interface Patch {
  /** The marker written into history: never change it while the patch lives. */
  id: string;
  /** The day the patch was deployed (`git log -S'<id>' -- workflows`). */
  introduced: string;
  /** `introduced` + PATCH_LIFETIME_DAYS: from the day after, no run that began before the patch can still be open. */
  mayRetireAfter: string;
}

/**
 * How long a run begun before a patch may still replay through its old
 * branch: the longest `core.wait` (365 days, MAX_WAIT_SECONDS of the
 * definition schemas) keeps it open, then the longest execution retention of
 * a plan (90 days, src/organizations/plans.ts) keeps it readable, and a
 * Temporal namespace retention set to match keeps its history as long, which
 * a query or a reset replays on the current code. A run that waits more than
 * once stays open longer: docs/architecture.md says what to check first.
 */
export const PATCH_LIFETIME_DAYS = 365 + 90;

const DAY_MS = 86_400_000;

/** `later`: a retirement put off past the lifetime, because a run begun before the patch is still open. */
function patch(id: string, introduced: string, later?: string): Patch {
  const mayRetireAfter = later ?? new Date(Date.parse(`${introduced}T00:00:00Z`) + PATCH_LIFETIME_DAYS * DAY_MS).toISOString().slice(0, 10);
  return { id, introduced, mayRetireAfter };
}

export const PATCHES = {
  /** Runs complete in their last step's write: one local activity less per run. Older runs replay with their run-end activity. */
  runEndWithLastStep: patch('run-end-with-last-step', '2026-11-24'),
  /** A step and the return step after it run as one local activity while the caller waits (step-execution.ts, executeStepThenReturn). */
  stepThenReturn: patch('step-then-return', '2026-11-27'),
  /** A lone `{{ expression }}` yielding a number, boolean or null renders as that value, not text. */
  typedValues: patch('typed-values', '2026-11-27'),
  /** A failed or cancelled run starts its workflow's error workflow (error-run.ts). */
  errorWorkflows: patch('error-workflows', '2026-11-27'),
  /** Agent steps draw their model and tool calls from the run's history budget, and run in a child workflow past it (agent-step.ts). */
  agentHistoryBudget: patch('agent-history-budget', '2026-11-28'),
} as const satisfies Record<string, Patch>;

/**
 * The patches past their date on `today` (YYYY-MM-DD), each as a message for
 * whoever runs the tests: what is overdue and how to retire it.
 */
export function overduePatches(patches: Patch[], today: string): string[] {
  return patches
    .filter((p) => today > p.mayRetireAfter)
    .map(
      (p) =>
        `patch "${p.id}" (introduced ${p.introduced}) may retire since ${p.mayRetireAfter}: check that no run begun before ${p.introduced} is still open ` +
        `(docs/architecture.md, "Workflow patches"), then replace patched() by deprecatePatch() and drop its old branch, ` +
        `or, while one is, put the date off (patch()'s third argument)`,
    );
}
