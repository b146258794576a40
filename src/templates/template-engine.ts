import { Liquid } from 'liquidjs';

/** Template recursion limit of interface.md 8: a value rendered from a template is rendered again at most this deep. */
export const MAX_TEMPLATE_DEPTH = 5;

/**
 * liquidjs refuses `$` at the start of an identifier, so the `$env` and
 * `$connections` roots of interface.md 2.1 are renamed inside tags before
 * liquidjs sees the text, and back in messages shown to users.
 */
const DOLLAR_ROOTS: Record<string, string> = { $env: '__env', $connections: '__connections' };
const TAG = /({{-?|{%-?)([\s\S]*?)(-?}}|-?%})/g;
const DOLLAR_ROOT = /\$(env|connections)\b/g;

export const ENV_ROOT = DOLLAR_ROOTS.$env;
export const CONNECTIONS_ROOT = DOLLAR_ROOTS.$connections;

/** Rewrites `$env` / `$connections` inside `{{ }}` and `{% %}` to names liquidjs accepts. */
export function toLiquid(template: string): string {
  return template.replace(TAG, (_m, open: string, body: string, close: string) => open + body.replace(DOLLAR_ROOT, (root) => DOLLAR_ROOTS[root]) + close);
}

/** Undoes toLiquid in text shown to people (error messages, reference paths). */
export function fromLiquid(text: string): string {
  return text.replace(/__(env|connections)\b/g, '$$$1');
}

/** True when `text` holds template syntax at all; plain strings skip parsing and rendering. */
export function isTemplate(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

/**
 * The one Liquid configuration of the service: the filters of interface.md
 * 2.1 (`size` and `strip_html` are built in, `substring` is added), unknown
 * filters refused at parse time, and limits that keep a hostile template
 * from hanging or exhausting a worker.
 */
export function createLiquid(): Liquid {
  const liquid = new Liquid({
    strictFilters: true,
    parseLimit: 100_000, // characters of template text
    renderLimit: 1_000, // milliseconds per render
    memoryLimit: 10_000_000, // characters a render may allocate
    cache: 200,
  });
  liquid.registerFilter('substring', (value: unknown, start = 0, length?: number) => {
    const text = value === undefined || value === null ? '' : String(value);
    const from = Math.max(0, Number(start) || 0);
    return length === undefined ? text.slice(from) : text.slice(from, from + Math.max(0, Number(length) || 0));
  });
  return liquid;
}
