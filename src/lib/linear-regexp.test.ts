import fc from 'fast-check';
import { compileLinear, MAX_PATTERN_PROGRAM, patternProblem } from './linear-regexp';

describe('compileLinear', () => {
  it('answers a catastrophic pattern on a long input at once', () => {
    // V8 needs about 2^n steps for n a's here: 28 took over a second, 100 000 would never end.
    const re = compileLinear('^(a+)+$');
    const started = performance.now();
    expect(re.test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(re.test('a'.repeat(100_000))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it.each([
    ['(a)\\1', 'a backreference (\\1)'],
    ['(?<x>a)\\k<x>', 'a backreference (\\k<name>)'],
    ['a(?=b)', 'lookahead'],
    ['a(?!b)', 'lookahead'],
    ['(?<=a)b', 'lookbehind'],
    ['(?<!a)b', 'lookbehind'],
    ['(a', 'is not a valid regular expression'],
    ['a{,5}', 'is not a valid regular expression'],
    ['\\uD800', 'lone surrogate'],
    ['\\p{Script_Extensions=Greek}', 'Unicode property Script_Extensions'],
    ['\\p{Letter}', 'does not run'],
    ['a{1001}', 'does not run'],
    ['(?:[a-z]{1,1000}){3}', 'does not run'],
  ])('refuses %s, saying why', (pattern, why) => {
    expect(patternProblem(pattern)).toContain(why);
  });

  it(`refuses a program of more than ${MAX_PATTERN_PROGRAM} instructions`, () => {
    expect(patternProblem('[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}[a-z]{1000}')).toMatch(/^is too large: it compiles to \d+ instructions/);
    expect(patternProblem('^.{1,1000}$')).toBeUndefined();
  });

  it('gives each pattern its own key (ajv keeps compiled patterns by it)', () => {
    expect(String(compileLinear('^a$'))).toBe('/^a$/u');
    expect(String(compileLinear('^b$'))).not.toBe(String(compileLinear('^a$')));
  });

  // What ECMAScript and RE2 spell or mean differently; each must answer as V8 does with the u flag.
  it.each([
    ['^\\s+$', ['\u00a0\u3000\ufeff\u2028', ' \t\v', 'a ']],
    ['^\\S+$', ['ab', 'a\u00a0', 'a\u2029']],
    ['^[\\s\\d]+$', ['1 \u00a0', '1a']],
    ['^[^\\S]$', [' ', '\u1680', 'a']],
    ['^[a\\S]$', ['a', ' ', 'b']],
    ['^.$', ['x', '😀', '\n', '\r', '\u2028', '\u0085']],
    ['^[^]$', ['\n', 'x']],
    ['^a[]', ['a', 'ab']],
    ['^\\u00e9$', ['é', 'e']],
    ['^\\u{1F600}$', ['😀', '\ud83d']],
    ['^\\uD83D\\uDE00$', ['😀']],
    ['^😀+$', ['😀😀', '😀a']],
    ['^[[:alpha:]+$', ['[:alpha', 'a:', 'b']],
    ['^(?<year>\\d{4})-\\d{2}$', ['2024-01', '24-01']],
    ['^\\cJ$', ['\n', 'J']],
    ['^[\\b]$', ['\b', 'b']],
    ['\\bcat\\b', ['a cat.', 'concat', 'écat']],
    ['^\\0$', ['\0', '0']],
    ['^\\p{Lu}\\p{Ll}+$', ['Élan', 'élan']],
    ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
    ['^\\P{L}+$', ['123', 'a1']],
    ['^a\\/b\\.c$', ['a/b.c', 'a/bxc']],
    ['^[\\w-]+$', ['a-b_c', 'a b']],
    ['^\\d{3}\\D$', ['123x', '١٢٣x']],
    ['a$', ['a\n', 'ba']],
    ['^$', ['', '\n']],
  ])('reads %s as ECMAScript does', (pattern, inputs) => {
    const re = compileLinear(pattern);
    const v8 = new RegExp(pattern, 'u');
    for (const input of inputs) expect([input, re.test(input)]).toEqual([input, v8.test(input)]);
  });

  it('agrees with V8 on generated patterns and inputs', () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      'é',
      '😀',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '\\W',
      '\\b',
      '[ab]',
      '[^a]',
      '[\\s\\d]',
      '[^\\S]',
      '\\u00e9',
      '[^]',
      '\\n',
      '\\.',
      '(?:a|b)',
      '(?<n>a)',
    );
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,3}', '*?', '{2}');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const branch = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(''));
    const pattern = fc
      .tuple(fc.constantFrom('', '^'), fc.array(branch, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '$'))
      .map(([start, branches, end]) => `${start}(?:${branches.join('|')})${end}`);
    const input = fc.array(fc.constantFrom('a', 'b', ' ', '\u00a0', '\n', '\r', 'é', '😀', '1', '_', '\u2028', '.'), { maxLength: 8 }).map((c) => c.join(''));
    fc.assert(
      fc.property(pattern, fc.array(input, { minLength: 1, maxLength: 5 }), (p, inputs) => {
        const v8 = validRegExp(p);
        fc.pre(v8 !== undefined); // a quantified \b, a group name twice
        const re = compileLinear(p);
        for (const s of inputs) expect([p, s, re.test(s)]).toEqual([p, s, v8!.test(s)]);
      }),
      { numRuns: 300 },
    );
  });
});

function validRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
