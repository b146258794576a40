import { inlineParams } from './sql';

const quote = (t: string) => `'${t.replace(/'/g, "''")}'`;

describe('inlineParams', () => {
  it('replaces placeholders with quoted literals, the highest numbers too', () => {
    const params = Array.from({ length: 11 }, (_, i) => `v${i + 1}`);
    expect(inlineParams('a = $1 AND b IN ($10, $11)', params, quote)).toBe("a = 'v1' AND b IN ('v10', 'v11')");
  });

  it('leaves placeholders inside quoted strings and identifiers alone', () => {
    expect(inlineParams(`SELECT '$1', "x$1", 'it''s $1' WHERE y = $1`, ['z'], quote)).toBe(`SELECT '$1', "x$1", 'it''s $1' WHERE y = 'z'`);
  });

  it('quotes hostile values so they stay values', () => {
    expect(inlineParams('x = $1', ["'; DROP TABLE t; --"], quote)).toBe("x = '''; DROP TABLE t; --'");
  });

  it('writes NULL for null and refuses a missing parameter', () => {
    expect(inlineParams('x = $1', [null], quote)).toBe('x = NULL');
    expect(() => inlineParams('x = $2', ['a'], quote)).toThrow(/\$2/);
  });

  it('does not take casts or dollar signs in names for placeholders', () => {
    expect(inlineParams('x::text = $1 AND a$1 = 1', ['v'], quote)).toBe("x::text = 'v' AND a$1 = 1");
  });
});
