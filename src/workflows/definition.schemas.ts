import { z } from '../openapi/zod';
import { AGENT_LIMITS } from '../../workflows/agent-limits';
import { ANSWER_HEADERS, answerHeaderRefusal } from '../http/answer-headers';

/**
 * Step ids are read in templates as `{{ <stepId>.<field> }}`, so they are
 * identifiers; and they key step outputs in plain objects, so none may be an
 * object internal such as `__proto__` (which would replace a prototype
 * instead of holding an output).
 */
export const StepId = z
  .string()
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier: a letter or _, then letters, digits or _')
  .refine((id) => !RESERVED_STEP_IDS.has(id), 'is reserved (a template root; item and index are what a loop body reads)')
  .refine((id) => !OBJECT_INTERNALS.has(id), 'is reserved (a JavaScript object internal such as __proto__, constructor or prototype)');
export const RESERVED_STEP_IDS = new Set(['initial', 'env', 'connections', '__env', '__connections', '__resume', 'item', 'index']);
const OBJECT_INTERNALS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Workflow names appear in URLs. */
export const WorkflowName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'must be 1 to 100 characters: letters, digits, _ or -, not starting with _ or -');

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const StringMap = z.record(z.string(), z.string());

export const HttpInput = z.strictObject({
  url: z.string().min(1).openapi({ description: 'Template allowed' }),
  method: z.enum(HTTP_METHODS).default('GET'),
  headers: StringMap.optional().openapi({ description: 'Header values may be templates' }),
  searchParams: StringMap.optional().openapi({ description: 'Query parameters, encoded by the service; values may be templates' }),
  body: z
    .unknown()
    .optional()
    .openapi({ description: 'JSON (templates inside strings are resolved), text with bodyType text, or base64 text with bodyType base64' }),
  bodyType: z
    .enum(['json', 'text', 'base64'])
    .optional()
    .openapi({
      description:
        'How body is sent. json (default): serialized as JSON, content-type application/json. text: the rendered text, text/plain. ' +
        'base64: body renders to base64 text (such as {{ report.bodyBase64 }}, a binary answer of an earlier step) and is sent as the bytes it encodes; ' +
        'set content-type in headers (default application/octet-stream). Text that is not base64 fails the step without retry',
    }),
  connection: z.string().min(1).optional().openapi({ description: 'Connection name, or a template such as {{ $env.CRM }} naming one' }),
  sign: z
    .strictObject({
      connection: z.string().min(1).openapi({ description: 'Name of a webhook-signing connection, or a template such as {{ $env.SIGNER }} naming one' }),
    })
    .optional()
    .openapi({
      description:
        "Signs the request as a webhook sender would: the exact body bytes sent (empty when there is none) with the connection's secret, " +
        "in its scheme's headers (hmac: X-Signature and X-Signature-Timestamp by default; stripe: Stripe-Signature). " +
        'Every attempt is signed afresh with the current time, under the same Idempotency-Key. Works alongside connection',
    }),
  retry: z.strictObject({ limit: z.number().int().min(0).max(10) }).optional(),
  timeoutMs: z.number().int().min(100).max(300_000).optional(),
});

/** Headers a return step sets: ones the service lets a workflow's answer carry (src/http/answer-headers.ts), each refusal naming its header. */
const AnswerHeaders = StringMap.superRefine((headers, ctx) => {
  for (const name of Object.keys(headers)) {
    const refusal = answerHeaderRefusal(name);
    if (refusal) ctx.addIssue({ code: 'custom', path: [name], message: `${name} ${refusal}` });
  }
});

export const ReturnInput = z.strictObject({
  webhookResponse: z.strictObject({
    statusCode: z.number().int().min(200).max(599),
    body: z.unknown().optional().openapi({ description: 'Object or template string; templates inside are resolved' }),
    headers: AnswerHeaders.optional().openapi({
      description:
        `Header values may be templates. Names: ${ANSWER_HEADERS.join(', ')}, or an X- header of your own (not one the service sets). ` +
        "A Content-Security-Policy is sent beside the service's own, which always applies",
    }),
  }),
});

