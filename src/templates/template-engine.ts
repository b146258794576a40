import { Liquid } from 'liquidjs';
import { registerSecretTrackingFilters } from './secret-filters';

/** Template recursion limit of interface.md 8: a value rendered from a template is rendered again at most this deep. */
export const MAX_TEMPLATE_DEPTH = 5;

/** The longest template text liquidjs may parse; longer ones are refused before anything scans them. */
export const MAX_TEMPLATE_LENGTH = 100_000;

/**
 * liquidjs refuses `$` at the start of an identifier, so the `$env` and
 * `$connections` roots of interface.md 2.1, and `$resume` (a `core.wait`
 * step's resume link), are renamed inside tags before liquidjs sees the
 * text, and back in messages shown to users.
 */
const DOLLAR_ROOTS: Record<string, string> = { $env: '__env', $connections: '__connections', $resume: '__resume' };
const DOLLAR_ROOT = /\$(env|connections|resume)\b/g;

export const ENV_ROOT = DOLLAR_ROOTS.$env;
export const CONNECTIONS_ROOT = DOLLAR_ROOTS.$connections;
export const RESUME_ROOT = DOLLAR_ROOTS.$resume;

/**
 * Rewrites `$env` / `$connections` inside `{{ }}` and `{% %}` to names
 * liquidjs accepts. One pass, linear in the text: a regular expression that
 * searched each opener for its closer was quadratic on `{{{{…` without one,
 * and a hostile definition could hold the event loop with it.
 */
export function toLiquid(template: string): string {
  const find = new TagFinder(template);
  let out = '';
  let from = 0;
  for (;;) {
    const open = find.opener(from);
    const close = open === -1 ? -1 : find.closer(open + 2);
    // No closer after this opener means none after any later one either: the rest is text.
    if (close === -1) break;
    out +=
      template.slice(from, open + 2) + template.slice(open + 2, close).replace(DOLLAR_ROOT, (root) => DOLLAR_ROOTS[root]) + template.slice(close, close + 2);
    from = close + 2;
  }
  return out + template.slice(from);
}

/**
 * Finds tag openers and closers left to right. Each needle's last answer is
 * kept until the scan passes it, so every character is searched at most once
 * per needle, however the openers and closers interleave.
 */
class TagFinder {
  private readonly last = new Map<string, number>();
  constructor(private readonly text: string) {}

  /** The first `{{` or `{%` at or after `from`, or -1. */
  opener(from: number): number {
    return earliest(this.next('{{', from), this.next('{%', from));
  }

  /** The first `}}` or `%}` at or after `from`, or -1. */
  closer(from: number): number {
    return earliest(this.next('}}', from), this.next('%}', from));
  }

  private next(needle: string, from: number): number {
    const known = this.last.get(needle);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const found = this.text.indexOf(needle, from);
    this.last.set(needle, found);
    return found;
  }
}

const earliest = (a: number, b: number) => (a === -1 ? b : b === -1 ? a : Math.min(a, b));

/**
 * A liquidjs error message as people read it: the first line (liquidjs may
 * quote the template below it), `$` roots restored, and cut short, since the
 * line itself may quote up to a whole template.
 */
export function templateMessage(message: string): string {
  const line = fromLiquid(message.split('\n')[0]);
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Undoes toLiquid in text shown to people (error messages, reference paths). */
export function fromLiquid(text: string): string {
  return text.replace(/__(env|connections|resume)\b/g, '$$$1');
}

/** True when `text` holds template syntax at all; plain strings skip parsing and rendering. */
export function isTemplate(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

/**
 * The one Liquid configuration of the service: the filters of interface.md
 * 2.1 (`size` and `strip_html` are built in, `substring` is added), unknown
 * filters refused at parse time, limits that keep a hostile template from
 * hanging or exhausting a worker, and filters that keep masking on the trail
 * of a secret they transform (secret-filters.ts).
 */
export function createLiquid(): Liquid {
  const liquid = new Liquid({
    strictFilters: true,
    // Data only: a template never reads inherited members such as `constructor` (liquidjs's default, pinned here).
    ownPropertyOnly: true,
    parseLimit: MAX_TEMPLATE_LENGTH,
    renderLimit: 1_000, // milliseconds per render
    memoryLimit: 10_000_000, // characters a render may allocate
    cache: 200,
  });
  registerSecretTrackingFilters(liquid);
  return liquid;
}
