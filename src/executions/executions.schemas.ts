import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import { STEP_INLINE_LIMIT } from '../../workflows/run.types';
import { EXECUTION_MODES, EXECUTION_STATUSES, SUMMARY_KEY_CHARS, SUMMARY_KEYS } from './executions.constants';

const JsonObject = z.record(z.string(), z.unknown());
const EnvironmentName = z.string().min(1).openapi({ description: "Environment to run with instead of the workflow's default" });

export const ExecutionIdParams = z.object({ id: z.string().min(1).max(100) });
export const StepValueParams = ExecutionIdParams.extend({ stepId: z.string().min(1).max(100) });

export const ExecutionsQuery = PageQuery.extend({
  workflowId: z.uuid({ message: 'must be a UUID' }).optional(),
  status: z.enum(EXECUTION_STATUSES).optional(),
  mode: z
    .enum(EXECUTION_MODES)
    .optional()
    .openapi({
      description:
        "How the runs started: `webhook` (a webhook call), `api` (POST /workflows/{id}/runs), `test` (POST /workflows/{id}/test), `rerun`, `schedule` (a schedule trigger), `agent` (an agent step's workflow tool), " +
        '`workflow` (a core.workflow step), `error` (the error workflow of a run that failed or was cancelled), `replay` (a replay from a step)',
    }),
  triggerId: z
    .uuid({ message: 'must be a UUID' })
    .optional()
    .openapi({ description: "Runs of this webhook or schedule trigger (reruns of its runs included); another organization's trigger matches nothing" }),
  startedAfter: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started at or after' }),
  startedBefore: z.coerce.date().optional().openapi({ description: 'ISO 8601; runs started before' }),
  deliveryId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: "The run a webhook delivery of this id started (its trigger's delivery id source: a header, a body field or a vendor preset)" }),
  parentExecutionId: z.string().min(1).max(100).optional().openapi({
    description:
      "Runs this execution started: its core.workflow steps' and agent workflow tools' child runs, and its error workflow's run; another organization's execution matches nothing",
  }),
});

export const RunBody = z
  .strictObject({
    input: JsonObject.default({}).openapi({ description: "The run's `initial`" }),
    environment: EnvironmentName.optional(),
    wait: z.boolean().default(false).openapi({ description: 'Wait (bounded) for the run to end and answer with the execution' }),
  })
  .openapi('RunWorkflow');

export const TestRunBody = z
  .strictObject({
    initial: JsonObject.optional().openapi({ description: "Defaults to the definition's `initial` sample" }),
    environment: EnvironmentName.optional(),
  })
  .openapi('TestRun');

export const RerunBody = z
  .strictObject({
    definition: z.enum(['current', 'original']).default('current').openapi({ description: 'Run the workflow as it is now, or the version the execution ran' }),
  })
  .openapi('Rerun');

/**
 * Where a step value too large to inline is read in full. It sits beside the
 * value (`omitted`), never in its place: a value is what the step recorded,
 * whatever its shape, so nothing a run was sent can pass for one of these.
 */
export const OmittedStepValue = z
  .strictObject({
    bytes: z.number().int().openapi({ description: "Size of the value's JSON text, as `href` answers it" }),
    href: z.string().openapi({ description: 'Path answering the full value (GET, workflows:view)', example: '/executions/0199…/steps/fetch/output' }),
  })
  .openapi('OmittedStepValue', { description: `A step's input or output larger than ${STEP_INLINE_LIMIT} bytes: its value is null, read it here` });

const stepValue = (what: string) =>
  z.unknown().openapi({ description: `${what}; secret values appear as [secret]. Above ${STEP_INLINE_LIMIT} bytes null, and \`omitted\` says where it is` });

const tokens = (what: string) =>
  z
    .number()
    .int()
    .nullable()
    .openapi({ description: `${what} tokens, as the provider reported them; null when it did not` });

