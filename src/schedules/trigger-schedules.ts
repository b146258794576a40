import { type Client, ScheduleNotFoundError, type ScheduleOptions, type ScheduleOverlapPolicy } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { SCHEDULED_RUN_WORKFLOW, scheduledRunId, triggerScheduleId, type ScheduledRunInput } from '../../workflows/scheduled-run.types';
import type { OverlapPolicy, ScheduleTrigger } from './schedule-trigger.entity';

const OVERLAP: Record<OverlapPolicy, ScheduleOverlapPolicy> = { skip: 'SKIP', buffer_one: 'BUFFER_ONE', allow_all: 'ALLOW_ALL' };

/** What the trigger's read shows from Temporal: when it fires next, and whether an operator paused it there. */
export interface ScheduleState {
  nextRunTimes: Date[];
  paused: boolean;
  note: string | null;
}

/**
 * The Temporal Schedule of each schedule trigger (`schedule-trigger:<id>`).
 * It starts `runScheduledTrigger` with the trigger's id only; the run reads
 * the workflow's current version when it begins. Runs and the schedule carry
 * the search attributes OrganizationId, WorkflowName and TriggerName.
 */
export class TriggerSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async create(trigger: ScheduleTrigger, workflowName: string): Promise<void> {
    const options = this.options(trigger, workflowName);
    await this.client.schedule.create({
      ...options,
      scheduleId: triggerScheduleId(trigger.id),
      state: { paused: trigger.paused, ...(trigger.paused ? { note: 'Created paused' } : {}) },
    });
  }

  /** Replaces the spec, action and policies, and pauses or unpauses to match the trigger. */
  async update(trigger: ScheduleTrigger, workflowName: string, pausedChanged: boolean): Promise<void> {
    const handle = this.client.schedule.getHandle(triggerScheduleId(trigger.id));
    const { spec, action, policies } = this.options(trigger, workflowName);
    // The update carries the paused state it is meant to leave, not the one it read: Temporal's scheduler may
    // apply it after the pause or unpause below, and would otherwise undo it.
    await handle.update((previous) => ({ ...previous, spec, action, policies, state: { ...previous.state, paused: trigger.paused } }));
    if (pausedChanged) await (trigger.paused ? handle.pause('Paused through the API') : handle.unpause('Resumed through the API'));
  }

  async describe(triggerId: string): Promise<ScheduleState | undefined> {
    try {
      const description = await this.client.schedule.getHandle(triggerScheduleId(triggerId)).describe();
      const paused = description.state.paused;
      // Temporal keeps computing the times a paused schedule would fire at; while it is paused, it fires at none of them.
      return { nextRunTimes: paused ? [] : description.info.nextActionTimes.slice(0, 5), paused, note: description.state.note ?? null };
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return undefined;
      throw err;
    }
  }

  /** Deletes the schedule; nothing to do when there is none. */
  async delete(triggerId: string): Promise<void> {
    try {
      await this.client.schedule.getHandle(triggerScheduleId(triggerId)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  private options(trigger: ScheduleTrigger, workflowName: string) {
    const searchAttributes = new TypedSearchAttributes([
      { key: SEARCH_ATTRIBUTE_KEYS.OrganizationId, value: trigger.organizationId },
      { key: SEARCH_ATTRIBUTE_KEYS.WorkflowName, value: workflowName },
      { key: SEARCH_ATTRIBUTE_KEYS.TriggerName, value: trigger.name },
    ]);
    const input: ScheduledRunInput = { organizationId: trigger.organizationId, triggerId: trigger.id };
    const spec: ScheduleOptions['spec'] = trigger.cron
      ? { cronExpressions: [trigger.cron], timezone: trigger.timezone }
      : { intervals: [{ every: `${trigger.intervalSeconds}s` }] };
    return {
      spec,
      action: {
        type: 'startWorkflow' as const,
        workflowType: SCHEDULED_RUN_WORKFLOW,
        workflowId: scheduledRunId(trigger.id),
        taskQueue: this.taskQueue,
        args: [input],
        typedSearchAttributes: searchAttributes,
        staticSummary: `${workflowName} (schedule, trigger ${trigger.name})`,
      },
      policies: { overlap: OVERLAP[trigger.overlapPolicy], catchupWindow: `${trigger.catchupWindowSeconds}s` },
      typedSearchAttributes: searchAttributes,
      memo: { workflowId: trigger.workflowId },
    };
  }
}
