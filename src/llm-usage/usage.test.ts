import { DEFAULT_PRICES, PriceListSchema, PriceTable, type PriceEntry } from './price-table';
import { callCost, sumCalls, sumCosts, sumKnown, usageOfCall } from './usage';

const entry = (model: string, since: string, inputPerMillion: number, outputPerMillion: number): PriceEntry => ({
  provider: 'openai',
  model,
  inputPerMillion,
  outputPerMillion,
  currency: 'USD',
  since,
});

describe('the price table', () => {
  test('every default entry is valid, dated, in USD, and unique per provider, model and day', () => {
    expect(PriceListSchema.parse(DEFAULT_PRICES)).toHaveLength(DEFAULT_PRICES.length);
    const keys = DEFAULT_PRICES.map((e) => `${e.provider}/${e.model}/${e.since}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('prices the models the tests and docs use', () => {
    const table = new PriceTable();
    const at = new Date('2026-12-01T00:00:00Z');
    expect(table.find('openai', 'gpt-4o-mini', at)).toMatchObject({ inputPerMillion: 0.15, outputPerMillion: 0.6 });
    expect(table.find('anthropic', 'claude-3-5-haiku-latest', at)).toMatchObject({ inputPerMillion: 0.8, outputPerMillion: 4 });
    expect(table.find('anthropic', 'claude-sonnet-4-5', at)).toMatchObject({ inputPerMillion: 3, outputPerMillion: 15 });
  });

  test('an unknown model, another provider’s model, or a call before any price began has none', () => {
    const table = new PriceTable();
    expect(table.find('openai', 'gpt-4o-mini-2099', new Date())).toBeUndefined();
    expect(table.find('anthropic', 'gpt-4o-mini', new Date())).toBeUndefined();
    expect(table.find('openai', 'gpt-4o-mini', new Date('2020-01-01T00:00:00Z'))).toBeUndefined();
  });

  test('the entry in effect on the day of the call applies', () => {
    const table = new PriceTable([entry('m', '2026-01-01', 1, 2), entry('m', '2026-06-01', 3, 4)]);
    expect(table.find('openai', 'm', new Date('2026-05-31T23:59:59Z'))).toMatchObject({ inputPerMillion: 1 });
    expect(table.find('openai', 'm', new Date('2026-06-01T00:00:00Z'))).toMatchObject({ inputPerMillion: 3 });
  });

  test('overrides replace every default entry of their model and add new models', () => {
    const table = new PriceTable(
      [entry('m', '2026-01-01', 1, 2), entry('other', '2026-01-01', 5, 5)],
      [entry('m', '2026-03-01', 9, 9), entry('new', '2026-01-01', 7, 7)],
    );
    // Before the override's day the old default no longer applies: the operator's list is the whole story for `m`.
    expect(table.find('openai', 'm', new Date('2026-02-01T00:00:00Z'))).toBeUndefined();
    expect(table.find('openai', 'm', new Date('2026-04-01T00:00:00Z'))).toMatchObject({ inputPerMillion: 9 });
    expect(table.find('openai', 'other', new Date('2026-04-01T00:00:00Z'))).toMatchObject({ inputPerMillion: 5 });
    expect(table.find('openai', 'new', new Date('2026-04-01T00:00:00Z'))).toMatchObject({ inputPerMillion: 7 });
  });

  test('LLM_PRICES entries are checked: provider, currency, date and non-negative prices', () => {
    expect(PriceListSchema.safeParse([entry('m', '2026-01-01', 1, 2)]).success).toBe(true);
    expect(PriceListSchema.safeParse([{ ...entry('m', '2026-01-01', 1, 2), currency: 'EUR' }]).success).toBe(false);
    expect(PriceListSchema.safeParse([{ ...entry('m', '2026-01-01', 1, 2), provider: 'mistral' }]).success).toBe(false);
    expect(PriceListSchema.safeParse([entry('m', 'yesterday', 1, 2)]).success).toBe(false);
    expect(PriceListSchema.safeParse([entry('m', '2026-01-01', -1, 2)]).success).toBe(false);
  });
});

describe('cost arithmetic', () => {
  test('tokens × price per million, in USD to 6 decimals', () => {
    expect(callCost({ inputPerMillion: 0.15, outputPerMillion: 0.6 }, 1_000_000, 1_000_000)).toBe(0.75);
    expect(callCost({ inputPerMillion: 0.15, outputPerMillion: 0.6 }, 120, 30)).toBe(0.000036);
    expect(callCost({ inputPerMillion: 3, outputPerMillion: 15 }, 1234, 567)).toBe(0.012207);
  });

  test('rounds once to the micro-dollar, half up', () => {
    // 3 × 0.15 = 0.45 µ$ → 0; 10 × 0.15 = 1.5 µ$ → 2; 7 × 0.25 = 1.75 µ$ → 2.
    expect(callCost({ inputPerMillion: 0.15, outputPerMillion: 0 }, 3, 0)).toBe(0);
    expect(callCost({ inputPerMillion: 0.15, outputPerMillion: 0 }, 10, 0)).toBe(0.000002);
    expect(callCost({ inputPerMillion: 0.25, outputPerMillion: 0 }, 7, 0)).toBe(0.000002);
  });

  test('no price, or a token count the provider did not report, is no cost (never a guess)', () => {
    expect(callCost(undefined, 10, 10)).toBeNull();
    expect(callCost({ inputPerMillion: 1, outputPerMillion: 1 }, null, 10)).toBeNull();
  });

  test('sums add whole micro-dollars, with no binary-fraction drift', () => {
    expect(sumCosts([0.1, 0.2])).toBe(0.3);
    expect(sumCosts(Array(10).fill(0.000001))).toBe(0.00001);
    expect(sumCosts([null, 0.000036])).toBe(0.000036);
    expect(sumCosts([null, null])).toBeNull();
    expect(sumKnown([1, null, 2])).toBe(3);
    expect(sumKnown([])).toBeNull();
  });

  test('a call is priced by the model that answered, else by the model asked for', () => {
    const prices = new PriceTable();
    const at = new Date('2026-12-01T00:00:00Z');
    const asked = usageOfCall(prices, {
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      requestedModel: 'gpt-4o-mini',
      inputTokens: 1000,
      outputTokens: 100,
      at,
    });
    expect(asked).toEqual({ provider: 'openai', model: 'gpt-4o-mini-2024-07-18', inputTokens: 1000, outputTokens: 100, cost: 0.00021 });
    const unknown = usageOfCall(prices, { provider: 'openai', model: 'my-finetune', inputTokens: 5, outputTokens: undefined, at });
    expect(unknown).toEqual({ provider: 'openai', model: 'my-finetune', inputTokens: 5, outputTokens: null, cost: null });
  });

  test("an agent's usage sums its calls", () => {
    const call = (inputTokens: number, outputTokens: number, cost: number | null) => ({
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens,
      outputTokens,
      cost,
    });
    expect(sumCalls('openai', 'gpt-4o-mini', [call(100, 10, 0.000021), call(200, 20, 0.000042)])).toEqual({
      provider: 'openai',
      model: 'gpt-4o-mini',
      inputTokens: 300,
      outputTokens: 30,
      cost: 0.000063,
      calls: 2,
    });
  });
});