export const StepUsageSchema = z
  .object({
    provider: z.string().openapi({ example: 'openai' }),
    model: z.string().openapi({ description: 'The model that answered (as the provider named it)', example: 'gpt-4o-mini' }),
    inputTokens: tokens('Input'),
    outputTokens: tokens('Output'),
    cost: z.number().nullable().openapi({
      description:
        'USD to 6 decimals, from the price table (docs/workflows.md, LLM_PRICES) on the day of the call; null when the model has no price or a token count is missing',
      example: 0.000036,
    }),
    calls: z.number().int().optional().openapi({ description: "An ai.agent step: how many model calls the sums cover (each call's record has its own usage)" }),
  })
  .openapi('StepUsage', { description: "Only on ai.llm-call and ai.agent steps and the agent's model calls: what the model call(s) used" });

export const RunUsageSchema = z
  .object({
    inputTokens: z.number().int().nullable(),
    outputTokens: z.number().int().nullable(),
    cost: z.number().nullable().openapi({ description: "USD: the sum of the priced steps' costs; null when none is priced" }),
    unpricedSteps: z.number().int().openapi({ description: 'Steps with usage but no cost (a model with no price), left out of cost' }),
  })
  .openapi('RunUsage', {
    description: "Only when a step called a model: the sums over the run's ai.llm-call and ai.agent steps (a child run's calls are in its own usage)",
  });

const StepSchema = z.object({
  stepId: z.string(),
  stepType: z.string(),
  parentStepId: z
    .string()
    .nullable()
    .openapi({ description: "Set on a sub-step: an ai.agent step's model call (<stepId>.model-<n>) or tool call (<stepId>.tool-<n>), listed after its step" }),
  itemIndex: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "Set on a core.loop body's record: the index of the item it ran for (0-based); null otherwise" }),
  status: z.enum(['completed', 'failed']),
  attempt: z.number().int(),
  input: stepValue('Rendered input'),
  output: stepValue('Output'),
  omitted: z
    .strictObject({ input: OmittedStepValue.optional(), output: OmittedStepValue.optional() })
    .optional()
    .openapi({ description: 'Present when the input or the output is too large to inline: where each is read in full' }),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string(),
  durationMs: z.number().int(),
  usage: StepUsageSchema.optional(),
  replay: z
    .object({
      reused: z
        .boolean()
        .openapi({ description: "The original's recorded output was taken (or replaced) instead of running the step: nothing was sent again" }),
      changed: z.boolean().nullable().openapi({
        description:
          "Replaced outputs: true; reused ones: false. A step that ran again: whether its recorded (masked) output differs from the original's as JSON; null when the original recorded no such step",
      }),
    })
    .optional()
    .openapi({ description: 'Only in a replay (mode `replay`): how this step relates to the same step of the original run' }),
});

const executionFields = {
  id: z.string().openapi({ description: 'The Temporal workflow id' }),
  workflowId: z.uuid(),
  workflowName: z.string(),
  workflowVersion: z.number().int(),
  trigger: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  environmentId: z.uuid().nullable(),
  mode: z.enum(EXECUTION_MODES),
  status: z.enum(EXECUTION_STATUSES),
  error: z
    .object({
      stepId: z.string().optional(),
      message: z.string(),
      code: z
        .string()
        .optional()
        .openapi({ description: "The failed step's failure type (InvalidStepInput, TemplateError, Timeout…), for runs ended since it is recorded" }),
    })
    .nullable(),
  rerunOf: z.string().nullable(),
  parentExecutionId: z.string().nullable().openapi({
    description: 'The run that started this one (a core.workflow step, an agent workflow tool, or the failed run an error run reports); else null',
  }),
  parentStepId: z.string().nullable().openapi({
    description:
      "The parent's step that started this run: the core.workflow step, or the agent's tool call sub-step (<stepId>.tool-<n>); null for an error run",
  }),
  replayOf: z.string().nullable().openapi({ description: 'A replay from a step (mode `replay`): the execution it replays' }),
  replayFromStepId: z.string().nullable().openapi({ description: 'A replay: the step it ran from (the steps the original ran before it were reused)' }),
  deliveryId: z.string().nullable().openapi({
    description:
      'The id of the webhook delivery that started this run, when its trigger deduplicates and the delivery named one (also the Temporal search attribute DeliveryId)',
  }),
  draft: z.boolean().openapi({
    description: "A run of a person's draft (a test of one step or of the whole draft): its steps are no version's, so it is neither rerun nor replayed",
  }),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
};

