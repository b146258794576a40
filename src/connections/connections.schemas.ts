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
    config: z.unknown().optional().openapi({ description: 'Replaces the whole config when given' }),
    metadata: JsonObject.optional(),
    settings: JsonObject.optional(),
  })
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

export const ConnectionIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
export const TypeParams = z.object({ type: z.string() });
