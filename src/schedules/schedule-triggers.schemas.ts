import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import { TriggerName } from '../webhooks/webhook-triggers.schemas';

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'allow_all'] as const;

/** At most this many schedule triggers per organization: each is a Temporal Schedule the cluster keeps firing. */
export const MAX_SCHEDULE_TRIGGERS = 100;

const CronSchedule = z
  .strictObject({
    cron: z.string().min(1).max(200).openapi({
      description:
        "5 fields: minute hour day-of-month month day-of-week, as Temporal's scheduler reads them (a day matches when both day fields do; no L, W, ?, H or #)",
      example: '0 9 * * MON-FRI',
    }),
    timezone: z
      .string()
      .min(1)
      .max(100)
      .default('UTC')
      .openapi({ description: 'IANA time zone the expression is read in, in any case; stored and answered as its IANA name', example: 'Europe/Paris' }),
  })
  .openapi('CronSchedule');
const IntervalSchedule = z
  .strictObject({
    intervalSeconds: z
      .number()
      .int()
      .min(1)
      .max(366 * 86_400)
      .openapi({ description: 'Every this many seconds; at least SCHEDULE_MIN_INTERVAL_SECONDS (60 by default)' }),
  })
  .openapi('IntervalSchedule');
export const ScheduleSpecSchema = z.union([CronSchedule, IntervalSchedule]);

const scheduleFields = {
  initial: z.record(z.string(), z.unknown()).openapi({ description: "Every run's `initial` (default {})" }),
  environment: z.string().min(1).nullable().openapi({ description: "Environment to run with; null or absent: the workflow's default" }),
  overlapPolicy: z.enum(OVERLAP_POLICIES).openapi({
    description: 'When a run is due while the previous one still runs: skip it, buffer one to run after, or allow all to run at once',
  }),
  catchupWindowSeconds: z
    .number()
    .int()
    .min(10)
    .max(7 * 86_400)
    .openapi({ description: 'After downtime, runs missed within this window still start (default 60)' }),
  paused: z.boolean().openapi({ description: 'Paused triggers start nothing until resumed' }),
};

export const CreateScheduleTriggerBody = z
  .strictObject({
    type: z.literal('schedule'),
    name: TriggerName,
    schedule: ScheduleSpecSchema,
    initial: scheduleFields.initial.default({}),
    environment: scheduleFields.environment.optional(),
    overlapPolicy: scheduleFields.overlapPolicy.default('skip'),
    catchupWindowSeconds: scheduleFields.catchupWindowSeconds.default(60),
    paused: scheduleFields.paused.default(false),
  })
  .openapi('CreateScheduleTrigger');
export type CreateScheduleTriggerInput = z.output<typeof CreateScheduleTriggerBody>;

export const UpdateScheduleTriggerBody = z
  .strictObject({
    name: TriggerName.optional(),
    schedule: ScheduleSpecSchema.optional(),
    initial: scheduleFields.initial.optional(),
    environment: scheduleFields.environment.optional(),
    overlapPolicy: scheduleFields.overlapPolicy.optional(),
    catchupWindowSeconds: scheduleFields.catchupWindowSeconds.optional(),
    paused: scheduleFields.paused.optional().openapi({ description: 'true pauses the schedule, false resumes it' }),
  })
  .openapi('UpdateScheduleTrigger');
export type UpdateScheduleTriggerInput = z.output<typeof UpdateScheduleTriggerBody>;

export const ScheduleTriggerIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
export const ScheduleTriggersQuery = PageQuery.extend({ workflowId: z.uuid().optional() });

const RunSchema = z.object({ id: z.string(), status: z.string(), startedAt: z.string(), finishedAt: z.string().nullable() });

export const ScheduleTriggerSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    workflowId: z.uuid(),
    type: z.literal('schedule'),
    name: z.string(),
    schedule: z.union([z.object({ cron: z.string(), timezone: z.string() }), z.object({ intervalSeconds: z.number().int() })]),
    initial: z.record(z.string(), z.unknown()),
    environmentId: z.uuid().nullable(),
    overlapPolicy: z.enum(OVERLAP_POLICIES),
    catchupWindowSeconds: z.number().int(),
    paused: z.boolean(),
    temporalScheduleId: z.string().openapi({ description: 'The Temporal Schedule, as the Temporal UI lists it' }),
    nextRunTimes: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Single reads only: the next (up to 5) times it fires, from Temporal; empty while paused' }),
    lastRuns: z.array(RunSchema).optional().openapi({ description: 'Single reads only: its 5 latest runs, newest first' }),
    note: z.string().nullable().optional().openapi({ description: "Single reads only: the schedule's note in Temporal (who paused it)" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('ScheduleTrigger');
