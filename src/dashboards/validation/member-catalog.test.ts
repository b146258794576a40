import { MemberCatalog } from './member-catalog';
import { META, ORDERS, SALES } from './validation.fixtures';

const catalog = () => new MemberCatalog(META);

describe('MemberCatalog did-you-mean', () => {
  it.each([
    [`${SALES}.amout`, SALES, `${SALES}.amount`],
    [`${SALES}.Amount`, SALES, `${SALES}.amount`],
    [`${SALES}.amountt`, SALES, `${SALES}.amount`],
    [`${SALES}.cty`, SALES, `${SALES}.city`],
    [`${SALES}.quantiy`, SALES, `${SALES}.quantity`],
    ['amount', SALES, `${SALES}.amount`],
    // A typo in the alias: the field part finds it.
    [`${SALES.slice(0, -1)}9.amount`, SALES, `${SALES}.amount`],
    // The dot left out: the whole name finds it.
    [`${SALES}amount`, SALES, `${SALES}.amount`],
    // The same field in two sources: the widget's own wins, either way round.
    ['ds_other.count', SALES, `${SALES}.count`],
    ['ds_other.count', ORDERS, `${ORDERS}.count`],
    [`${ORDERS}.totl`, ORDERS, `${ORDERS}.total`],
  ])('%s (widget on %s) → %s', (unknown, own, expected) => {
    expect(catalog().suggest(unknown, own)).toBe(expected);
  });

  it('prefers the own source unless another is closer by two edits or more', () => {
    // Sales' `amount` is 3 edits from `amount_ba`, Orders' `amount_band` 2: one edit closer is not enough, the own source wins.
    expect(catalog().suggest(`${SALES}.amount_ba`, SALES)).toBe(`${SALES}.amount`);
    // `amount_band` exactly, under a wrong alias: Orders' is 0 edits against Sales' 5.
    expect(catalog().suggest('ds_x.amount_band', SALES)).toBe(`${ORDERS}.amount_band`);
  });

  it('without a known source, the closest whole name wins', () => {
    expect(catalog().suggest(`${ORDERS}.cont`)).toBe(`${ORDERS}.count`);
    expect(catalog().suggest(`${SALES}.cont`)).toBe(`${SALES}.count`);
  });

  it('offers nothing far off', () => {
    expect(catalog().suggest(`${SALES}.revenue_total_2024`, SALES)).toBeUndefined();
    expect(catalog().suggest(`${SALES}.xy`, SALES)).toBeUndefined();
    expect(new MemberCatalog([]).suggest(`${SALES}.amount`, SALES)).toBeUndefined();
  });

  it('bounds its work: a name of a megabyte is compared by its start, and hints stop after a hundred names', () => {
    const c = catalog();
    expect(c.suggest(`${SALES}.amount${'x'.repeat(1_000_000)}`, SALES)).toBeUndefined();
    for (let i = 0; i < 200; i++) c.suggest(`${SALES}.nothing_like_it_${i}`, SALES);
    expect(c.suggest(`${SALES}.amout`, SALES)).toBeUndefined();
    // A name asked for before the budget ran out keeps its hint.
    const d = catalog();
    expect(d.suggest(`${SALES}.amout`, SALES)).toBe(`${SALES}.amount`);
    for (let i = 0; i < 200; i++) d.suggest(`${SALES}.nothing_like_it_${i}`, SALES);
    expect(d.suggest(`${SALES}.amout`, SALES)).toBe(`${SALES}.amount`);
  });

  it('knows members, their kind and type, and a source’s time dimension', () => {
    const c = catalog();
    expect(c.get(`${SALES}.amount`)).toEqual(expect.objectContaining({ kind: 'measure', type: 'number', alias: SALES }));
    expect(c.get(`${SALES}.created`)).toEqual(expect.objectContaining({ kind: 'dimension', type: 'time' }));
    expect(c.get(`${SALES}.nope`)).toBeUndefined();
    expect(c.timeDimensionOf(ORDERS)).toBe(`${ORDERS}.placed`);
    expect(c.timeDimensionOf('ds_none')).toBeUndefined();
  });
});
