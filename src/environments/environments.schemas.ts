import { z } from '../openapi/zod';

export const MAX_VARIABLES_PER_ENVIRONMENT = 500;

/** interface.md 2.2 and 8. */
export const EnvironmentName = z
  .string()
  .max(100)
  .regex(/^[a-zA-Z_][a-zA-Z0-9_-]*$/, 'must match ^[a-zA-Z_][a-zA-Z0-9_-]*$');
/** At most 255 characters (interface.md 8); an identifier so templates can read `$env.<KEY>`. */
export const VariableKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier: a letter or _, then letters, digits or _');
/** At most 10,000 characters (interface.md 8). */
export const VariableValue = z.string().max(10_000);

/** `secret` left out: a new variable is secret, an existing one keeps its flag. */
export const SecretFlag = z.boolean().optional().openapi({
  description: 'Masked in execution records, logs and Temporal history (default true for a new variable; left out, an existing one keeps its flag)',
});

/** A variable is its value, or `{value, secret}` to say whether it is a secret. */
const VariableInput = z
  .union([VariableValue, z.strictObject({ value: VariableValue, secret: SecretFlag })])
  .transform((v) => (typeof v === 'string' ? { value: v } : v));
export type VariableInput = z.output<typeof VariableInput>;

export const VariablesMap = z
  .record(VariableKey, VariableInput)
  .refine((v) => Object.keys(v).length <= MAX_VARIABLES_PER_ENVIRONMENT, `at most ${MAX_VARIABLES_PER_ENVIRONMENT} variables`)
  .openapi({ description: 'KEY to its value, or to {value, secret}' });

export const CreateEnvironmentBody = z
  .strictObject({
    name: EnvironmentName,
    description: z.string().max(1000).optional(),
    variables: VariablesMap.optional().openapi({ description: 'KEY to value; values are encrypted at rest' }),
  })
  .openapi('CreateEnvironment');
export type CreateEnvironmentInput = z.output<typeof CreateEnvironmentBody>;

export const UpdateEnvironmentBody = z
  .strictObject({ name: EnvironmentName.optional(), description: z.string().max(1000).nullable().optional() })
  .openapi('UpdateEnvironment');
export type UpdateEnvironmentInput = z.output<typeof UpdateEnvironmentBody>;

export const ReplaceVariablesBody = z.strictObject({ variables: VariablesMap });
export const SetVariableBody = z.strictObject({ value: VariableValue, secret: SecretFlag });

export const EnvironmentSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    variables: z
      .array(z.object({ key: z.string(), secret: z.boolean(), updatedAt: z.string() }))
      .openapi({ description: 'Keys and whether each is a secret; values need secrets:view' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Environment');

export const EnvironmentValuesSchema = z
  .object({ environmentId: z.uuid(), name: z.string(), variables: z.record(z.string(), z.string()) })
  .openapi('EnvironmentValues');

export const EnvironmentIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

export const EnvironmentValuesQuery = z.strictObject({
  secrets: z
    .enum(['include', 'omit'])
    .default('include')
    .openapi({ description: '`omit`: answer only the values that are not secrets (the console shows those and masks the rest)' }),
});
export const VariableParams = z.object({ id: z.uuid({ message: 'must be a UUID' }), key: VariableKey });