export const TemporalLinkSchema = z
  .object({
    namespace: z.string(),
    workflowId: z.string().openapi({ description: 'The Temporal workflow id: the execution id' }),
    runId: z.string().nullable().openapi({
      description:
        'Known when this read asked Temporal about the run (it was recorded as running); else null. The workflow id alone names the run: the service never reuses one',
    }),
    url: z.url().nullable().openapi({
      description:
        "The run in the Temporal Web UI (TEMPORAL_UI_URL; without a run id, the UI opens the workflow id's latest run); null when no UI is configured",
      example: 'http://127.0.0.1:8233/namespaces/default/workflows/0199…',
    }),
  })
  .openapi('ExecutionTemporalLink', { description: 'Where the run is in Temporal' });

export const WaitSchema = z
  .object({
    stepId: z.string(),
    event: z.string().nullable().openapi({ description: 'The event it waits for (POST /executions/{id}/events/{event}); null for a timer' }),
    schema: JsonObject.nullable().openapi({ description: "JSON Schema the event's payload must match; null: any JSON" }),
    until: z.string().openapi({ description: 'When the wait ends by itself: the timer, or the event wait timing out (ISO 8601)' }),
    startedAt: z.string(),
  })
  .openapi('ExecutionWait');

export const ExecutionSchema = z
  .object({
    ...executionFields,
    input: JsonObject,
    errorExecutionId: z.string().nullable().openapi({
      description: "The run of the workflow's errorWorkflow this run started when it failed or was cancelled (mode error); else null",
    }),
    temporal: TemporalLinkSchema,
    waiting: z.array(WaitSchema).optional().openapi({ description: 'While the status is waiting: what the run waits for' }),
    subStepsOmitted: z.number().int().optional().openapi({
      description:
        "Sub-steps left out of steps: a loop's items past its first 100 (each record stays readable at /executions/{id}/steps/{stepId}/output; the loop's output holds every item's result)",
    }),
    usage: RunUsageSchema.optional(),
    steps: z.array(StepSchema).optional(),
  })
  .openapi('Execution');

export const EventParams = ExecutionIdParams.extend({
  name: z.string().min(1).max(64).openapi({ description: "The event's name, as the core.wait step names it" }),
});

export const EventPayload = z
  .unknown()
  .openapi({ description: "The event's payload: any JSON object or array, checked against the step's schema; it becomes the step's output" });

export const EventAcceptedSchema = z
  .object({ executionId: z.string(), stepId: z.string(), event: z.string(), status: z.literal('resumed') })
  .openapi('EventAccepted');

export const InputSummarySchema = z
  .object({
    bytes: z.number().int().openapi({ description: "Octets of the input's JSON text as stored (a space after each `:` and `,`)" }),
    keyCount: z.number().int().openapi({ description: 'How many top-level keys it has' }),
    keys: z.array(z.string()).openapi({
      description: `Its first ${SUMMARY_KEYS} top-level keys, in stored order (shorter keys first, as GET /executions/{id} shows them), each cut to ${SUMMARY_KEY_CHARS} characters`,
    }),
  })
  .openapi('ExecutionInputSummary');

/** A list entry: the execution without its input (read it with GET /executions/{id}) or steps. */
export const ExecutionListItemSchema = z
  .object({
    ...executionFields,
    // A union, not .nullable(): on a named schema, zod-to-openapi would make the component itself nullable.
    inputSummary: z
      .union([InputSummarySchema, z.null()])
      .openapi({ description: 'Null only for a run recorded while an older version of the service was still running' }),
  })
  .openapi('ExecutionListItem');

export const StartedSchema = z
  .object({
    executionId: z.string(),
    status: z.enum(['running', 'waiting']).openapi({ description: 'waiting: a run that was waited for parked at a core.wait step; it goes on when it wakes' }),
  })
  .openapi('RunStarted');
