import { compileOrganizationSchema, PATTERN_BUDGET, refusingCheck, schemaIssues } from './organization-ajv';

const AT = 'steps.0.input.event.schema';

describe('compileOrganizationSchema', () => {
  it('runs a catastrophic pattern on a long payload at once, and refuses what does not match', () => {
    const check = compileOrganizationSchema(
      { type: 'object', properties: { code: { type: 'string', pattern: '^(a+)+$' } } },
      { allErrors: true, formats: true },
    );
    const started = performance.now();
    expect(check({ code: `${'a'.repeat(40)}!` })).toBe(false);
    expect(check({ code: `${'a'.repeat(100_000)}!` })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(check.errors).toEqual([expect.objectContaining({ instancePath: '/code', keyword: 'pattern' })]);
    expect(check({ code: 'aaaa' })).toBe(true);
  });

  it('matches patternProperties keys on RE2 too', () => {
    const check = compileOrganizationSchema({ type: 'object', patternProperties: { '^x(\\d+)+$': { type: 'number' } }, additionalProperties: false });
    expect(check({ x12: 1 })).toBe(true);
    expect(check({ [`x${'1'.repeat(50_000)}y`]: 1 })).toBe(false);
  });

  it('refuses, not lets through, a payload past the pattern budget', () => {
    // Past the budget every test fails: a key no longer "matches" ^x, so the schema alone would let a string through.
    const schema = { type: 'object', patternProperties: { '^x': { type: 'number' } } };
    const check = compileOrganizationSchema(schema);
    const long = `x${'a'.repeat(PATTERN_BUDGET)}`;
    expect(check({ [long]: 'not a number' })).toBe(false);
    expect(check.errors).toContainEqual(
      expect.objectContaining({ instancePath: '', message: expect.stringContaining("too large to check against the schema's patterns") }),
    );
    // The budget is per check: the next one starts afresh.
    expect(check({ x1: 1 })).toBe(true);
    expect(check({ x1: 'text' })).toBe(false);
  });

  it('keeps the costliest pattern work within its budget quick', () => {
    // re2js's DFA cannot cache this one: about 100 ns per character and instruction.
    const check = compileOrganizationSchema({ type: 'array', items: { type: 'string', pattern: '[ab]*a[ab]{200}c' } }, { allErrors: true });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = Array.from({ length: 4000 }, () => (random() < 0.5 ? 'a' : 'b')).join('');
    const started = performance.now();
    check(Array.from({ length: 30 }, () => `${text}c`));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(check.errors).toContainEqual(expect.objectContaining({ message: expect.stringContaining('too large to check') }));
  });

  it('checks uniqueItems in one pass, items equal whatever their key order', () => {
    const check = compileOrganizationSchema({ type: 'array', uniqueItems: true }, { allErrors: true });
    expect(
      check([
        { a: 1, b: [1, 2] },
        { b: [1, 2], a: 1 },
      ]),
    ).toBe(false);
    expect(check.errors).toEqual([expect.objectContaining({ keyword: 'uniqueItems', instancePath: '', params: { i: 1, j: 0 } })]);
    expect(check([{ a: 1 }, { a: '1' }, [1, 2], [2, 1], 1, '1', null])).toBe(true);
    // ajv's own compares every pair: 4.5 s for these 17 000 one-item arrays (a 128 KiB payload).
    const started = performance.now();
    expect(check(Array.from({ length: 17_000 }, (_, i) => [i]))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('throws, naming the pattern, when a pattern cannot run on RE2', () => {
    expect(() => compileOrganizationSchema({ type: 'string', pattern: '^(a)\\1$' })).toThrow(/its pattern "\^\(a\)\\\\1\$" uses a backreference/);
  });
});

describe('schemaIssues', () => {
  it('names the field of each pattern RE2 cannot run', () => {
    const schema = {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^(\\w)\\1$' },
        default: { anyOf: [{ pattern: 'a(?=b)' }] },
        list: { items: [{ pattern: '(?<!x)y' }] },
      },
      patternProperties: { '^(a)\\1': {} },
      $defs: { big: { pattern: 'a{2000}' } },
    };
    expect(schemaIssues(schema, AT)).toEqual([
      { path: `${AT}.properties.code.pattern`, message: expect.stringContaining('backreference') },
      { path: `${AT}.properties.default.anyOf.0.pattern`, message: expect.stringContaining('lookahead') },
      { path: `${AT}.properties.list.items.0.pattern`, message: expect.stringContaining('lookbehind') },
      { path: `${AT}.patternProperties.^(a)\\1`, message: expect.stringContaining('backreference') },
      { path: `${AT}.$defs.big.pattern`, message: expect.stringContaining('invalid repeat count') },
    ]);
  });

  it('leaves data alone: a pattern-like string in default, enum or const is not a pattern', () => {
    const schema = {
      type: 'object',
      default: { pattern: '(a)\\1' },
      enum: [{ pattern: '(?=x)' }],
      properties: { pattern: { type: 'string', const: '(a)\\1' } },
    };
    expect(schemaIssues(schema, AT)).toEqual([]);
  });

  it('reports a schema that does not compile at the schema itself', () => {
    expect(schemaIssues({ type: 'strin' }, AT)).toEqual([{ path: AT, message: expect.stringContaining('is not a valid JSON Schema') }]);
    expect(schemaIssues({ type: 'string', pattern: '^[a-z]+$', format: 'email' }, AT)).toEqual([]);
  });
});

describe('refusingCheck', () => {
  it('refuses every payload, saying why', () => {
    const check = refusingCheck('cannot be checked');
    expect(check({})).toBe(false);
    expect(check.errors).toEqual([expect.objectContaining({ instancePath: '', message: 'cannot be checked' })]);
  });
});
