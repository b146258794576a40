import { ChildWorkflowFailure, executeChild, isCancellation, startChild, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { ChildRunOutcome, ChildRunStart } from './child-run.types';
import { INTERPRETER_WORKFLOW, runDetails, runSummary, type RunPresentation } from './run.types';

// The keys of src/temporal/search-attributes.ts, spelled out: workflow code imports nothing from src/.
const ORGANIZATION_ID = { name: 'OrganizationId', type: 'KEYWORD' } as const;
const WORKFLOW_NAME = { name: 'WorkflowName', type: 'KEYWORD' } as const;

/** Who started a child run, for Temporal's summary and details. */
export interface ChildOrigin {
  /** An ExecutionMode: `agent`, `workflow` or `error`. */
  mode: string;
  /** The details' "Started by" line. */
  origin: string;
}

/**
 * The child run's options, alike for every kind of child: the execution id
 * as workflow id, search attributes as every run has, the summary. The
 * option object of an agent's tool child is exactly what it was before
 * core.workflow steps shared this code, so recorded agent histories replay.
 */
function childOptions(start: ChildRunStart, by: ChildOrigin, parentClosePolicy: ChildWorkflowOptions['parentClosePolicy']) {
  const { organizationId, workflow } = start.input;
  const shown: RunPresentation = { organizationId, workflow, mode: by.mode, origin: by.origin };
  return {
    workflowId: start.executionId,
    args: [start.input] as [typeof start.input],
    parentClosePolicy,
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: organizationId },
      { key: WORKFLOW_NAME, value: workflow.name },
    ],
    // Metadata only: replaying a history started with an earlier summary matches all the same.
    staticSummary: runSummary(shown),
    staticDetails: runDetails(shown),
  };
}

/**
 * Runs the child and waits for it to end. Cancelling the parent cancels the
 * child (which records itself cancelled); a child's failure is returned,
 * with the child's own error message, for the caller to record.
 */
export async function awaitChildRun(start: ChildRunStart, by: ChildOrigin): Promise<ChildRunOutcome> {
  try {
    await executeChild(INTERPRETER_WORKFLOW, childOptions(start, by, 'REQUEST_CANCEL'));
    return { status: 'completed' };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
    return { status: 'failed', message: cause?.message || (err as Error).message || 'the child run failed' };
  }
}

/**
 * Starts the child and returns once Temporal has started it; the child
 * outlives its parent (ABANDON): the parent's end, cancellation included,
 * does not reach it.
 */
export async function startDetachedRun(start: ChildRunStart, by: ChildOrigin): Promise<void> {
  await startChild(INTERPRETER_WORKFLOW, childOptions(start, by, 'ABANDON'));
}
