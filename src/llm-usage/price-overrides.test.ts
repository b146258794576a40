import { loadConfig } from '../config/config';
import { parsePriceOverrides } from './price-table';

const HOUSE = { provider: 'openai', model: 'house-model', inputPerMillion: 2, outputPerMillion: 8, currency: 'USD', since: '2026-01-01' };

describe('LLM_PRICES', () => {
  test('unset: no overrides; set: its entries', () => {
    expect(loadConfig({}).steps.llmPrices).toEqual([]);
    expect(loadConfig({ LLM_PRICES: JSON.stringify([HOUSE]) }).steps.llmPrices).toEqual([HOUSE]);
  });

  test('a bad value stops startup, naming the variable and what is wrong', () => {
    expect(() => loadConfig({ LLM_PRICES: 'cheap' })).toThrow(/LLM_PRICES.*JSON array of price entries/s);
    expect(() => loadConfig({ LLM_PRICES: JSON.stringify([{ ...HOUSE, currency: 'EUR' }]) })).toThrow(/LLM_PRICES.*0\.currency/s);
  });

  test('the parser names the first bad entry and field', () => {
    expect(() => parsePriceOverrides(JSON.stringify([HOUSE, { ...HOUSE, since: '2026-13-01' }]))).toThrow(/price entry 1\.since/);
    expect(() => parsePriceOverrides(JSON.stringify({ ...HOUSE }))).toThrow(/price entry \(root\)/);
  });
});
