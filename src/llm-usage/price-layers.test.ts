import { ReplacePricesBody } from '../organizations/llm-prices.schemas';
import { effectivePrices, PriceTable, type PriceEntry } from './price-table';

const entry = (model: string, since: string, inputPerMillion: number, provider: PriceEntry['provider'] = 'openai'): PriceEntry => ({
  provider,
  model,
  inputPerMillion,
  outputPerMillion: inputPerMillion * 4,
  currency: 'USD',
  since,
});

const day = (d: string) => new Date(`${d}T12:00:00Z`);

describe("an organization's own prices", () => {
  const defaults = [entry('m', '2025-01-01', 1), entry('n', '2025-01-01', 2), entry('o', '2025-01-01', 3), entry('m', '2025-01-01', 9, 'anthropic')];
  const setting = [entry('n', '2025-06-01', 20), entry('o', '2025-06-01', 30)];
  const organization = [entry('o', '2026-01-01', 300), entry('o', '2026-03-01', 301), entry('custom', '2026-01-01', 7)];

  test('organization > LLM_PRICES > defaults, per provider and model', () => {
    const table = new PriceTable(defaults, setting, organization);
    const at = day('2026-06-01');
    expect(table.find('openai', 'm', at)).toMatchObject({ inputPerMillion: 1, source: 'default' });
    expect(table.find('openai', 'n', at)).toMatchObject({ inputPerMillion: 20, source: 'setting' });
    expect(table.find('openai', 'o', at)).toMatchObject({ inputPerMillion: 301, source: 'organization' });
    expect(table.find('openai', 'custom', at)).toMatchObject({ inputPerMillion: 7, source: 'organization' });
    // Same model name, another provider: untouched by an entry for openai.
    expect(table.find('anthropic', 'm', at)).toMatchObject({ inputPerMillion: 9, source: 'default' });
  });

  test('dated: the entry in effect on the day of the call; before the first organization entry the model has no price', () => {
    const table = new PriceTable(defaults, setting, organization);
    expect(table.find('openai', 'o', day('2026-02-28'))).toMatchObject({ inputPerMillion: 300 });
    expect(table.find('openai', 'o', day('2026-03-01'))).toMatchObject({ inputPerMillion: 301 });
    // The organization's list is the whole story for `o`: the setting's older price does not fill the gap before it.
    expect(table.find('openai', 'o', day('2025-12-31'))).toBeUndefined();
  });

  test('the effective table lists each entry once with its source, by provider, model and newest first', () => {
    const listed = effectivePrices({ default: defaults, setting, organization }).map((e) => `${e.provider}/${e.model}/${e.since}/${e.source}`);
    expect(listed).toEqual([
      'anthropic/m/2025-01-01/default',
      'openai/custom/2026-01-01/organization',
      'openai/m/2025-01-01/default',
      'openai/n/2025-06-01/setting',
      'openai/o/2026-03-01/organization',
      'openai/o/2026-01-01/organization',
    ]);
    expect(new PriceTable(defaults, setting, organization).entries()).toHaveLength(listed.length);
  });

  test('without entries of its own an organization prices as the service does', () => {
    const service = new PriceTable(defaults, setting);
    const own = new PriceTable(defaults, setting, []);
    expect(own.entries()).toEqual(service.entries());
  });
});

describe('the body replacing them', () => {
  const issues = (body: unknown) => {
    const parsed = ReplacePricesBody.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  test('accepts up to 200 entries, an empty list included', () => {
    expect(issues({ entries: [] })).toEqual([]);
    expect(issues({ entries: Array.from({ length: 200 }, (_, i) => entry(`m${i}`, '2026-01-01', 1)) })).toEqual([]);
    expect(issues({ entries: Array.from({ length: 201 }, (_, i) => entry(`m${i}`, '2026-01-01', 1)) })).toEqual(['entries: must have at most 200 items']);
  });

  test('names the entry and the field that is wrong', () => {
    expect(issues({ entries: [entry('m', '2026-01-01', 1), { ...entry('m', '2026-02-30', 1) }] })).toEqual([
      'entries.1.since: must be a date such as 2026-01-31',
    ]);
    expect(issues({ entries: [{ ...entry('m', '2026-01-01', 1), currency: 'EUR' }] })[0]).toMatch(/^entries\.0\.currency: /);
    expect(issues({ entries: [entry('m', '2026-01-01', -1)] })[0]).toMatch(/^entries\.0\.inputPerMillion: must be at least 0/);
    expect(issues({ entries: [entry('m', '2026-01-01', 1), entry('m', '2026-02-01', 1), entry('m', '2026-01-01', 2)] })).toEqual([
      'entries.2.since: entry 0 already prices openai m from 2026-01-01: one price per provider, model and day',
    ]);
  });
});
