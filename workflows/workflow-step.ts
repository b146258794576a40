import { activitiesWith } from './activity-proxies';
import { awaitChildRun, startDetachedRun } from './child-run';
import type { ChildRunOutcome } from './child-run.types';
import type { StepRequest, StepResult } from './run.types';

/** Bookkeeping activities (input rendered, the child's row written, the step recorded): database work only. */
const BOOKKEEPING = {
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '5 seconds',
  retry: { maximumAttempts: 5, initialInterval: '500 milliseconds' },
} as const;

/**
 * The `core.workflow` step: an activity renders its input and writes the
 * child's execution row, then the child runs as a child workflow of this run
 * (awaited, or started and left to outlive it), then an activity records the
 * step with the child's answer. The input is read by the child from its
 * execution record and the answer by the finishing activity from the child's
 * records: neither is in this run's history. `request` carries earlier
 * outputs by reference (it is kept in history).
 */
export async function runWorkflowStep(request: StepRequest, depth: number, errorRun: boolean): Promise<StepResult> {
  const { step, seq } = request;
  const stepId: string = step.stepId;
  const options = (what: string) => ({ ...BOOKKEEPING, activityId: `${seq}-${stepId}-${what}`, summary: `${stepId} (core.workflow): ${what}` });
  const child = await activitiesWith(options('prepare')).workflowStepPrepare({ ...request, depth, errorRun });
  const by = { mode: 'workflow', origin: `step ${stepId} (core.workflow) of execution ${request.run.executionId}` };
  let outcome: ChildRunOutcome | undefined;
  if (step.input.wait === false) await startDetachedRun(child, by);
  else outcome = await awaitChildRun(child, by);
  return activitiesWith(options('finish')).workflowStepFinish({
    ...request,
    child: { executionId: child.executionId, workflow: child.input.workflow.name },
    startedAt: child.startedAt,
    ...(outcome ? { outcome } : {}),
  });
}
