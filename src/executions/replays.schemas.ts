import { z } from '../openapi/zod';
import { EXECUTION_STATUSES } from './executions.constants';

/** At most this many runs per bulk replay: a filter matching more is refused (narrow it). */
export const BULK_REPLAY_LIMIT = 1000;
/** A dry run names at most this many of the runs it matched. */
export const BULK_PREVIEW_IDS = 100;

const StepId = z.string().min(1).max(100);
const FromStepId = StepId.openapi({
  description:
    "The step to replay from: one the original run recorded (top level, in a core.if branch it took, or in a core.wait's onTimeout path; the step that failed it included). Not an agent's model or tool call: those replay with their agent step",
});
const Version = z
  .enum(['original', 'current'])
  .default('original')
  .openapi({ description: "The definition to run: the version the original ran (default), or the workflow's current one, which must have `fromStepId`" });

export const ReplayBody = z
  .strictObject({
    fromStepId: FromStepId,
    outputs: z.record(StepId, z.unknown()).optional().openapi({
      description:
        'Outputs to use instead of recorded ones, by step id: only steps the original completed before `fromStepId`. A core.if output `{result: true|false}` chooses its branch',
    }),
    version: Version,
  })
  .openapi('ReplayFromStep');

export const ReplayStartedSchema = z
  .object({ executionId: z.string(), status: z.literal('running'), replayOf: z.string().openapi({ description: 'The execution replayed' }) })
  .openapi('ReplayStarted');

export const BulkReplayBody = z
  .strictObject({
    filter: z
      .strictObject({
        workflowId: z.uuid({ message: 'must be a UUID' }),
        status: z.enum(EXECUTION_STATUSES).optional().openapi({ description: 'Runs that ended so (open runs are never selected)' }),
        failedStepId: StepId.optional().openapi({ description: 'Runs failed by this step (the `stepId` of their error)' }),
        startedAfter: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started at or after' }),
        startedBefore: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started before' }),
      })
      .openapi({ description: 'Which ended runs of the workflow to replay; only runs that recorded `fromStepId` match' }),
    fromStepId: FromStepId,
    version: Version,
    dryRun: z.boolean().default(true).openapi({ description: 'Only count and name the runs that match (the default); false starts the bulk' }),
  })
  .openapi('BulkReplay');

export const BulkReplayPreviewSchema = z
  .object({
    dryRun: z.literal(true),
    total: z
      .number()
      .int()
      .openapi({ description: `How many runs match (at most ${BULK_REPLAY_LIMIT})` }),
    executionIds: z.array(z.string()).openapi({ description: `The first ${BULK_PREVIEW_IDS} of them, oldest first` }),
  })
  .openapi('BulkReplayPreview');

export const BulkReplayStartedSchema = z
  .object({
    bulkId: z.uuid().openapi({ description: 'Derived from the organization and the request: the same request answers the same bulk' }),
    total: z.number().int(),
    status: z.enum(['running', 'completed']),
  })
  .openapi('BulkReplayStarted');

export const BulkIdParams = z.object({ bulkId: z.string().min(1).max(100) });

export const BulkReplayProgressSchema = z
  .object({
    bulkId: z.uuid(),
    status: z.enum(['running', 'completed']).openapi({ description: '`completed` once every selected run was started or failed to start' }),
    fromStepId: z.string(),
    version: z.enum(['original', 'current']),
    total: z.number().int().openapi({ description: 'Runs selected when the bulk was created' }),
    started: z.number().int().openapi({ description: 'Replays started so far' }),
    failed: z.number().int().openapi({ description: 'Runs that could not be replayed (see their `error`)' }),
    executions: z
      .array(
        z.object({
          originalId: z.string(),
          executionId: z.string().openapi({ description: "The replay's execution id (derived from the bulk and the original; a run once started)" }),
          status: z.enum(['pending', 'started', 'failed']),
          error: z.string().nullable(),
        }),
      )
      .openapi({ description: 'Every selected run in order, with its replay' }),
  })
  .openapi('BulkReplayProgress');
