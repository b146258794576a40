import type { Liquid, Template } from 'liquidjs';
import { dollarNeeds, type DollarNeeds } from './template-analysis';
import { isTemplate, MAX_TEMPLATE_LENGTH, templateMessage, toLiquid } from './template-engine';

/** `{{ expression }}` and nothing else around it (whitespace aside). */
const SINGLE_EXPRESSION = /^\s*{{-?((?:(?!{{|}})[\s\S])*?)-?}}\s*$/;

/** A template that failed to parse or render; the message has `$` roots restored and no values. */
export class TemplateError extends Error {}

/**
 * The scope a template renders in: a plain object, or a function that builds
 * it from what the template reads of `$env` and `$connections` (a step
 * resolves exactly those, so the scope holds data and nothing that loads it).
 */
export type Scope = object | ((needs: DollarNeeds) => Promise<object>);

interface Parsed {
  templates: Template[];
  needs: DollarNeeds;
}

/**
 * How a lone `{{ expression }}` renders. `objects`: an object or array it
 * yields stays that value (2.1, the return step's body), anything else
 * becomes text. `values`: numbers, booleans and null keep their type too
 * (`{{ initial.count }}` stays 5, not "5"); a missing value is still "".
 * Runs choose `values` from the interpreter's `typed-values` patch on, so a
 * run started before it renders as it began.
 */
export type LoneExpressions = 'objects' | 'values';

/**
 * Renders the templates inside step inputs. A string that is exactly one
 * `{{ expression }}` keeps the type of its value (see LoneExpressions); any
 * other template renders to text. Plain strings are returned untouched
 * without parsing.
 */
export class TemplateRenderer {
  private readonly parsed = new Map<string, Parsed>();

  constructor(private readonly liquid: Liquid) {}

  /** Renders one string. `scope` holds the roots (`initial`, step ids, and the renamed `$env` / `$connections`). */
  async render(text: string, scope: Scope, lone: LoneExpressions = 'objects'): Promise<unknown> {
    if (!isTemplate(text)) return text;
    if (text.length > MAX_TEMPLATE_LENGTH) throw new TemplateError(`Template error: a template is at most ${MAX_TEMPLATE_LENGTH} characters`);
    const liquidText = toLiquid(text);
    const { templates, needs } = this.parse(liquidText);
    const data = typeof scope === 'function' ? await scope(needs) : scope;
    const single = SINGLE_EXPRESSION.exec(liquidText);
    if (single) {
      const value = await this.guard(() => this.liquid.evalValue(single[1], data));
      if (value !== null && typeof value === 'object') return value;
      if (lone === 'values' && (value === null || typeof value === 'number' || typeof value === 'boolean')) return value;
    }
    return this.guard(() => this.liquid.render(templates, data));
  }

  /** Renders every string inside a JSON-like value, keys untouched. */
  async renderDeep(value: unknown, scope: Scope, lone: LoneExpressions = 'objects'): Promise<unknown> {
    if (typeof value === 'string') return this.render(value, scope, lone);
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.renderDeep(v, scope, lone)));
    if (value !== null && typeof value === 'object') {
      const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await this.renderDeep(v, scope, lone)] as const));
      return Object.fromEntries(entries);
    }
    return value;
  }

  /** Renders each value of a string map to text (headers, query parameters). */
  async renderStrings(map: Record<string, string> | undefined, scope: Scope): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(map ?? {})) out[k] = asText(await this.render(v, scope));
    return out;
  }

  /** A `core.if` condition with Liquid's own truthiness: exactly what `{% if <condition> %}` would decide. */
  async test(condition: string, scope: Scope): Promise<boolean> {
    return (await this.render(`{% if ${condition} %}1{% endif %}`, scope)) === '1';
  }

  private parse(liquidText: string): Parsed {
    let parsed = this.parsed.get(liquidText);
    if (!parsed) {
      const templates = this.guardSync(() => this.liquid.parse(liquidText));
      parsed = { templates, needs: this.guardSync(() => dollarNeeds(this.liquid.globalVariableSegmentsSync(templates))) };
      if (this.parsed.size >= 500) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(liquidText, parsed);
    }
    return parsed;
  }

  private async guard<T>(work: () => Promise<T> | T): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw asTemplateError(err);
    }
  }

  private guardSync<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      throw asTemplateError(err);
    }
  }
}

/** How a rendered value reads in text: objects as JSON rather than "[object Object]". */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Every failure inside liquidjs (parse, render, its limits, which it reports
 * as an AssertionError) as a TemplateError: not retried, `$` roots restored,
 * first line only (liquidjs may quote the template). Scopes are built before
 * liquidjs runs, so no error of ours ever arrives wrapped in one of its.
 */
function asTemplateError(err: unknown): Error {
  if (err instanceof TemplateError) return err;
  // liquidjs wraps the cause and appends its position; the cause's own message is the one people read.
  const cause = (err as { originalError?: unknown }).originalError;
  const message = cause instanceof Error ? cause.message : String((err as Error).message);
  return new TemplateError(`Template error: ${templateMessage(message)}`);
}
