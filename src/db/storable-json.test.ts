import { jsonHazard, MAX_JSON_DEPTH, replaceUnstorableText, unstorableJson, withinDepth } from './storable-json';

/** `levels` arrays inside each other around `inner`, as JSON text, parsed. */
const nested = (levels: number, inner: unknown = 1): unknown => JSON.parse(`${'['.repeat(levels)}${JSON.stringify(inner)}${']'.repeat(levels)}`);
const nestedObject = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`);

describe('jsonHazard', () => {
  test('accepts storable JSON up to the depth bound, and names the path past it', () => {
    expect(jsonHazard({ a: [1, 'two', { three: null, four: true }] })).toBeUndefined();
    // The innermost scalar sits MAX_JSON_DEPTH levels down.
    expect(jsonHazard(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonHazard(nested(MAX_JSON_DEPTH + 1))).toEqual({
      kind: 'depth',
      at: Array(MAX_JSON_DEPTH + 1).fill('0'),
      message: `nests deeper than ${MAX_JSON_DEPTH} levels`,
    });
    expect(jsonHazard(nestedObject(MAX_JSON_DEPTH + 1))?.at).toEqual(Array(MAX_JSON_DEPTH + 1).fill('a'));
  });

  test('walks hostile nesting without overflowing the stack', () => {
    expect(jsonHazard(nested(200_000))?.kind).toBe('depth');
    expect(withinDepth(nestedObject(50_000), MAX_JSON_DEPTH)).toBe(false);
  });

  test('finds NUL and unpaired surrogates in strings and field names, and infinite numbers', () => {
    expect(jsonHazard({ list: ['ok', { name: 'a\u0000b' }] })).toEqual({
      kind: 'text',
      at: ['list', '1', 'name'],
      message: 'must not contain the NUL character (\\u0000)',
    });
    expect(jsonHazard(JSON.parse('{"x":{"a\\ud800":1}}'))).toMatchObject({
      kind: 'text',
      at: ['x'],
      message: expect.stringMatching(/^field names: .*surrogate/),
    });
    expect(jsonHazard({ n: [JSON.parse('1e999')] })).toEqual({ kind: 'number', at: ['n', '0'], message: 'numbers must be finite' });
    // A paired surrogate is a real character (an emoji).
    expect(jsonHazard({ emoji: '\ud83d\ude00' })).toBeUndefined();
  });

  test('reports the first problem in document order', () => {
    expect(jsonHazard({ first: 'a\u0000', second: 'b\u0000' })?.at).toEqual(['first']);
    expect(jsonHazard(['ok', 'a\u0000', 'b\u0000'])?.at).toEqual(['1']);
    // A nested problem before a scalar one is still the first.
    expect(jsonHazard({ a: { b: 'x\u0000' }, c: 'y\u0000' })?.at).toEqual(['a', 'b']);
    expect(jsonHazard([[1, [JSON.parse('1e999')]], 'z\u0000'])?.at).toEqual(['0', '1', '0']);
  });

  test('unstorableJson puts the path under its prefix', () => {
    expect(unstorableJson({ a: 'x\u0000' }, 'records.2.value')).toEqual({ path: 'records.2.value.a', message: 'must not contain the NUL character (\\u0000)' });
    expect(unstorableJson({ a: 'x' }, 'value')).toBeUndefined();
  });
});

describe('replaceUnstorableText', () => {
  test('replaces NUL and unpaired surrogates with U+FFFD in values and field names, leaving the rest', () => {
    const value = JSON.parse('{"a":"x\\u0000y","list":["\\ud800", "ok", 3, null],"k\\u0000":{"deep":"\\udc00z"},"__proto__":"kept"}');
    const fixed = replaceUnstorableText(value);
    expect(fixed).toBe(value);
    expect(Object.getPrototypeOf(fixed)).toBe(Object.prototype);
    expect(fixed).toEqual({ a: 'x\uFFFDy', list: ['\uFFFD', 'ok', 3, null], ['k\uFFFD']: { deep: '\uFFFDz' }, ['__proto__']: 'kept' });
    expect(jsonHazard(fixed)).toBeUndefined();
    expect(Object.hasOwn(fixed, '__proto__')).toBe(true);
  });
});
