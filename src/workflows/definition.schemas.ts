import { z } from '../openapi/zod';

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
  .refine((id) => !RESERVED_STEP_IDS.has(id), 'is reserved (a template root)')
  .refine((id) => !OBJECT_INTERNALS.has(id), 'is reserved (a JavaScript object internal such as __proto__, constructor or prototype)');
export const RESERVED_STEP_IDS = new Set(['initial', 'env', 'connections', '__env', '__connections']);
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
  body: z.unknown().optional().openapi({ description: 'JSON (templates inside strings are resolved), or text with bodyType text' }),
  bodyType: z.enum(['json', 'text']).optional(),
  connection: z.string().min(1).optional().openapi({ description: 'Connection name, or a template such as {{ $env.CRM }} naming one' }),
  retry: z.strictObject({ limit: z.number().int().min(0).max(10) }).optional(),
  timeoutMs: z.number().int().min(100).max(300_000).optional(),
});

export const ReturnInput = z.strictObject({
  webhookResponse: z.strictObject({
    statusCode: z.number().int().min(100).max(599),
    body: z.unknown().optional().openapi({ description: 'Object or template string; templates inside are resolved' }),
    headers: StringMap.optional(),
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

export const STEP_TYPES = ['core.http', 'core.if', 'core.return', 'ai.llm-call', 'data-store.get', 'data-store.set'] as const;

export const Step: z.ZodType<StepDefinition> = z
  .lazy(() =>
    z.discriminatedUnion(
      'stepType',
      [
        step('core.http', HttpInput),
        step('core.if', IfInput),
        step('core.return', ReturnInput),
        step('ai.llm-call', LlmCallInput),
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
  })
  .openapi('WorkflowDefinition');
export type WorkflowDefinitionInput = z.output<typeof WorkflowDefinition>;
