import { RE2JS } from 're2js';

/**
 * The most instructions a pattern may compile to: room for two repeats of
 * RE2's largest count (`.{1,1000}` is about 2000). Matching costs up to the
 * program's size per character, so organization-ajv.ts charges each test
 * its input's length times this size.
 */
export const MAX_PATTERN_PROGRAM = 5000;

/** Why a pattern cannot run on the linear-time engine, in words for the person who wrote it. */
export class UnsupportedPattern extends Error {}

/** A pattern compiled for RE2: `test` takes time linear in the input, whatever the pattern. */
export interface LinearRegExp {
  test(input: string): boolean;
  /** Instructions of the compiled program: a test's worst-case work per character of input. */
  readonly size: number;
  /** `/source/u`: what ajv keys its compiled patterns by, so two patterns never share one. */
  toString(): string;
}

/**
 * Compiles a JSON Schema `pattern` (ECMAScript syntax, read with the `u`
 * flag as ajv reads it) for RE2 (re2js, a port of Go's regexp): what
 * ECMAScript and RE2 write differently is rewritten so it means the same
 * (`\s`, `.`, `\uXXXX`, `[^]`), and what needs backtracking (backreferences,
 * lookahead, lookbehind) is refused, as is a program larger than
 * MAX_PATTERN_PROGRAM. Throws UnsupportedPattern saying why.
 */
export function compileLinear(pattern: string): LinearRegExp {
  try {
    // Compiling only (nothing is matched): the pattern must be valid ECMAScript, as JSON Schema asks.
    new RegExp(pattern, 'u');
  } catch (err) {
    throw new UnsupportedPattern(`is not a valid regular expression: ${(err as Error).message}`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2(pattern));
  } catch (err) {
    if (err instanceof UnsupportedPattern) throw err;
    throw new UnsupportedPattern(`uses syntax the linear-time engine does not run (${(err as Error).message})`);
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM) {
    throw new UnsupportedPattern(`is too large: it compiles to ${size} instructions, more than ${MAX_PATTERN_PROGRAM} (smaller repeat counts help)`);
  }
  const key = `/${pattern}/u`;
  return { test: (input) => re.test(input), size, toString: () => key };
}

/** Why `pattern` cannot run on the linear-time engine; undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compileLinear(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof UnsupportedPattern) return err.message;
    throw err;
  }
}

/** ECMAScript's `\s`: its white space and line terminators (RE2's `\s` is ASCII only). */
const WHITE_SPACE: Array<[number, number]> = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

const hex = (n: number) => `\\x{${n.toString(16)}}`;
const ranges = (rs: Array<[number, number]>) => rs.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('');
const complement = (rs: Array<[number, number]>): Array<[number, number]> => {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of rs) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
};
const SPACE = ranges(WHITE_SPACE);
const NOT_SPACE = ranges(complement(WHITE_SPACE));
/** ECMAScript's `.` without the `s` flag: anything but a line terminator (RE2's excludes only \n). */
const DOT = `[^${ranges([
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
])}]`;
const ANY = `[${ranges([[0, MAX_CODE_POINT]])}]`;

const isHighSurrogate = (n: number) => n >= 0xd800 && n <= 0xdbff;
const isLowSurrogate = (n: number) => n >= 0xdc00 && n <= 0xdfff;

/**
 * The RE2 spelling of a valid ECMAScript (`u` flag) pattern. It walks the
 * pattern once, knowing only whether it is inside a character class: the
 * `u` flag's strict syntax (checked before) leaves no other ambiguity.
 */
function toRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const [text, length] = escape(pattern, i, inClass);
      out += text;
      i += length;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      // `[` is literal in an ECMAScript class; RE2 would read `[:alpha:]` as a POSIX class.
      out += c === '[' ? '\\[' : c;
      i += 1;
      continue;
    }
    if (c === '[') {
      // ECMAScript's empty classes; RE2 reads `[]` and `[^]` as the start of a class holding `]`.
      if (pattern.startsWith('[]', i)) {
        out += `[^${ANY.slice(1)}`;
        i += 2;
      } else if (pattern.startsWith('[^]', i)) {
        out += ANY;
        i += 3;
      } else {
        inClass = true;
        out += c;
        i += 1;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      if (pattern[i + 2] === '=' || pattern[i + 2] === '!')
        throw new UnsupportedPattern('uses lookahead ((?= or (?!), which the linear-time engine does not run');
      if (pattern.startsWith('<=', i + 2) || pattern.startsWith('<!', i + 2)) {
        throw new UnsupportedPattern('uses lookbehind ((?<= or (?<!), which the linear-time engine does not run');
      }
      if (pattern[i + 2] === '<') {
        out += '(?P<';
        i += 3;
        continue;
      }
    }
    out += c === '.' ? DOT : c;
    i += 1;
  }
  return out;
}

/** The RE2 text of the escape at `at`, and how many characters of the pattern it spans. */
function escape(pattern: string, at: number, inClass: boolean): [string, number] {
  const c = pattern[at + 1];
  if (c >= '1' && c <= '9') throw new UnsupportedPattern(`uses a backreference (\\${c}), which the linear-time engine does not run`);
  switch (c) {
    case 'k':
      throw new UnsupportedPattern('uses a backreference (\\k<name>), which the linear-time engine does not run');
    case '0':
      return [hex(0), 2];
    case 's':
      return [inClass ? SPACE : `[${SPACE}]`, 2];
    case 'S':
      return [inClass ? NOT_SPACE : `[^${SPACE}]`, 2];
    case 'b':
      // Backspace inside a class, a word boundary outside (ASCII words in both engines).
      return [inClass ? hex(8) : '\\b', 2];
    case 'c':
      return [hex(pattern.charCodeAt(at + 2) % 32), 3];
    case 'u':
      return unicodeEscape(pattern, at);
    case 'p':
    case 'P':
      return propertyEscape(pattern, at);
    default:
      // \d \D \w \W \B \t \n \v \f \r \xHH and escaped syntax characters mean the same in RE2.
      return [`\\${c}`, 2];
  }
}

/** `\u{…}`, `\uXXXX`, and a pair of `\uXXXX` surrogates, which the `u` flag reads as one code point. */
function unicodeEscape(pattern: string, at: number): [string, number] {
  if (pattern[at + 2] === '{') {
    const end = pattern.indexOf('}', at);
    return [hex(parseInt(pattern.slice(at + 3, end), 16)), end - at + 1];
  }
  const unit = parseInt(pattern.slice(at + 2, at + 6), 16);
  if (isHighSurrogate(unit) && pattern.startsWith('\\u', at + 6)) {
    const low = parseInt(pattern.slice(at + 8, at + 12), 16);
    if (isLowSurrogate(low)) return [hex(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)), 12];
  }
  if (isHighSurrogate(unit) || isLowSurrogate(unit))
    throw new UnsupportedPattern('names a lone surrogate (\\uD800 to \\uDFFF), which the linear-time engine does not match');
  return [hex(unit), 6];
}

/** `\p{…}`: a general category or a script, as RE2 names them (`\p{L}`, `\p{Lu}`, `\p{Greek}`). */
function propertyEscape(pattern: string, at: number): [string, number] {
  const end = pattern.indexOf('}', at);
  const body = pattern.slice(at + 3, end);
  const [key, value] = body.includes('=') ? body.split('=') : [undefined, body];
  if (key !== undefined && !['Script', 'sc', 'General_Category', 'gc'].includes(key)) {
    throw new UnsupportedPattern(`uses the Unicode property ${key}, which the linear-time engine does not know; it knows general categories and scripts`);
  }
  return [`\\${pattern[at + 1]}{${value}}`, end - at + 1];
}
