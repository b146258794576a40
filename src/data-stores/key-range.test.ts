import { keyRange } from './key-range';

/** Bytewise UTF-8 comparison: what PostgreSQL's "C" collation does. */
const compare = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const inRange = (key: string, prefix: string) => {
  const { from, before } = keyRange(prefix);
  return compare(key, from) >= 0 && (before === undefined || compare(key, before) < 0);
};

describe('keyRange', () => {
  test('increments the last character', () => {
    expect(keyRange('user:')).toEqual({ from: 'user:', before: 'user;' });
  });

  test('matches exactly the keys that start with the prefix', () => {
    const prefixes = ['a', 'user:1', 'é', '\u{10ffff}', 'x\u{10ffff}', '\ud7ff', '日本', '😀'];
    const keys = [
      '',
      'a',
      'a\u0000',
      'b',
      'user:1',
      'user:10',
      'user:2',
      'é',
      'éa',
      'f',
      '\u{10ffff}',
      '\u{10ffff}z',
      'x',
      'x\u{10ffff}',
      'x\u{10ffff}y',
      'y',
      '\ud7ff',
      '\ud7ffa',
      '\ue000',
      '日本',
      '日本語',
      '日末',
      '😀',
      '😀!',
      '😁',
    ];
    for (const prefix of prefixes) {
      for (const key of keys) expect([prefix, key, inRange(key, prefix)]).toEqual([prefix, key, key.startsWith(prefix)]);
    }
  });

  test('a prefix of only the last code point has no upper bound', () => {
    expect(keyRange('\u{10ffff}')).toEqual({ from: '\u{10ffff}' });
  });
});
