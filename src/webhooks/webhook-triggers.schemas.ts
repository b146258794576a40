import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';

export const TRIGGER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The URL slug of `/w/@<organization suid>/<name>`. */
export const TriggerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'must be 1 to 100 characters: letters, digits, _ or -, not starting with _ or -');

export const CreateTriggerBody = z
  .strictObject({
    type: z.literal('webhook').optional().openapi({ description: 'Absent or "webhook"; "schedule" creates a schedule trigger (CreateScheduleTrigger)' }),
    name: TriggerName,
    method: z.enum(TRIGGER_METHODS).default('POST'),
    authentication: z.boolean().default(false).openapi({ description: 'On: a secret is generated and shown once in the response' }),
  })
  .openapi('CreateWebhookTrigger');
export type CreateTriggerInput = z.output<typeof CreateTriggerBody>;

export const UpdateTriggerBody = z
  .strictObject({ name: TriggerName.optional(), method: z.enum(TRIGGER_METHODS).optional(), authentication: z.boolean().optional() })
  .openapi('UpdateWebhookTrigger');
export type UpdateTriggerInput = z.output<typeof UpdateTriggerBody>;

export const TriggerIdParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
export const TriggersQuery = PageQuery.extend({ workflowId: z.uuid().optional() });

export const TriggerSchema = z
  .object({
    id: z.uuid(),
    suid: z.string(),
    organizationId: z.uuid(),
    workflowId: z.uuid(),
    name: z.string(),
    method: z.enum(TRIGGER_METHODS),
    authentication: z.boolean(),
    url: z.string().openapi({ description: 'Where callers send the webhook' }),
    secretSetAt: z.string().nullable(),
    secret: z.string().optional().openapi({ description: 'Only in the answer that generated it; never shown again' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('WebhookTrigger');