/** `output_schema` values: `<type>: <description>`. */
export const OUTPUT_FIELD = /^(string|string\[\]|number|number\[\]|integer|boolean): ?([\s\S]*)$/;

export const LlmCallInput = z.strictObject({
  provider: z.strictObject({
    provider: z.enum(['openai', 'anthropic']),
    connection: z.string().min(1),
    model: z.string().min(1).max(200),
  }),
  mode: z.strictObject({
    mode: z.literal('structured_output'),
    system_prompt: z.string().optional(),
    user_prompt: z.string().min(1),
    output_schema: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'field names are identifiers'),
        z.string().regex(OUTPUT_FIELD, 'must read "<type>: <description>" with type string, string[], number, number[], integer or boolean'),
      )
      .refine((s) => Object.keys(s).length > 0, 'needs at least one field'),
  }),
  maxPromptCharacters: z.number().int().min(100).max(1_000_000).optional().openapi({ description: 'Truncate longer prompts' }),
});

/** `core.set` value names: read as `{{ <stepId>.<name> }}`, so identifiers (a hyphen allowed), never an object internal. */
const SetValueName = z
  .string()
  .max(100)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be a name: a letter or _, then letters, digits, _ or -')
  .refine((name) => !OBJECT_INTERNALS.has(name), 'is reserved (a JavaScript object internal such as __proto__, constructor or prototype)');

/**
 * `core.set`: names mapped to values. Strings are templates; a string that is
 * one `{{ }}` expression keeps the type of what it yields (an object, an
 * array, a number), as a return step's body does. The output is the rendered
 * object, read by later steps as `{{ <stepId>.<name> }}`.
 */
export const SetInput = z.strictObject({
  values: z
    .record(SetValueName, z.unknown())
    .refine((values) => Object.keys(values).length > 0, 'needs at least one value')
    .refine((values) => Object.keys(values).length <= 100, 'holds at most 100 values')
    .openapi({ description: 'Name → value; strings are templates, nested objects and arrays are rendered throughout' }),
});

export const DataStoreGetInput = z.strictObject({
  tableName: z.string().min(1).openapi({ description: 'Template allowed' }),
  key: z.string().min(1).openapi({ description: 'Template allowed' }),
});

export const DataStoreSetInput = z.strictObject({
  tableName: z.string().min(1),
  key: z.string().min(1),
  value: z.unknown().openapi({ description: 'An object (templates inside strings resolved) or a template yielding one' }),
  ttlSeconds: z.number().int().min(1).optional(),
});

/** Tool names as both providers accept them (OpenAI function names are the stricter). */
const ToolName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -');

/** A JSON Schema of a tool's arguments: an object schema, as both providers require; compiled with ajv when the definition is saved. */
const ToolParameters = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === 'object', 'must be a JSON Schema whose type is "object"')
  .openapi({ description: 'JSON Schema of the arguments (type "object"); the model\'s arguments are validated against it before the tool runs' });

const toolBase = {
  name: ToolName,
  description: z.string().min(1).max(2000).openapi({ description: 'What the tool does and when to use it: the model reads it' }),
};

/** An HTTP request whose strings are templates over `args.*` (the model's arguments), `$env`, `$connections` and what the step reads. */
export const AgentHttpTool = z.strictObject({
  type: z.literal('http'),
  ...toolBase,
  parameters: ToolParameters,
  request: HttpInput.omit({ retry: true }),
});

/** Reads (`get`, arguments `{ key }`) or writes (`set`, arguments `{ key, value }`) one data store record. */
export const AgentDataStoreTool = z.strictObject({
  type: z.literal('data-store'),
  ...toolBase,
  operation: z.enum(['get', 'set']),
  tableName: z.string().min(1).openapi({ description: 'Template allowed (over args.*, $env and what the step reads)' }),
  ttlSeconds: z.number().int().min(1).optional().openapi({ description: 'For set: the record expires after this long' }),
});

