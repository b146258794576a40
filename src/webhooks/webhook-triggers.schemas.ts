import { PageQuery } from '../http/pagination';
import { z } from '../openapi/zod';
import { DeduplicationSchema } from './delivery-ids';
import { VerificationConfig } from './signatures/scheme-config';
import { TRACE_CONTEXT_MODES } from './webhook-trigger.entity';

export const TRIGGER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The URL slug of `/w/@<organization suid>/<name>`. */
export const TriggerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'must be 1 to 100 characters: letters, digits, _ or -, not starting with _ or -');

/** A vendor's signing secret as the vendor shows it (Stripe's `whsec_…`, GitHub's, Twilio's auth token); write-only. */
export const SigningSecret = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(1000, 'must be at most 1000 characters')
  .openapi({ writeOnly: true, description: 'The signing secret; stored encrypted, never shown again' });

const verificationField = VerificationConfig.openapi({
  description:
    'The signature every delivery must carry: stripe, github, slack, shopify, twilio, or a generic hmac; checked over the exact bytes received, before anything else reads them',
});
const signingSecretField = SigningSecret.optional().openapi({
  description: "With verification: the vendor's signing secret (required for vendor schemes; for hmac, one is generated and shown once when absent)",
});
const traceContextField = z.enum(TRACE_CONTEXT_MODES).openapi({
  description:
    "With tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): honour continues a caller's W3C traceparent, so the call's spans join the caller's trace; ignore starts a trace of the service's own. Default honour",
});
const deduplicationField = DeduplicationSchema.optional().openapi({
  description: "Exactly-once starts by delivery id (on by default, by the Idempotency-Key header or the scheme's preset)",
});

export const CreateTriggerBody = z
  .strictObject({
    type: z.literal('webhook').optional().openapi({ description: 'Absent or "webhook"; "schedule" creates a schedule trigger (CreateScheduleTrigger)' }),
    name: TriggerName,
    method: z.enum(TRIGGER_METHODS).default('POST'),
    authentication: z.boolean().default(false).openapi({ description: 'On: a secret is generated and shown once in the response' }),
    verification: verificationField.optional(),
    signingSecret: signingSecretField,
    deduplication: deduplicationField,
    traceContext: traceContextField.default('honour'),
  })
  .openapi('CreateWebhookTrigger');
export type CreateTriggerInput = z.output<typeof CreateTriggerBody>;

export const UpdateTriggerBody = z
  .strictObject({
    name: TriggerName.optional(),
    method: z.enum(TRIGGER_METHODS).optional(),
    authentication: z.boolean().optional(),
    verification: verificationField
      .nullable()
      .optional()
      .openapi({ description: 'A new scheme or settings (its secret is kept unless signingSecret is given); null removes verification and its secrets' }),
    signingSecret: signingSecretField,
    deduplication: deduplicationField,
    traceContext: traceContextField.optional(),
  })
  .openapi('UpdateWebhookTrigger');

export const RotateSigningSecretBody = z
  .strictObject({
    signingSecret: SigningSecret.optional().openapi({ description: "The new secret (the vendor's, after rolling it there); for hmac, absent generates one" }),
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(86_400)
      .openapi({ description: 'How long the secret it replaces keeps verifying (default one day; 0 stops it at once)' }),
  })
  .openapi('RotateSigningSecret');
export type RotateSigningSecretInput = z.output<typeof RotateSigningSecretBody>;
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
    verification: VerificationConfig.nullable().openapi({ description: 'The signature scheme and its settings; never the secret' }),
    signingSecretSetAt: z.string().nullable(),
    signingOverlapUntil: z
      .string()
      .nullable()
      .openapi({ description: 'Until when the rotated-out signing secret still verifies; null when only the current one does' }),
    signingSecret: z.string().optional().openapi({ description: 'Only in the answer that generated it (hmac without a given secret); never shown again' }),
    deduplication: z
      .object({
        enabled: z.boolean(),
        deliveryId: z
          .union([z.object({ header: z.string() }), z.object({ bodyField: z.string() })])
          .nullable()
          .openapi({ description: "Where a delivery's id is read, as in effect (a preset resolved); null when deduplication is off" }),
        preset: z.string().nullable().openapi({ description: 'The vendor preset it follows, if any' }),
        windowSeconds: z.number().int(),
      })
      .openapi({ description: 'Exactly-once starts: a delivery id seen within the window starts no run' }),
    traceContext: z.enum(TRACE_CONTEXT_MODES),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('WebhookTrigger');
