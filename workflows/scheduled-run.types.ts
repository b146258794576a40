// Shared by the schedule trigger service (which creates the Temporal Schedules),
// the scheduled-run workflow and its activities. No I/O here.
import type { RunInput } from './run.types';

/** The workflow type a schedule trigger's Temporal Schedule starts. */
export const SCHEDULED_RUN_WORKFLOW = 'runScheduledTrigger';

/** The Temporal Schedule of a schedule trigger. */
export const triggerScheduleId = (triggerId: string) => `schedule-trigger:${triggerId}`;

/** The id of the runs it starts; Temporal appends each run's scheduled time (`schedule-run:<id>-2026-11-24T09:00:00Z`), and it is the execution id. */
export const scheduledRunId = (triggerId: string) => `schedule-run:${triggerId}`;

/** All a schedule carries: which trigger. The definition is read when each run begins, so the next run uses the workflow's current version. */
export interface ScheduledRunInput {
  organizationId: string;
  triggerId: string;
}

/** The run to interpret, or `gone` when the trigger or its workflow no longer exists (the schedule then deletes itself). */
export type BeginScheduledRunResult = { kind: 'run'; input: RunInput } | { kind: 'gone' };