/** Runs another workflow of the organization (its current version) as a child run: the arguments are its `initial`, its answer the result. */
export const AgentWorkflowTool = z.strictObject({
  type: z.literal('workflow'),
  ...toolBase,
  parameters: ToolParameters.optional().openapi({ description: 'JSON Schema of the arguments; default any object' }),
  workflow: WorkflowName.openapi({ description: 'Name of a workflow of this organization' }),
});

export const AgentTool = z.discriminatedUnion('type', [AgentHttpTool, AgentDataStoreTool, AgentWorkflowTool]).openapi('AgentTool');
export type AgentToolDefinition = z.output<typeof AgentTool>;

/**
 * `ai.agent`: a model that calls tools in a loop until it answers. Each
 * model call and each tool call is its own activity; the conversation stays
 * in the step's sub-step records, out of workflow history.
 */
export const AgentInput = z
  .strictObject({
    provider: LlmCallInput.shape.provider,
    system_prompt: z.string().optional().openapi({ description: 'Template allowed' }),
    user_prompt: z.string().min(1).openapi({ description: 'Template allowed' }),
    tools: z
      .array(AgentTool)
      .max(20)
      .default([])
      .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, 'tool names must be unique'),
    output_schema: LlmCallInput.shape.mode.shape.output_schema
      .optional()
      .openapi({ description: 'Fields of a final structured answer, as ai.llm-call: one more model call, without tools, shapes it' }),
    maxIterations: z.number().int().min(1).max(AGENT_LIMITS.maxIterations.max).optional().openapi({ description: 'Model calls at most (default 10)' }),
    maxToolCalls: z.number().int().min(0).max(AGENT_LIMITS.maxToolCalls.max).optional().openapi({ description: 'Tool calls at most (default 50)' }),
    maxTotalTokens: z
      .number()
      .int()
      .min(100)
      .max(AGENT_LIMITS.maxTotalTokens.max)
      .optional()
      .openapi({ description: 'Input plus output tokens over all model calls (default 200,000)' }),
    timeoutSeconds: z
      .number()
      .int()
      .min(5)
      .max(AGENT_LIMITS.timeoutSeconds.max)
      .optional()
      .openapi({ description: 'Wall-clock limit of the step (default 600)' }),
  })
  .openapi('AgentInput');

/**
 * `core.workflow`: runs another workflow of the organization (its current
 * version, in its own default environment) as a child run. Its output is
 * `{ executionId, answer }` when it waits (the child's first return body,
 * else its last step's output), `{ executionId }` when it does not.
 */
export const WorkflowStepInput = z
  .strictObject({
    workflow: WorkflowName.openapi({
      description: 'Name of a workflow of this organization (checked when the definition is saved; not a template)',
    }),
    input: z
      .union([z.record(z.string(), z.unknown()), z.string().min(1)])
      .optional()
      .openapi({
        description:
          "The child's `initial`: an object whose strings are templates (rendered throughout), or one template such as {{ fetch.body }} yielding an object. Default {}",
      }),
    wait: z.boolean().default(true).openapi({
      description: 'true: the step waits for the child and fails when it fails; false: the child starts and the run goes on (the child outlives it)',
    }),
  })
  .openapi('WorkflowStepInput');

export interface StepDefinition {
  stepId: string;
  stepType: string;
  name?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Step's schemas validate each type's input; the interpreter and the step activities read it after dispatching on stepType by activity name, which the type system does not follow
  input: any;
}

const step = <T extends string, I extends z.ZodType>(stepType: T, input: I) =>
  z.strictObject({ stepId: StepId, stepType: z.literal(stepType), name: z.string().max(200).optional(), input });

