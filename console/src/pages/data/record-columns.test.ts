import { buildWhere, type Condition, parseWhere } from './filter-conditions';
import { cellText, filterFields, inferColumns, isDateLike } from './record-columns';

describe('column inference', () => {
  test('columns are the top-level keys in alphabetical order, each typed by its values; nulls do not decide a type', () => {
    const columns = inferColumns([
      { amount: 12.5, status: 'paid', at: '2026-03-10T09:00:00Z', vip: true, customer: { country: 'FR' } },
      { amount: null, status: 'open', at: '2026-03-11', note: 'late', tags: ['a'] },
      { amount: 3, extra: null },
    ]);
    expect(columns).toEqual([
      { name: 'amount', type: 'number', present: 3 },
      { name: 'at', type: 'date', present: 2 },
      { name: 'customer', type: 'object', present: 1 },
      { name: 'extra', type: 'empty', present: 1 },
      { name: 'note', type: 'string', present: 1 },
      { name: 'status', type: 'string', present: 2 },
      { name: 'tags', type: 'object', present: 1 },
      { name: 'vip', type: 'boolean', present: 1 },
    ]);
  });

  test('dates among other text make a text column; unlike kinds make a mixed one', () => {
    expect(inferColumns([{ a: '2026-01-01' }, { a: 'soon' }])[0].type).toBe('string');
    expect(inferColumns([{ a: 1 }, { a: '1' }])[0].type).toBe('mixed');
    expect(inferColumns([{ a: true }, { a: { b: 1 } }])[0].type).toBe('mixed');
    expect(inferColumns([])).toEqual([]);
  });

  test('date-like is ISO 8601 dates and date-times, not any text with digits', () => {
    for (const text of ['2026-03-10', '2026-03-10T09:00', '2026-03-10T09:00:00Z', '2026-03-10 09:00:00.123+02:00']) expect(isDateLike(text)).toBe(true);
    for (const text of ['2026-13-01', '10/03/2026', '2026-03-10T25:00', '20260310', 'order:2026-03-10']) expect(isDateLike(text)).toBe(false);
  });

  test('filter fields reach into object columns as dot paths; keys holding a dot cannot be named and are left out', () => {
    const fields = filterFields([{ total: 1, 'a.b': 2, customer: { country: 'FR', address: { zip: '75001' } } }, { customer: { vip: true } }]);
    expect(fields).toEqual([
      { path: 'customer', type: 'object' },
      { path: 'customer.address', type: 'object' },
      { path: 'customer.address.zip', type: 'string' },
      { path: 'customer.country', type: 'string' },
      { path: 'customer.vip', type: 'boolean' },
      { path: 'total', type: 'number' },
    ]);
  });

  test('cells: objects as compact JSON cut to fit, absent keys blank, null said', () => {
    expect(cellText({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(cellText({ long: 'x'.repeat(200) })).toHaveLength(80);
    expect(cellText(undefined)).toBe('');
    expect(cellText(null)).toBe('null');
    expect(cellText(false)).toBe('false');
  });
});

describe('filter builder onto the API where language', () => {
  const fields = filterFields([{ amount: 10, status: 'paid', at: '2026-03-10', vip: false, customer: { country: 'FR' }, code: 1 }, { code: 'x' }]);
  const c = (field: string, operator: Condition['operator'], value = ''): Condition => ({ field, operator, value });

  test('each condition becomes an operator object with a value of its field type', () => {
    const built = buildWhere(
      [
        c('amount', '$gt', '5'),
        c('amount', '$lte', '100.5'),
        c('status', '$in', 'paid, open'),
        c('at', '$gte', '2026-03-01'),
        c('vip', '$eq', 'false'),
        c('customer.country', '$ne', 'FR'),
        c('customer', 'present'),
        c('code', '$eq', '"7"'),
      ],
      fields,
    );
    expect(built.problems.size).toBe(0);
    expect(built.where).toEqual({
      amount: { $gt: 5, $lte: 100.5 },
      status: { $in: ['paid', 'open'] },
      at: { $gte: '2026-03-01' },
      vip: { $eq: false },
      'customer.country': { $ne: 'FR' },
      customer: { $exists: true },
      code: { $eq: '7' },
    });
    expect(buildWhere([c('status', 'absent'), c('amount', 'null')], fields).where).toEqual({ status: { $exists: false }, amount: { $eq: null } });
    expect(buildWhere([], fields).where).toBeUndefined();
  });

  test('a value of the wrong type is refused at its row, naming what the field holds; nothing is built', () => {
    const built = buildWhere([c('amount', '$gt', 'abc'), c('at', '$lt', 'yesterday'), c('amount', '$in', '1, two'), c('vip', '$eq', 'yes')], fields);
    expect(built.where).toBeUndefined();
    expect([...built.problems]).toEqual([
      [0, 'amount holds numbers: "abc" is not a number'],
      [1, expect.stringMatching(/^at holds dates/)],
      [2, 'amount holds numbers: "two" is not a number'],
      [3, 'vip holds true or false'],
    ]);
    expect(buildWhere([c('amount', '$gt', '')], fields).problems.get(0)).toBe('Give amount a value');
    expect(buildWhere([c('customer', '$gt', '1')], fields).problems.get(0)).toMatch(/choose another comparison/);
    expect(buildWhere([c('amount', '$gt', '1'), c('amount', '$gt', '2')], fields).problems.get(1)).toMatch(/already has this comparison/);
  });

  test('the URL text reads back into the same conditions, and a where the builder cannot show is named', () => {
    const conditions = [c('amount', '$gt', '5'), c('status', '$in', 'paid, open'), c('customer', 'present'), c('code', '$eq', '"7"'), c('vip', 'null')];
    const text = JSON.stringify(buildWhere(conditions, fields).where);
    expect(parseWhere(text, fields)).toEqual({ conditions });
    // Plain values mean equality, as the API reads them.
    expect(parseWhere('{"status":"paid"}', fields)).toEqual({ conditions: [c('status', '$eq', 'paid')] });
    expect(parseWhere('', fields)).toEqual({ conditions: [] });
    expect(parseWhere('{"customer":{"country":"FR"}}', fields)).toEqual({ problem: expect.stringMatching(/cannot show/) });
    expect(parseWhere('[1]', fields)).toEqual({ problem: expect.stringMatching(/not a JSON object/) });
    expect(parseWhere('{', fields)).toEqual({ problem: expect.stringMatching(/not JSON/) });
  });
});
