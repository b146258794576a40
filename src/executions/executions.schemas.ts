import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import { EXECUTION_STATUSES } from './executions.repository';

const JsonObject = z.record(z.string(), z.unknown());
const EnvironmentName = z.string().min(1).openapi({ description: 'Environment to run with instead of the workflow\'s default' });

export const ExecutionIdParams = z.object({ id: z.string().min(1).max(100) });

export const ExecutionsQuery = PageQuery.extend({
  workflowId: z.uuid({ message: 'must be a UUID' }).optional(),
  status: z.enum(EXECUTION_STATUSES).optional(),
  startedAfter: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started at or after' }),
  startedBefore: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started before' }),
});

export const RunBody = z
  .strictObject({
    input: JsonObject.default({}).openapi({ description: 'The run\'s `initial`' }),
    environment: EnvironmentName.optional(),
    wait: z.boolean().default(false).openapi({ description: 'Wait (bounded) for the run to end and answer with the execution' }),
  })
  .openapi('RunWorkflow');

export const TestRunBody = z
  .strictObject({
    initial: JsonObject.optional().openapi({ description: 'Defaults to the definition\'s `initial` sample' }),
    environment: EnvironmentName.optional(),
  })
  .openapi('TestRun');

export const RerunBody = z
  .strictObject({
    definition: z.enum(['current', 'original']).default('current').openapi({ description: 'Run the workflow as it is now, or the version the execution ran' }),
  })
  .openapi('Rerun');

const StepSchema = z.object({
  stepId: z.string(),
  stepType: z.string(),
  status: z.enum(['completed', 'failed']),
  attempt: z.number().int(),
  input: z.unknown().openapi({ description: 'Rendered input; secret values appear as [secret]' }),
  output: z.unknown().openapi({ description: 'Output; secret values appear as [secret]' }),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number().int(),
});

export const ExecutionSchema = z
  .object({
    id: z.string().openapi({ description: 'The Temporal workflow id' }),
    workflowId: z.uuid(),
    workflowName: z.string(),
    workflowVersion: z.number().int(),
    trigger: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    environmentId: z.uuid().nullable(),
    mode: z.enum(['webhook', 'api', 'test', 'rerun']),
    status: z.enum(EXECUTION_STATUSES),
    input: JsonObject,
    error: z.object({ stepId: z.string().optional(), message: z.string() }).nullable(),
    rerunOf: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    steps: z.array(StepSchema).optional(),
  })
  .openapi('Execution');

export const StartedSchema = z.object({ executionId: z.string(), status: z.literal('running') }).openapi('RunStarted');
