import type { DefinitionStep, InsertionPoint, StepPath } from './definition-graph';

/**
 * The graph editor's changes, each a function from a definition to the next
 * one. They work on the parsed JSON as written (key order and unknown keys
 * kept), so the JSON view shows exactly what the graph did.
 */

export type Definition = Record<string, unknown> & { steps?: unknown };

const clone = <T>(value: T): T => structuredClone(value);

/** The value at `path`, or undefined where the path leads nowhere. */
export function valueAt(root: unknown, path: StepPath): unknown {
  let at: unknown = root;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

/** The array at `path` in `root` (a copy being edited), made when the definition has none there yet (an `else` not written). */
function listAt(root: unknown, path: StepPath): unknown[] {
  const parent = valueAt(root, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object') throw new Error(`No place ${path.join('.')} in the definition`);
  const key = path[path.length - 1];
  const record = parent as Record<string | number, unknown>;
  if (!Array.isArray(record[key])) record[key] = [];
  return record[key] as unknown[];
}

/** Every step id used anywhere in the definition (branches, bodies and timeout paths included). */
export function stepIds(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => stepIds(v, into));
  else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.stepId === 'string' && typeof record.stepType === 'string') into.add(record.stepId);
    Object.values(record).forEach((v) => stepIds(v, into));
  }
  return into;
}

/** `base`, or `base_2`, `base_3`… : the first not taken. */
export function freeId(taken: Set<string>, base: string): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

export function insertStep(definition: Definition, point: InsertionPoint, step: DefinitionStep): Definition {
  const next = clone(definition);
  listAt(next, point.list).splice(point.index, 0, step);
  return next;
}

export function removeStep(definition: Definition, path: StepPath): Definition {
  const next = clone(definition);
  listAt(next, path.slice(0, -1)).splice(Number(path[path.length - 1]), 1);
  return next;
}

/** Moves a step one place up or down within its list; answers the definition unchanged at either end. */
export function moveStep(definition: Definition, path: StepPath, delta: -1 | 1): { definition: Definition; path: StepPath } {
  const index = Number(path[path.length - 1]);
  const list = valueAt(definition, path.slice(0, -1));
  const to = index + delta;
  if (!Array.isArray(list) || to < 0 || to >= list.length) return { definition, path };
  const next = clone(definition);
  const items = listAt(next, path.slice(0, -1));
  [items[index], items[to]] = [items[to], items[index]];
  return { definition: next, path: [...path.slice(0, -1), to] };
}

/** A copy of the step right after it; it and every step inside it get fresh ids. */
export function duplicateStep(definition: Definition, path: StepPath): { definition: Definition; stepId: string } {
  const original = valueAt(definition, path) as DefinitionStep;
  const taken = stepIds(definition);
  const copy = clone(original);
  const renames = new Map<string, string>();
  const renew = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(renew);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.stepId === 'string' && typeof record.stepType === 'string') {
        const fresh = freeId(taken, `${record.stepId.replace(/_\d+$/, '')}_copy`);
        taken.add(fresh);
        renames.set(record.stepId, fresh);
        record.stepId = fresh;
      }
      Object.values(record).forEach(renew);
    }
  };
  renew(copy);
  // Inside the copy, its own steps read each other under their new names.
  let renamed: unknown = copy;
  for (const [from, to] of renames) renamed = renameReferences(renamed, from, to).value;
  const point = { list: path.slice(0, -1), index: Number(path[path.length - 1]) + 1, scope: 'top' as const };
  return { definition: insertStep(definition, point, renamed as DefinitionStep), stepId: (renamed as DefinitionStep).stepId };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `id` as a root in a Liquid expression: not a member of something else (`x.id`), not part of a longer name. */
const rootPattern = (id: string) => new RegExp(`(?<![\\w.$])${escape(id)}(?![\\w-])`, 'g');

/** Replaces root `from` by `to` in a Liquid expression (what goes between `{{ }}`, or a core.if condition). */
const renameInExpression = (expression: string, from: string, to: string) => expression.replace(rootPattern(from), to);

/** Replaces root `from` inside each `{{ … }}` and `{% … %}` of a template, and `$resume.<from>`. */
function renameInTemplate(text: string, from: string, to: string): string {
  return text.replace(/({{|{%)([\s\S]*?)(}}|%})/g, (_, open: string, body: string, close: string) => {
    const renamed = renameInExpression(body, from, to).replace(new RegExp(`\\$resume\\.${escape(from)}(?![\\w-])`, 'g'), `$resume.${to}`);
    return `${open}${renamed}${close}`;
  });
}

/** Every template string (and every core.if condition) of `value` with `from` renamed `to`; counts the strings changed. */
export function renameReferences(value: unknown, from: string, to: string): { value: unknown; changed: number } {
  let changed = 0;
  const walk = (v: unknown, conditionOf = false): unknown => {
    if (typeof v === 'string') {
      const next = conditionOf ? renameInExpression(v, from, to) : renameInTemplate(v, from, to);
      if (next !== v) changed++;
      return next;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      const isIf = record.stepType === 'core.if';
      const out: Record<string, unknown> = {};
      for (const [key, x] of Object.entries(record)) {
        if (key === 'input' && isIf && x && typeof x === 'object' && !Array.isArray(x)) {
          const input: Record<string, unknown> = {};
          for (const [k, y] of Object.entries(x as Record<string, unknown>)) input[k] = k === 'condition' ? walk(y, true) : walk(y);
          out[key] = input;
        } else if (key === 'stepId' || key === 'stepType') out[key] = x;
        else out[key] = walk(x);
      }
      return out;
    }
    return v;
  };
  return { value: walk(value), changed };
}

/** Renames a step and every template that reads it; answers how many strings now read the new name. */
export function renameStep(definition: Definition, path: StepPath, to: string): { definition: Definition; references: number } {
  const step = valueAt(definition, path) as DefinitionStep;
  const from = step.stepId;
  // Only steps hold templates: the sample `initial`, the name and the description are data.
  const { value, changed } = renameReferences(definition.steps, from, to);
  const next = { ...definition, steps: value };
  (valueAt(next, path) as DefinitionStep).stepId = to;
  return { definition: next, references: changed };
}
