import { llmTokens } from '../observability/metrics';
import type { PriceTable } from './price-table';
import type { StepUsage } from './usage';

/**
 * Counts one model call's tokens in flowbase_llm_tokens_total. The model
 * label is the model's name only when the price table knows it, else
 * `other`: a step may name any model, and a label must stay bounded.
 */
export function countTokens(prices: PriceTable, usage: StepUsage): void {
  const provider = usage.provider === 'openai' || usage.provider === 'anthropic' ? usage.provider : 'other';
  const model = prices.knows(usage.provider, usage.model) ? usage.model : 'other';
  if (usage.inputTokens) llmTokens.inc({ provider, model, direction: 'input' }, usage.inputTokens);
  if (usage.outputTokens) llmTokens.inc({ provider, model, direction: 'output' }, usage.outputTokens);
}