/**
 * `core.if`: a Liquid condition (what goes between `{% if` and `%}`, such as
 * `initial.amount > 100 and initial.country == "FR"`), the steps to run when
 * it holds, and optionally those to run when it does not. Its output is
 * `{ result: boolean, branch: "then" | "else" }`.
 */
export const IfInput: z.ZodType<{ condition: string; then: StepDefinition[]; else?: StepDefinition[] }> = z
  .lazy(() =>
    z.strictObject({
      condition: z
        .string()
        .min(1)
        .refine((c) => !/{{|}}|{%|%}/.test(c), 'is the expression alone, such as initial.amount > 100, without {{ }} or {% %}'),
      then: z.array(Step),
      else: z.array(Step).optional(),
    }),
  )
  .openapi('IfInput');

/** The longest a `core.wait` waits: a timer, a deadline, or an event without a timeout of its own. */
export const MAX_WAIT_SECONDS = 365 * 24 * 60 * 60;

/** Event names appear in URLs (`/executions/{id}/events/{name}`). */
export const EventName = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/, 'must be 1 to 64 letters, digits, _, . or -, not starting with . or -');

const WaitSeconds = z.number().int().min(1).max(MAX_WAIT_SECONDS);

export interface WaitInputDefinition {
  seconds?: number;
  until?: string;
  event?: { name: string; schema?: Record<string, unknown> };
  timeoutSeconds?: number;
  onTimeout?: 'fail' | StepDefinition[];
}

/**
 * `core.wait`: the run parks (no worker slot held) for `seconds`, until an
 * instant (`until`, a template yielding ISO 8601 text), or for a named
 * `event` sent through the API or a resume link. An event wait may time out:
 * `onTimeout` then fails the step (`fail`, the default) or runs its steps and
 * goes on after the wait.
 */
export const WaitInput: z.ZodType<WaitInputDefinition> = z
  .lazy(() =>
    z
      .strictObject({
        seconds: WaitSeconds.optional().openapi({ description: 'Wait this many seconds (at most a year)' }),
        until: z.string().min(1).optional().openapi({ description: 'Wait until this instant: ISO 8601 text with a time zone, or a template yielding it' }),
        event: z
          .strictObject({
            name: EventName,
            schema: z.record(z.string(), z.unknown()).optional().openapi({
              description: "JSON Schema of the event's payload, checked before the run hears of it (patterns on RE2: no backreference or lookaround)",
            }),
          })
          .optional()
          .openapi({ description: 'Wait for this event: POST /executions/{id}/events/{name}, or the resume link {{ $resume.<stepId> }}' }),
        timeoutSeconds: WaitSeconds.optional().openapi({ description: 'With event: stop waiting after this long (default: a year)' }),
        onTimeout: z
          .union([z.literal('fail'), z.array(Step)])
          .optional()
          .openapi({ description: 'With timeoutSeconds: "fail" (the default) fails the step; steps run instead, and the run goes on after the wait' }),
      })
      .superRefine((input, ctx) => {
        const kinds = (['seconds', 'until', 'event'] as const).filter((k) => input[k] !== undefined);
        if (kinds.length !== 1) {
          ctx.addIssue({
            code: 'custom',
            path: [],
            message: `needs exactly one of seconds, until or event${kinds.length ? ` (has ${kinds.join(' and ')})` : ''}`,
          });
        }
        if (input.timeoutSeconds !== undefined && input.event === undefined) {
          ctx.addIssue({ code: 'custom', path: ['timeoutSeconds'], message: 'applies to an event wait only; a timer ends by itself' });
        }
        if (input.onTimeout !== undefined && input.timeoutSeconds === undefined) {
          ctx.addIssue({ code: 'custom', path: ['onTimeout'], message: 'needs timeoutSeconds' });
        }
      }),
  )
  .openapi('WaitInput');

