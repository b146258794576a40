import { z } from 'zod';

/**
 * What one provider charges for one model, per million tokens, from a date on.
 * A later entry for the same provider and model replaces an earlier one for
 * calls made on or after its `since` (prices change; old runs keep theirs).
 */
export interface PriceEntry {
  provider: 'openai' | 'anthropic';
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
  currency: 'USD';
  /** The day (UTC, YYYY-MM-DD) this price applies from. */
  since: string;
}

export const PriceEntrySchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic']),
  model: z
    .string()
    .min(1)
    .max(200)
    .regex(/^\S(.*\S)?$/, 'must not start or end with a space: a call names the model exactly'),
  inputPerMillion: z.number().min(0).max(100_000),
  outputPerMillion: z.number().min(0).max(100_000),
  currency: z.literal('USD'),
  // From 2000 on: PostgreSQL's date type refuses year 0, and no model had a price before.
  since: z.iso.date().refine((day) => day >= '2000-01-01', 'must be 2000-01-01 or later'),
});

/** LLM_PRICES: a JSON array of entries, at most 1000. */
export const PriceListSchema = z.array(PriceEntrySchema).max(1000);

/**
 * The list prices of the models the providers offer through the AI SDK, as
 * their public pricing pages showed them on the `since` day (standard tier,
 * no batch or cached-input discounts). Operators correct or extend them with
 * LLM_PRICES; a model in neither has its tokens recorded and no cost.
 */
export const DEFAULT_PRICES: readonly PriceEntry[] = [
  ...openai('2025-11-01', {
    'gpt-5': [1.25, 10],
    'gpt-5-mini': [0.25, 2],
    'gpt-5-nano': [0.05, 0.4],
    'gpt-4.1': [2, 8],
    'gpt-4.1-mini': [0.4, 1.6],
    'gpt-4.1-nano': [0.1, 0.4],
    'gpt-4o': [2.5, 10],
    'gpt-4o-mini': [0.15, 0.6],
    o1: [15, 60],
    o3: [2, 8],
    'o3-mini': [1.1, 4.4],
    'o4-mini': [1.1, 4.4],
  }),
  ...anthropic('2025-11-01', {
    'claude-opus-4-1': [15, 75],
    'claude-opus-4-0': [15, 75],
    'claude-sonnet-4-5': [3, 15],
    'claude-sonnet-4-0': [3, 15],
    'claude-3-7-sonnet-latest': [3, 15],
    'claude-haiku-4-5': [1, 5],
    'claude-3-5-haiku-latest': [0.8, 4],
    'claude-3-haiku-20240307': [0.25, 1.25],
  }),
];

function openai(since: string, prices: Record<string, [number, number]>): PriceEntry[] {
  return entries('openai', since, prices);
}

function anthropic(since: string, prices: Record<string, [number, number]>): PriceEntry[] {
  return entries('anthropic', since, prices);
}

function entries(provider: PriceEntry['provider'], since: string, prices: Record<string, [number, number]>): PriceEntry[] {
  return Object.entries(prices).map(([model, [inputPerMillion, outputPerMillion]]) => ({
    provider,
    model,
    inputPerMillion,
    outputPerMillion,
    currency: 'USD',
    since,
  }));
}

/** Where an entry of the effective table comes from, lowest layer first. */
export const PRICE_SOURCES = ['default', 'setting', 'organization'] as const;
export type PriceSource = (typeof PRICE_SOURCES)[number];

/** An entry of the effective table, with the layer it comes from. */
export interface SourcedPriceEntry extends PriceEntry {
  source: PriceSource;
}

/**
 * The entries in effect: the defaults, LLM_PRICES (`setting`) and an
 * organization's own entries. A layer that names a provider and model replaces
 * every lower layer's entries for that model, so each layer's list is the
 * whole story for the models it names (a price an operator or an organization
 * sets from a day on leaves no older default in force before that day).
 * Sorted by provider, model, then newest `since` first.
 */
export function effectivePrices(layers: Partial<Record<PriceSource, readonly PriceEntry[]>>): SourcedPriceEntry[] {
  let effective: SourcedPriceEntry[] = [];
  for (const source of PRICE_SOURCES) {
    const layer = layers[source] ?? [];
    const named = new Set(layer.map(key));
    effective = [...effective.filter((e) => !named.has(key(e))), ...layer.map((e) => ({ ...e, source }))];
  }
  return effective.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model) || b.since.localeCompare(a.since));
}

/** Prices looked up by provider, model and day. */
export class PriceTable {
  private readonly byModel = new Map<string, SourcedPriceEntry[]>();
  private readonly all: SourcedPriceEntry[];

  /**
   * `overrides` (LLM_PRICES) replace every default entry of the provider and
   * model they name, and `organization` (an organization's own entries) every
   * entry of both lower layers for its models (effectivePrices).
   */
  constructor(defaults: readonly PriceEntry[] = DEFAULT_PRICES, overrides: readonly PriceEntry[] = [], organization: readonly PriceEntry[] = []) {
    // Newest first within a model: a lookup takes the first entry that had begun.
    this.all = effectivePrices({ default: defaults, setting: overrides, organization });
    for (const entry of this.all) {
      const list = this.byModel.get(key(entry)) ?? [];
      list.push(entry);
      this.byModel.set(key(entry), list);
    }
  }

  /** Every entry in effect, with its source (sorted as effectivePrices sorts). */
  entries(): SourcedPriceEntry[] {
    return this.all.map((e) => ({ ...e }));
  }

  /** Whether the table prices this model at all (a metric labels only such names, never one an organization made up). */
  knows(provider: string, model: string): boolean {
    return this.byModel.has(`${provider}\u0000${model}`);
  }

  /** The price of `model` for a call made at `at`; undefined when none is known (never a neighbour's guess). */
  find(provider: string, model: string, at: Date): PriceEntry | undefined {
    const day = at.toISOString().slice(0, 10);
    return this.byModel.get(`${provider}\u0000${model}`)?.find((e) => e.since <= day);
  }
}

const key = (e: Pick<PriceEntry, 'provider' | 'model'>) => `${e.provider}\u0000${e.model}`;

/** LLM_PRICES as written: a JSON array of entries; an error names what is wrong, never guesses. */
export function parsePriceOverrides(text: string): PriceEntry[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(
      'expected a JSON array of price entries such as [{"provider":"openai","model":"gpt-4o-mini","inputPerMillion":0.15,"outputPerMillion":0.6,"currency":"USD","since":"2026-01-01"}]',
    );
  }
  const parsed = PriceListSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`price entry ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}
