import { Context } from '@temporalio/activity';
import { ScheduleNotFoundError } from '@temporalio/client';
import { triggerScheduleId, type BeginScheduledRunResult, type ScheduledRunInput } from '../workflows/scheduled-run.types';
import type { ActivityDeps } from './deps';

/** The scheduled-run workflow's activities: the run's record and definition when a beat fires, and the clean-up of an orphaned schedule. */
export function createScheduleActivities({ executions, workflows, scheduleTriggers }: Pick<ActivityDeps, 'executions' | 'workflows' | 'scheduleTriggers'>) {
  return {
    /**
     * Reads the trigger and its workflow's current version, writes the
     * execution record (mode `schedule`, the trigger's `initial`, its
     * environment or else the workflow's default), and answers the run to
     * interpret. Idempotent: a retry finds the record it wrote.
     */
    async beginScheduledRun(input: ScheduledRunInput & { executionId: string }): Promise<BeginScheduledRunResult> {
      const trigger = await scheduleTriggers.findById(input.organizationId, input.triggerId);
      const current = trigger && (await workflows.findCurrent(input.organizationId, trigger.workflowId));
      if (!trigger || !current) return { kind: 'gone' };
      const { workflow, version } = current;
      const environmentId = trigger.environmentId ?? workflow.defaultEnvironmentId;
      if (!(await executions.findById(input.organizationId, input.executionId))) {
        await executions
          .insert({
            id: input.executionId,
            organizationId: input.organizationId,
            workflowId: workflow.id,
            workflowName: workflow.name,
            workflowVersion: version.version,
            triggerId: trigger.id,
            triggerName: trigger.name,
            environmentId,
            mode: 'schedule',
            input: trigger.initial,
            rerunOf: null,
          })
          .catch((err: { code?: string }) => {
            // A concurrent attempt wrote it first.
            if (err.code !== '23505') throw err;
          });
      }
      return {
        kind: 'run',
        input: {
          organizationId: input.organizationId,
          workflow: { id: workflow.id, name: workflow.name, version: version.version },
          trigger: { id: trigger.id, name: trigger.name },
          ...(environmentId ? { environmentId } : {}),
          initial: trigger.initial,
          steps: version.definition.steps,
        },
      };
    },

    /** A beat found its trigger or workflow gone: the schedule goes too (nothing to do when it is gone already). */
    async deleteTriggerSchedule(input: { triggerId: string }): Promise<void> {
      try {
        await Context.current().client.schedule.getHandle(triggerScheduleId(input.triggerId)).delete();
      } catch (err) {
        if (!(err instanceof ScheduleNotFoundError)) throw err;
      }
    },
  };
}
