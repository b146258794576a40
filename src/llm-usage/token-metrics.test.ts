import { llmTokens } from '../observability/metrics';
import { DEFAULT_PRICES, PriceTable } from './price-table';
import { countTokens } from './token-metrics';

const counted = async (model: string, direction: string) =>
  (await llmTokens.get()).values.find((v) => v.labels.model === model && v.labels.direction === direction)?.value ?? 0;

test('a dated snapshot the table does not list is counted under the model the step asked for; an unknown one as other', async () => {
  llmTokens.reset();
  const prices = new PriceTable(DEFAULT_PRICES);
  const usage = { provider: 'openai', model: 'gpt-4o-mini-2024-07-18', inputTokens: 10, outputTokens: 3, cost: null };
  countTokens(prices, usage, 'gpt-4o-mini');
  countTokens(prices, { ...usage, model: 'my-finetune-7' }, 'my-finetune-7');
  expect(await counted('gpt-4o-mini', 'input')).toBe(10);
  expect(await counted('gpt-4o-mini', 'output')).toBe(3);
  expect(await counted('other', 'input')).toBe(10);
  expect(await counted('gpt-4o-mini-2024-07-18', 'input')).toBe(0);
});
