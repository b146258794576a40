import { MASK, SecretSet } from './secret-set';

describe('SecretSet', () => {
  test('masks a value in its plain, URL-encoded and JSON-escaped forms, keys included; short values are left alone', () => {
    const set = new SecretSet();
    set.add('pw/live+"x"');
    set.add('eu');
    expect(
      set.mask({
        a: 'pw/live+"x"',
        [`k pw${encodeURIComponent('/live+"x"')}`]: 'q=pw%2Flive%2B%22x%22',
        j: JSON.stringify({ p: 'pw/live+"x"' }),
        region: 'eu',
      }),
    ).toEqual({
      a: MASK,
      [`k ${MASK}`]: `q=${MASK}`,
      j: `{"p":"${MASK}"}`,
      region: 'eu',
    });
  });

  test('a slice keeps what of each secret it holds: inside, straddling either edge, or the whole', () => {
    const set = new SecretSet();
    set.add('SECRETVALUE');
    const input = 'abc-SECRETVALUE-xyz';
    set.sliced(input, 6, 5); // CRETV
    set.sliced(input, 0, 8); // abc-SECR -> SECR
    set.sliced(input, 12, 7); // LUE-xyz -> LUE is too short to mask on its own
    expect(set.mask('CRETV|SECR|abc-SE')).toBe(`${MASK}|${MASK}|abc-SE`);
    expect(set.touches('LUE')).toBe(false);
  });

  test('transforms and encodings of a secret are masked; inputs without one add nothing', () => {
    const set = new SecretSet();
    set.add('MixedCase9');
    set.transformed('prefix MixedCase9', (s) => s.toUpperCase());
    set.encoded('prefix MixedCase9', Buffer.from('prefix MixedCase9').toString('base64'));
    set.encoded('nothing secret here', 'bm90aGluZw==');
    expect(set.mask(['MIXEDCASE9', Buffer.from('prefix MixedCase9').toString('base64'), 'bm90aGluZw=='])).toEqual([MASK, MASK, 'bm90aGluZw==']);
  });

  test('touches says whether masking would change a value', () => {
    const set = new SecretSet();
    expect(set.touches({ a: 'anything' })).toBe(false);
    set.add('hunter22');
    expect(set.touches({ a: ['x', 'my hunter22'] })).toBe(true);
    expect(set.touches({ a: ['x', 'hunter2'] })).toBe(false);
  });
});
