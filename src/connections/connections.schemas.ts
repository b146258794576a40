import { z } from '../openapi/zod';

/** A valid identifier, so templates can say `$connections.<name>`. */
export const ConnectionName = z
  .string()
  .max(100)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier: a letter or _, then letters, digits or _');

const JsonObject = z.record(z.string(), z.unknown());

export const CreateConnectionBody = z
  .strictObject({
    name: ConnectionName,
    type: z.string().min(1).max(100),
    config: z.unknown().openapi({ description: "Validated against the type's JSON Schema, then encrypted" }),
    metadata: JsonObject.optional(),
    settings: JsonObject.optional(),
  })
  .refine((b) => b.config !== undefined, { path: ['config'], message: 'is required' })
  .openapi('CreateConnection');
export type CreateConnectionInput = z.output<typeof CreateConnectionBody>;

export const UpdateConnectionBody = z
  .strictObject({
    name: ConnectionName.optional(),
    config: z
      .unknown()
      .optional()
      .openapi({ description: 'Replaces the whole config when given (unless keepSecrets: then its write-only fields left out are kept)' }),
    keepSecrets: z.boolean().optional().openapi({
      description:
        "With config: each write-only field (a secret, per the type's schema) left out of config keeps its current value, and one given as null is removed, so an edit never needs the secrets it does not change. Other fields are replaced as without it. A config that switches variant keeps no secret. The result is validated against the type's schema. Without it (or false), config replaces the whole config.",
    }),
    metadata: JsonObject.optional(),
    settings: JsonObject.optional(),
  })
  .refine((b) => !b.keepSecrets || b.config !== undefined, { path: ['keepSecrets'], message: 'applies to a config: send config with it' })
  .openapi('UpdateConnection');
export type UpdateConnectionInput = z.output<typeof UpdateConnectionBody>;

export const ConnectionSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    userId: z.uuid(),
    name: z.string(),
    type: z.string(),
    variant: z.string().optional().openapi({ description: 'Only for multi-variant types' }),
    config: z.string().openapi({ description: 'Encrypted envelope; never the credentials' }),
    metadata: JsonObject,
    settings: JsonObject,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Connection');

export const RedactedConfigSchema = z
  .object({
    type: z.string(),
    variant: z.string().nullable().openapi({ description: 'Only for multi-variant types; null otherwise' }),
    values: JsonObject.openapi({ description: "The config's fields that are not write-only, as stored (defaults filled in)" }),
    secretsSet: z.array(z.string()).openapi({ description: 'Names of the write-only fields that hold a value; their values are never answered here' }),
  })
  .openapi('RedactedConnectionConfig');

export const ConnectionIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
export const TypeParams = z.object({ type: z.string() });
