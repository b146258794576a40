import { v5 as uuidv5 } from 'uuid';
import { ValidationError } from '../errors/errors';
import { z } from '../openapi/zod';
import { HeaderName } from './signatures/scheme-config';

/** Where each vendor puts the id of a delivery, the same on every retry of it. */
export const DELIVERY_ID_PRESETS = {
  stripe: { bodyField: 'id' },
  github: { header: 'X-GitHub-Delivery' },
  shopify: { header: 'X-Shopify-Webhook-Id' },
  slack: { bodyField: 'event_id' },
  twilio: { header: 'I-Twilio-Idempotency-Token' },
} as const satisfies Record<string, DeliveryIdSource>;
export type DeliveryIdPreset = keyof typeof DELIVERY_ID_PRESETS;
const PRESET_NAMES = Object.keys(DELIVERY_ID_PRESETS) as [DeliveryIdPreset, ...DeliveryIdPreset[]];

/** What every trigger deduplicates by when nothing else is named: the convention of Stripe's API and many others. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * Four days: the longest vendor retry schedule is Stripe's, up to three days
 * after the first attempt; Shopify retries for four hours, Slack for minutes,
 * GitHub only when someone redelivers (from its list of the last three days).
 */
export const DEFAULT_DEDUP_WINDOW_SECONDS = 4 * 86_400;
const MAX_DEDUP_WINDOW_SECONDS = 30 * 86_400;

/** Longer ids are refused rather than cut: two ids sharing a prefix must not become one. */
const MAX_DELIVERY_ID_LENGTH = 200;

const BodyField = z
  .string()
  .regex(/^[A-Za-z0-9_$-]{1,100}(\.[A-Za-z0-9_$-]{1,100}){0,4}$/, 'must be a field of the JSON body, dotted for nested ones (event.id), at most 5 levels');

export const DeliveryIdSourceSchema = z
  .union([z.strictObject({ header: HeaderName }), z.strictObject({ bodyField: BodyField }), z.strictObject({ preset: z.enum(PRESET_NAMES) })])
  .openapi('DeliveryIdSource', { description: 'A request header, a field of the JSON body, or a vendor preset' });
export type DeliveryIdSource = { header: string } | { bodyField: string };

export const DeduplicationSchema = z
  .strictObject({
    enabled: z.boolean().default(true).openapi({ description: 'false: every delivery starts a run' }),
    deliveryId: DeliveryIdSourceSchema.optional().openapi({
      description: "Where a delivery's id is; by default the verification scheme's preset, else the Idempotency-Key header",
    }),
    windowSeconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_DEDUP_WINDOW_SECONDS)
      .default(DEFAULT_DEDUP_WINDOW_SECONDS)
      .openapi({ description: 'How long a delivery id counts, from its first delivery (default 4 days)' }),
  })
  .openapi('Deduplication');
export type Deduplication = z.output<typeof DeduplicationSchema>;

/** The source a trigger deduplicates by: the one it names, its scheme's preset, or the Idempotency-Key header; none when turned off. */
export function effectiveDeliveryIdSource(deduplication: Partial<Deduplication>, scheme: string | undefined): DeliveryIdSource | undefined {
  if (deduplication.enabled === false) return undefined;
  const named = deduplication.deliveryId;
  if (named && 'preset' in named) return DELIVERY_ID_PRESETS[named.preset];
  if (named) return named;
  if (scheme && scheme in DELIVERY_ID_PRESETS) return DELIVERY_ID_PRESETS[scheme as DeliveryIdPreset];
  return { header: IDEMPOTENCY_KEY_HEADER };
}

/**
 * The delivery's id from where the trigger says, or undefined when the
 * delivery has none (that delivery starts a run as any other). An id that is
 * there but unusable (empty, too long, not text or a number) is refused: a
 * sender that means to deduplicate would otherwise silently not be.
 */
export function deliveryIdOf(source: DeliveryIdSource, header: (name: string) => string | undefined, body: Record<string, unknown>): string | undefined {
  const where = 'header' in source ? `the ${source.header} header` : `the body's ${source.bodyField}`;
  const value = 'header' in source ? header(source.header) : fieldOf(body, source.bodyField);
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_DELIVERY_ID_LENGTH) {
    throw new ValidationError(
      `The delivery id in ${where} must be text of 1 to ${MAX_DELIVERY_ID_LENGTH} characters`,
      [{ path: 'header' in source ? `headers.${source.header}` : `body.${source.bodyField}`, message: `1 to ${MAX_DELIVERY_ID_LENGTH} characters` }],
      'invalid_delivery_id',
    );
  }
  return text;
}

function fieldOf(body: Record<string, unknown>, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * How many runs one delivery id may start, each after the last one's window
 * passed (a sender reusing an Idempotency-Key daily, say); generations free
 * up as executions are pruned.
 */
export const DELIVERY_GENERATIONS = 64;

/**
 * The execution id (and Temporal workflow id) of a delivery: the same for
 * every retry of it, so Temporal itself refuses to start it twice. The
 * generation counts how often the id came back after its window passed.
 */
export function deliveryExecutionId(triggerId: string, deliveryId: string, generation: number): string {
  return uuidv5(`${generation}:${deliveryId}`, triggerId);
}
