import { PRICE_SOURCES, PriceEntrySchema } from '../llm-usage/price-table';
import { z } from '../openapi/zod';

/** An organization keeps at most this many price entries of its own. */
export const MAX_ORGANIZATION_PRICES = 200;

// Rebuilt from the shape with this module's `z`: PriceEntrySchema is made by the plain zod the configuration uses, without `.openapi()`.
const PriceEntry = z.strictObject(PriceEntrySchema.shape).openapi('LlmPriceEntry', {
  description: 'What a model costs per million tokens, in USD, for calls made on or after `since` (a UTC day)',
});

export const SourcedPriceEntrySchema = z
  .object({
    ...PriceEntrySchema.shape,
    source: z.enum(PRICE_SOURCES).openapi({
      description: "Where the entry comes from: the service's built-in table (default), the operator's LLM_PRICES (setting) or this organization's own entries",
    }),
  })
  .openapi('LlmPrice');

export const EffectivePricesSchema = z
  .object({
    data: z.array(SourcedPriceEntrySchema).openapi({
      description: 'Every entry in effect, by provider, model and newest `since` first; the one a call uses is the newest that had begun on its day',
    }),
    maxOrganizationEntries: z.number().int(),
  })
  .openapi('LlmPrices');

/**
 * The organization's own entries, replacing the ones it had. One entry per
 * provider, model and day: a second one for the same day is refused, naming both.
 */
export const ReplacePricesBody = z.strictObject({
  entries: z
    .array(PriceEntry)
    .max(MAX_ORGANIZATION_PRICES)
    .superRefine((entries, ctx) => {
      const seen = new Map<string, number>();
      entries.forEach((e, i) => {
        const key = `${e.provider}\u0000${e.model}\u0000${e.since}`;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, i);
        else
          ctx.addIssue({
            code: 'custom',
            path: [i, 'since'],
            message: `entry ${first} already prices ${e.provider} ${e.model} from ${e.since}: one price per provider, model and day`,
          });
      });
    })
    .openapi({ description: `The organization's own entries (at most ${MAX_ORGANIZATION_PRICES}); an empty list removes them all` }),
});
export type ReplacePricesBody = z.infer<typeof ReplacePricesBody>;
