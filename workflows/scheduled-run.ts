import { proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { runWorkflowDefinition } from './interpreter';
import type { RunResult } from './run.types';
import type { ScheduledRunInput } from './scheduled-run.types';

// The key of src/temporal/search-attributes.ts, spelled out: workflow code imports nothing from src/.
const WORKFLOW_NAME = { name: 'WorkflowName', type: 'KEYWORD' } as const;

const { beginScheduledRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10, maximumInterval: '30 seconds' },
});
const { deleteTriggerSchedule } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 5 } });

/**
 * What a schedule trigger's Temporal Schedule starts. The run begins by
 * reading the trigger and its workflow's current version and writing the
 * execution record (mode `schedule`), then interprets the definition as any
 * run does, under this workflow's id. A beat that finds the trigger or the
 * workflow gone deletes the schedule (should their deletion have missed it).
 */
export async function runScheduledTrigger(input: ScheduledRunInput): Promise<RunResult | { skipped: 'trigger_gone' }> {
  const begun = await beginScheduledRun({ ...input, executionId: workflowInfo().workflowId });
  if (begun.kind === 'gone') {
    await deleteTriggerSchedule({ triggerId: input.triggerId });
    return { skipped: 'trigger_gone' };
  }
  // The schedule was created under the workflow's name then; a renamed workflow's runs carry its name now.
  const current = workflowInfo().typedSearchAttributes.get(WORKFLOW_NAME);
  if (current !== begun.input.workflow.name) upsertSearchAttributes([{ key: WORKFLOW_NAME, value: begun.input.workflow.name }]);
  return runWorkflowDefinition(begun.input);
}
