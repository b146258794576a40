import type { PriceTable } from './price-table';

/**
 * What one model call, or a step's calls together, used: tokens as the
 * provider reported them (null when it did not) and their cost in USD from
 * the price table (null when the model has no price or a count is missing).
 */
export interface StepUsage {
  provider: string;
  model: string;
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  /** An agent step: how many model calls the sums cover (each call's record has its own usage). */
  calls?: number;
}

/** A run's usage: its steps' sums; `unpricedSteps` counts steps with tokens but no cost, left out of `cost`. */
export interface RunUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cost: number | null;
  unpricedSteps: number;
}

/**
 * The cost of one call in USD, to 6 decimals (the micro-dollar); null without a price or with a token count missing.
 * A price per million tokens is micro-dollars per token, so the cost is `round(inputTokens × inputPerMillion +
 * outputTokens × outputPerMillion)` micro-dollars, rounded once, half up (Math.round); sums add whole micro-dollars.
 */
export function callCost(
  price: { inputPerMillion: number; outputPerMillion: number } | undefined,
  inputTokens: number | null,
  outputTokens: number | null,
): number | null {
  if (!price || inputTokens === null || outputTokens === null) return null;
  return Math.round(inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000;
}

/** One call's usage, priced as of when it was made. */
export function usageOfCall(
  prices: PriceTable,
  call: { provider: string; model: string; requestedModel?: string; inputTokens?: number; outputTokens?: number; at: Date },
): StepUsage {
  const inputTokens = count(call.inputTokens);
  const outputTokens = count(call.outputTokens);
  // The provider may answer with the dated snapshot an alias resolved to; the asked-for name is priced when the snapshot is not.
  const price = prices.find(call.provider, call.model, call.at) ?? (call.requestedModel ? prices.find(call.provider, call.requestedModel, call.at) : undefined);
  return { provider: call.provider, model: call.model, inputTokens, outputTokens, cost: callCost(price, inputTokens, outputTokens) };
}

/** An agent step's usage: its calls' sums (each part that is known), under the step's provider and model. */
export function sumCalls(provider: string, model: string, calls: StepUsage[]): StepUsage {
  return {
    provider,
    model,
    inputTokens: sumKnown(calls.map((c) => c.inputTokens)),
    outputTokens: sumKnown(calls.map((c) => c.outputTokens)),
    cost: sumCosts(calls.map((c) => c.cost)),
    calls: calls.length,
  };
}

/** The sum of the known values; null when none is known. */
export function sumKnown(values: Array<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length ? known.reduce((a, b) => a + b, 0) : null;
}

/** Costs summed in micro-dollars (integers), so the sum carries no binary-fraction drift. */
export function sumCosts(costs: Array<number | null>): number | null {
  const known = costs.filter((v): v is number => v !== null);
  return known.length ? known.reduce((a, b) => a + Math.round(b * 1_000_000), 0) / 1_000_000 : null;
}

const count = (n: number | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null);
