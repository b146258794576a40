import { type Client, isGrpcServiceError, ScheduleNotFoundError, type ScheduleOptions, type ScheduleOverlapPolicy, ServiceError } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { type FieldIssue, ValidationError } from '../errors/errors';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { runDetails, runSummary, type RunPresentation } from '../../workflows/run.types';
import { SCHEDULED_RUN_WORKFLOW, scheduledRunId, triggerScheduleId, type ScheduledRunInput } from '../../workflows/scheduled-run.types';
import type { OverlapPolicy, ScheduleTrigger } from './schedule-trigger.entity';

/** gRPC's status code for a request the server refuses as invalid. */
const INVALID_ARGUMENT = 3;

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

  /** Creates the schedule; a spec Temporal refuses is a 400 `invalid_schedule` naming the field, and nothing is created. */
  async create(trigger: ScheduleTrigger, workflowName: string): Promise<void> {
    const options = this.options(trigger, workflowName);
    await refusedSpecAsInvalid(trigger, () =>
      this.client.schedule.create({
        ...options,
        scheduleId: triggerScheduleId(trigger.id),
        state: { paused: trigger.paused, ...(trigger.paused ? { note: 'Created paused' } : {}) },
      }),
    );
  }

  /**
   * Replaces the spec, action and policies, and pauses or unpauses to match
   * the trigger. A spec Temporal refuses changes nothing (the update is one
   * request) and is a 400 `invalid_schedule`, as on create.
   */
  async update(trigger: ScheduleTrigger, workflowName: string, pausedChanged: boolean): Promise<void> {
    const handle = this.client.schedule.getHandle(triggerScheduleId(trigger.id));
    const { spec, action, policies } = this.options(trigger, workflowName);
    // The update carries the paused state it is meant to leave, not the one it read: Temporal's scheduler may
    // apply it after the pause or unpause below, and would otherwise undo it.
    await refusedSpecAsInvalid(trigger, () =>
      handle.update((previous) => ({ ...previous, spec, action, policies, state: { ...previous.state, paused: trigger.paused } })),
    );
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
    // No version: each run reads the workflow's current one as it begins (the execution records it).
    const shown: RunPresentation = {
      organizationId: trigger.organizationId,
      workflow: { id: trigger.workflowId, name: workflowName },
      mode: 'schedule',
      trigger: { id: trigger.id, name: trigger.name },
    };
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
        staticSummary: runSummary(shown),
        staticDetails: runDetails(shown),
      },
      policies: { overlap: OVERLAP[trigger.overlapPolicy], catchupWindow: `${trigger.catchupWindowSeconds}s` },
      typedSearchAttributes: searchAttributes,
      memo: { workflowId: trigger.workflowId },
    };
  }
}

/**
 * Runs a create or update of the trigger's schedule; Temporal refusing its
 * spec (INVALID_ARGUMENT "Invalid schedule spec: …", which the client turns
 * into a TypeError carrying the server's words) becomes a 400
 * `invalid_schedule` naming the field. Temporal is the authority on what it
 * accepts: the service's own check (schedule-spec.ts) only answers first.
 */
async function refusedSpecAsInvalid(trigger: ScheduleTrigger, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    const refusal = specRefusal(err);
    if (refusal === undefined) throw err;
    const issue = refusedField(trigger, refusal);
    throw new ValidationError(`${issue.path} ${issue.message}`, [issue], 'invalid_schedule');
  }
}

/** The server's reason when `err` is Temporal refusing a schedule spec; undefined for anything else. */
export function specRefusal(err: unknown): string | undefined {
  // The client rethrows the server's refusal as a TypeError from rethrowGrpcError; any other TypeError (a missing option,
  // a bug of ours) is not the caller's mistake and stays a 500.
  if (err instanceof TypeError && /\brethrowGrpcError\b/.test(err.stack ?? '')) return err.message;
  // A client that stops translating the refusal: the gRPC error itself.
  const cause = err instanceof ServiceError ? err.cause : undefined;
  if (isGrpcServiceError(cause) && cause.code === INVALID_ARGUMENT && /schedule spec/i.test(cause.details)) return cause.details;
  return undefined;
}

/** Which field Temporal's reason is about, in words that say what to do; its own text is kept at the end for the record. */
function refusedField(trigger: ScheduleTrigger, reason: string): FieldIssue {
  const said = ` (Temporal said: ${reason.replace(/^Invalid schedule spec: /, '')})`;
  if (!trigger.cron) return { path: 'schedule.intervalSeconds', message: `is not an interval Temporal's scheduler accepts${said}` };
  if (/time ?zone/i.test(reason)) {
    return {
      path: 'schedule.timezone',
      message: `"${trigger.timezone}" is not a time zone the Temporal server knows: give an IANA name such as Europe/Paris${said}`,
    };
  }
  return {
    path: 'schedule.cron',
    message: `is not an expression Temporal's scheduler accepts: use numbers, names (JAN, MON), "*", ranges (1-5), lists (1,15) and steps (*/15) only${said}`,
  };
}
