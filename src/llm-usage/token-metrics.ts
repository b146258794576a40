import { llmTokens } from '../observability/metrics';
import type { PriceTable } from './price-table';
import type { StepUsage } from './usage';

/**
 * Counts one model call's tokens in flowbase_llm_tokens_total. The model
 * label is a name the price table knows, else `other`: a step may name any
 * model, and a label must stay bounded. Providers answer with the dated
 * snapshot an alias resolved to (gpt-4o-mini-2024-07-18), which the table
 * may not list, so the model the step asked for is tried next, as pricing does.
 */
export function countTokens(prices: PriceTable, usage: StepUsage, requestedModel: string): void {
  const provider = usage.provider === 'openai' || usage.provider === 'anthropic' ? usage.provider : 'other';
  const model = [usage.model, requestedModel].find((m) => prices.knows(usage.provider, m)) ?? 'other';
  if (usage.inputTokens) llmTokens.inc({ provider, model, direction: 'input' }, usage.inputTokens);
  if (usage.outputTokens) llmTokens.inc({ provider, model, direction: 'output' }, usage.outputTokens);
}
