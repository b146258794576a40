/**
 * The deepest a JSON value the service accepts may nest: a value at more
 * than this many levels below the document's root is refused. Deep enough
 * for any real document (an analytics filter tree nests at most 24 levels
 * inside a dashboard's few), shallow enough that every recursive walk after
 * it (schemas, templates, serializers) stays far from the stack's end.
 */
export const MAX_JSON_DEPTH = 64;

/** What is wrong with a JSON value, and where (`at`: the path of keys and indexes to it). */
export interface JsonHazard {
  at: string[];
  kind: 'depth' | 'text' | 'number';
  message: string;
}

/** A value being walked and how it was reached; the path is built only when something is wrong. */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
  depth: number;
}

/**
 * The first thing in `value` PostgreSQL's jsonb and text would not store
 * faithfully, or that nests past `maxDepth`. Iterative, so a hostile
 * document cannot overflow the stack; the path is built only when something
 * is found (it runs on every record of an import). JSON.stringify turns
 * Infinity and NaN into null without a word; jsonb and text refuse the NUL
 * character and unpaired surrogates (valid JSON escapes that are no
 * character) in strings and in field names.
 */
export function jsonHazard(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonHazard | undefined {
  const stack: Visit[] = [{ value, key: '', parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const item = visit.value;
    if (visit.depth > maxDepth) return hazard(visit, 'depth', `nests deeper than ${maxDepth} levels`);
    if (item === null || typeof item !== 'object') {
      const problem = scalarProblem(item);
      if (problem) return hazard(visit, problem.kind, problem.message);
    } else {
      const depth = visit.depth + 1;
      // A scalar with nothing wrong is not pushed (a long array of numbers was one allocation an item);
      // a wrong one is, so the first thing wrong in the document is still the one reported.
      if (Array.isArray(item)) {
        for (let i = item.length - 1; i >= 0; i--)
          if (!fineScalar(item[i], depth, maxDepth)) stack.push({ value: item[i], key: String(i), parent: visit, depth });
        continue;
      }
      const keys = Object.keys(item);
      // Pushed last to first, so the first field is looked at first.
      for (let i = keys.length - 1; i >= 0; i--) {
        const keyProblem = textProblem(keys[i]);
        if (keyProblem) return hazard(visit, 'text', `field names: ${keyProblem}`);
        const field = (item as Record<string, unknown>)[keys[i]];
        if (!fineScalar(field, depth, maxDepth)) stack.push({ value: field, key: keys[i], parent: visit, depth });
      }
    }
  }
  return undefined;
}

/** What jsonb or text would not store faithfully in a scalar (a string, a number), or undefined. */
function scalarProblem(value: unknown): Pick<JsonHazard, 'kind' | 'message'> | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { kind: 'text', message: problem } : undefined;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return { kind: 'number', message: 'numbers must be finite' };
  return undefined;
}

/** A scalar, within the depth, with nothing wrong: the walk need not visit it. */
function fineScalar(value: unknown, depth: number, maxDepth: number): boolean {
  return depth <= maxDepth && (value === null || typeof value !== 'object') && scalarProblem(value) === undefined;
}

/** True when no value inside `value` lies deeper than `max` levels (iterative). */
export function withinDepth(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (depth > max) return false;
    if (item !== null && typeof item === 'object') for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return true;
}

/**
 * Why PostgreSQL's jsonb would not store `value` faithfully, with the path of
 * the offending part under `path` (`value.items.2.name`), or undefined when it would.
 */
export function unstorableJson(value: unknown, path: string): { path: string; message: string } | undefined {
  const problem = jsonHazard(value);
  return problem && { path: [path, ...problem.at].filter((p) => p !== '').join('.'), message: problem.message };
}

/** Why `text` cannot be stored as PostgreSQL text, or undefined. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (!text.isWellFormed()) return 'must not contain an unpaired surrogate (an escape such as \\ud800 that is no character)';
  return undefined;
}

/**
 * Makes the strings and field names of a freshly parsed JSON value storable,
 * in place: each NUL character and unpaired surrogate becomes U+FFFD, the
 * Unicode replacement character. Iterative; returns `value`.
 */
export function replaceUnstorableText<T>(value: T): T {
  const fix = (text: string) => (textProblem(text) ? text.replaceAll('\u0000', '\uFFFD').toWellFormed() : text);
  const root: { value: unknown } = { value };
  const stack: Array<[Record<string, unknown> | unknown[], string | number]> = [[root as Record<string, unknown>, 'value']];
  while (stack.length > 0) {
    const [holder, slot] = stack.pop()!;
    const item = (holder as Record<string | number, unknown>)[slot];
    if (typeof item === 'string') {
      (holder as Record<string | number, unknown>)[slot] = fix(item);
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) stack.push([item, i]);
    } else if (item !== null && typeof item === 'object') {
      const object = item as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const fixed = fix(key);
        if (fixed !== key) {
          // A plain data property even for "__proto__", as JSON.parse made it.
          Object.defineProperty(object, fixed, { value: object[key], enumerable: true, writable: true, configurable: true });
          delete object[key];
        }
        stack.push([object, fixed]);
      }
    }
  }
  return root.value as T;
}

function hazard(visit: Visit, kind: JsonHazard['kind'], message: string): JsonHazard {
  const at: string[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) at.unshift(v.key);
  return { at, kind, message };
}
