import { filters as builtIn, type Liquid } from 'liquidjs';

/**
 * Whoever renders with secrets in scope (a step's scope) puts a tracker under
 * this key of the scope object. A symbol: no template can name it.
 */
export const SECRET_TRACKER = Symbol('secretTracker');

/** Told by filters what became of the secret values they were given, so masking follows the transformed forms too. */
export interface SecretTracker {
  /** `output` is `input` transformed character by character (case, URL or HTML escaping): each secret's transform is secret. */
  transformed(input: string, transform: (secret: string) => string): void;
  /** `output` is `input[start, start + length)` (code units): what of a secret it still holds is secret. */
  sliced(input: string, start: number, length: number): void;
  /** `output` encodes the whole input (base64): when the input held a secret, all of the output is secret. */
  encoded(input: string, output: string): void;
}

interface FilterThis {
  context: { environments: unknown };
}
type Filter = (this: FilterThis, value: unknown, ...args: unknown[]) => unknown;

function trackerOf(self: FilterThis): SecretTracker | undefined {
  const scope = self.context.environments as { [SECRET_TRACKER]?: SecretTracker } | null;
  return scope?.[SECRET_TRACKER];
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();

/** Code-unit index of the code point `points` into `s` (liquidjs slices strings by code points). */
function unitIndex(s: string, points: number): number {
  let units = 0;
  for (const ch of s) {
    if (points-- <= 0) break;
    units += ch.length;
  }
  return units;
}

/**
 * Registers `substring` (interface.md 2.1) and wraps the built-in filters that
 * transform a secret beyond recognition: slices, case changes and encodings.
 * Each still computes exactly what liquidjs's own does; the tracker only
 * learns which forms to mask. Not covered (the README says so): splitting,
 * replacing, reversing, hashing and character-by-character loops.
 */
export function registerSecretTrackingFilters(liquid: Liquid): void {
  const wrap = (
    name: string,
    track: (tracker: SecretTracker, input: unknown, output: unknown, args: unknown[]) => void,
    impl: Filter = (builtIn as Record<string, Filter>)[name],
  ) => {
    liquid.registerFilter(name, function (this: FilterThis, value: unknown, ...args: unknown[]) {
      const output = impl.call(this, value, ...args);
      const tracker = trackerOf(this);
      if (tracker && typeof output === 'string') track(tracker, value, output, args);
      return output;
    });
  };

  wrap(
    'substring',
    (tracker, input, _output, [start = 0, length]) => {
      const from = Math.max(0, Number(start) || 0);
      tracker.sliced(text(input), from, length === undefined ? Infinity : Math.max(0, Number(length) || 0));
    },
    (value: unknown, start: unknown = 0, length?: unknown) => {
      const from = Math.max(0, Number(start) || 0);
      return length === undefined ? text(value).slice(from) : text(value).slice(from, from + Math.max(0, Number(length) || 0));
    },
  );
  wrap('slice', (tracker, input, output, [begin = 0]) => {
    if (Array.isArray(input)) return;
    const s = text(input);
    const points = [...s].length;
    const first = Number(begin) < 0 ? points + Number(begin) : Number(begin);
    tracker.sliced(s, unitIndex(s, first), (output as string).length);
  });
  wrap('truncate', (tracker, input, output, [, ellipsis = '...']) => {
    const s = text(input);
    const out = output as string;
    // What of the input is written: the output without the ellipsis truncate appends.
    const suffix = text(ellipsis);
    if (out !== s) tracker.sliced(s, 0, out.endsWith(suffix) ? out.length - suffix.length : out.length);
  });
  wrap('upcase', (tracker, input) => tracker.transformed(text(input), (s) => s.toUpperCase()));
  wrap('downcase', (tracker, input) => tracker.transformed(text(input), (s) => s.toLowerCase()));
  wrap('capitalize', (tracker, input) => {
    tracker.transformed(text(input), (s) => s.toLowerCase());
    tracker.transformed(text(input), capitalize);
  });
  for (const name of ['url_encode', 'cgi_escape', 'uri_escape', 'escape', 'xml_escape', 'escape_once']) {
    const impl = (builtIn as Record<string, Filter>)[name];
    // Character by character: the escaped secret appears as such inside the escaped whole.
    const escapeAlone = (s: string) => impl.call({ context: { environments: null, memoryLimit: { use: () => undefined } } } as never, s) as string;
    wrap(name, (tracker, input) => tracker.transformed(text(input), escapeAlone));
  }
  wrap('base64_encode', (tracker, input, output) => tracker.encoded(text(input), output as string));
}