/** A loop runs at most this many items; more is a batch job for a data store import, not one run. */
export const MAX_LOOP_ITEMS = 10_000;
export const MAX_LOOP_CONCURRENCY = 50;
/** A body's steps with its branches: each item's records are numbered within LOOP_SUB_SEQ_SPAN (workflows/run.types.ts). */
export const MAX_LOOP_BODY_STEPS = 200;
/** Step types a loop body may hold (branches included): each item's steps are recorded as sub-steps of the loop. */
export const LOOP_BODY_STEP_TYPES = ['core.http', 'core.if', 'core.set', 'ai.llm-call', 'data-store.get', 'data-store.set'] as const;

export interface LoopInputDefinition {
  items: string | unknown[];
  concurrency?: number;
  onItemError?: 'fail' | 'continue';
  steps: StepDefinition[];
}

/**
 * `core.loop`: runs `steps` once per element of `items` (an array, or a
 * template yielding one), at most `concurrency` items at a time. The body
 * reads `item` and `index` beside what ran before the loop. An item's failure
 * fails the loop at once (`onItemError: fail`) or is collected while the
 * others go on (`continue`). Output `{ results, errors, count }`, results in
 * item order.
 */
export const LoopInput: z.ZodType<LoopInputDefinition> = z
  .lazy(() =>
    z.strictObject({
      items: z
        .union([z.string().min(1), z.array(z.unknown()).max(MAX_LOOP_ITEMS)])
        .openapi({ description: `An array, or a template yielding one (such as {{ fetch.body.items }}); at most ${MAX_LOOP_ITEMS} items` }),
      concurrency: z
        .number()
        .int()
        .min(1)
        .max(MAX_LOOP_CONCURRENCY)
        .optional()
        .openapi({ description: `Items in progress at once, 1 to ${MAX_LOOP_CONCURRENCY} (default 1: one after another)` }),
      onItemError: z.enum(['fail', 'continue']).optional().openapi({
        description: "fail (default): an item's failure fails the loop at once; continue: failures are collected in errors and the other items go on",
      }),
      steps: z
        .array(Step)
        .min(1)
        .max(50)
        .openapi({ description: `The body, run for each item: ${LOOP_BODY_STEP_TYPES.join(', ')}; it reads item and index` }),
    }),
  )
  .openapi('LoopInput');

export const STEP_TYPES = [
  'core.http',
  'core.if',
  'core.return',
  'core.set',
  'core.loop',
  'core.wait',
  'core.workflow',
  'ai.llm-call',
  'ai.agent',
  'data-store.get',
  'data-store.set',
] as const;

export const Step: z.ZodType<StepDefinition> = z
  .lazy(() =>
    z.discriminatedUnion(
      'stepType',
      [
        step('core.http', HttpInput),
        step('core.if', IfInput),
        step('core.return', ReturnInput),
        step('core.set', SetInput),
        step('core.loop', LoopInput),
        step('core.wait', WaitInput),
        step('core.workflow', WorkflowStepInput),
        step('ai.llm-call', LlmCallInput),
        step('ai.agent', AgentInput),
        step('data-store.get', DataStoreGetInput),
        step('data-store.set', DataStoreSetInput),
      ],
      { error: (issue) => (issue.code === 'invalid_union' ? `unknown stepType; use one of ${STEP_TYPES.join(', ')}` : undefined) },
    ),
  )
  .openapi('WorkflowStep');

/** The definition JSON of interface.md 2.1, as pasted or imported. */
export const WorkflowDefinition = z
  .strictObject({
    name: WorkflowName,
    description: z.string().max(2000).optional(),
    initial: z.record(z.string(), z.unknown()).default({}).openapi({ description: 'Sample input for test runs' }),
    steps: z.array(Step).min(1).max(200),
    errorWorkflow: WorkflowName.optional().openapi({
      description:
        'Name of another workflow of this organization, run when a run of this one fails or is cancelled; its `initial` reports the run (docs/workflows.md)',
    }),
  })
  .openapi('WorkflowDefinition');
export type WorkflowDefinitionInput = z.output<typeof WorkflowDefinition>;
