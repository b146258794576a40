// Runs started by runs: a core.workflow step's child, an agent's workflow tool's child, a failed
// run's error workflow. Types both the workflow code and the activities name; no I/O here.
import type { RunInput, StepRequest } from './run.types';

/**
 * How deep runs started by runs nest: a core.workflow step's child and an
 * agent workflow tool's child both run one level below their parent, and no
 * run starts a child past this depth. One bound for both, so a workflow
 * calling itself (through a step or through its agent) stops here.
 */
export const MAX_NESTING_DEPTH = 3;

/** A child run about to start: its execution row is written; `input` carries no `initial` (the child reads it from that row). */
export interface ChildRunStart {
  executionId: string;
  input: RunInput;
}

/** How an awaited child run ended, as its parent learns it. */
export type ChildRunOutcome = { status: 'completed' } | { status: 'failed'; message: string };

/**
 * A `core.workflow` step before its child starts: the step's input rendered,
 * the workflow found (its current version), the depth checked, the child's
 * execution row written. `depth` is the calling run's nesting depth;
 * `errorRun` whether it is (or descends from) an error workflow's run.
 * Fails the step (non-retryable) on a missing workflow, a bad input or the
 * depth bound.
 */
export interface WorkflowStepPrepareRequest extends StepRequest {
  depth: number;
  errorRun: boolean;
}

/** A prepared core.workflow child, and when the step began. */
export type WorkflowStepPrepared = ChildRunStart & { startedAt: string };

/** After the child started (fire and forget) or ended (awaited): the step's record and output. */
export interface WorkflowStepFinishRequest extends StepRequest {
  child: { executionId: string; workflow: string };
  /** When the prepare activity began (ISO 8601): the step's record spans the child's run. */
  startedAt: string;
  /** Absent when the step did not wait for the child. */
  outcome?: ChildRunOutcome;
}

/**
 * A run ended failed or cancelled: its error workflow's run, when its
 * definition names one, is prepared (row written with the masked report as
 * its input); `null` when it names none or the workflow is gone.
 */
export interface ErrorRunPrepareRequest {
  organizationId: string;
  executionId: string;
  status: 'failed' | 'cancelled';
  error?: { stepId?: string; message: string };
}
