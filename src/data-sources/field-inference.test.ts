import { labelFor, newFieldsFrom } from './field-inference';

describe('newFieldsFrom', () => {
  it('infers numbers (numeric strings too), ISO dates and strings, skipping known and non-identifier names', () => {
    const samples = [
      { amount: 3, total: '4.50', at: '2026-01-02T03:04:05Z', day: '2026-01-02', city: 'Paris', known: 1, 'first name': 'x', mixed: 1 },
      { amount: 4, total: null, at: '2026-01-03T00:00:00+02:00', day: '2026-01-03', city: 'Rome', mixed: 'one' },
    ];
    const { fields, skipped } = newFieldsFrom(samples, new Set(['known']));
    expect(fields).toEqual({
      amount: { type: 'number', label: 'Amount', measure: true },
      total: { type: 'number', label: 'Total', measure: true },
      at: { type: 'date', label: 'At' },
      day: { type: 'date', label: 'Day' },
      city: { type: 'string', label: 'City' },
      mixed: { type: 'string', label: 'Mixed' },
    });
    expect(skipped).toEqual(['first name']);
  });

  it('does not take count, the reserved measure, as a field', () => {
    expect(newFieldsFrom([{ count: 1 }], new Set()).skipped).toEqual(['count']);
  });

  it('labels snake and camel case names', () => {
    expect(labelFor('order_total')).toBe('Order total');
    expect(labelFor('orderTotal')).toBe('Order total');
  });
});
