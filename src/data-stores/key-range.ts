const MAX_CODE_POINT = 0x10ffff;

/**
 * The key range holding every key that starts with `prefix`, for keys
 * compared bytewise in UTF-8 (PostgreSQL's "C" collation), which is code
 * point order: `from <= key < before`. `before` is the prefix with its last
 * code point incremented; undefined when no such bound exists.
 */
export function keyRange(prefix: string): { from: string; before?: string } {
  const points = Array.from(prefix, (ch) => ch.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()! + 1;
    if (last === 0xd800) last = 0xe000; // surrogates are not characters; skip the block
    if (last <= MAX_CODE_POINT) return { from: prefix, before: String.fromCodePoint(...points, last) };
  }
  return { from: prefix };
}
