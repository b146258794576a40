import { AssertionError, LiquidError, type Liquid, type Template } from 'liquidjs';
import { fromLiquid, isTemplate, toLiquid } from './template-engine';

/** `{{ expression }}` and nothing else around it (whitespace aside). */
const SINGLE_EXPRESSION = /^\s*{{-?((?:(?!{{|}})[\s\S])*?)-?}}\s*$/;

/** A template that failed to parse or render; the message has `$` roots restored and no values. */
export class TemplateError extends Error {}

/**
 * Renders the templates inside step inputs. A string that is exactly one
 * `{{ expression }}` yielding an object or array becomes that value (2.1, the
 * return step's body); any other template renders to text. Plain strings are
 * returned untouched without parsing.
 */
export class TemplateRenderer {
  private readonly parsed = new Map<string, Template[]>();

  constructor(private readonly liquid: Liquid) {}

  /** Renders one string. `scope` holds the roots (`initial`, step ids, and the renamed `$env` / `$connections`). */
  async render(text: string, scope: object): Promise<unknown> {
    if (!isTemplate(text)) return text;
    const liquidText = toLiquid(text);
    const single = SINGLE_EXPRESSION.exec(liquidText);
    if (single) {
      const value = await this.guard(() => this.liquid.evalValue(single[1], scope));
      if (value !== null && typeof value === 'object' && !isDrop(value)) return value;
    }
    return this.guard(() => this.liquid.render(this.parse(liquidText), scope));
  }

  /** Renders every string inside a JSON-like value, keys untouched. */
  async renderDeep(value: unknown, scope: object): Promise<unknown> {
    if (typeof value === 'string') return this.render(value, scope);
    if (Array.isArray(value)) return Promise.all(value.map((v) => this.renderDeep(v, scope)));
    if (value !== null && typeof value === 'object') {
      const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await this.renderDeep(v, scope)] as const));
      return Object.fromEntries(entries);
    }
    return value;
  }

  /** Renders each value of a string map to text (headers, query parameters). */
  async renderStrings(map: Record<string, string> | undefined, scope: object): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(map ?? {})) out[k] = asText(await this.render(v, scope));
    return out;
  }

  /** A `core.if` condition with Liquid's own truthiness: exactly what `{% if <condition> %}` would decide. */
  async test(condition: string, scope: object): Promise<boolean> {
    const text = await this.guard(() => this.liquid.render(this.parse(toLiquid(`{% if ${condition} %}1{% endif %}`)), scope));
    return text === '1';
  }

  private parse(liquidText: string): Template[] {
    let templates = this.parsed.get(liquidText);
    if (!templates) {
      templates = this.guardSync(() => this.liquid.parse(liquidText));
      if (this.parsed.size >= 500) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(liquidText, templates);
    }
    return templates;
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

function isDrop(value: object): boolean {
  return typeof (value as { liquidMethodMissing?: unknown }).liquidMethodMissing === 'function';
}

function asTemplateError(err: unknown): Error {
  if (err instanceof TemplateError) return err;
  // An error thrown by a value resolver (a deleted connection, recursion too deep) reaches us wrapped by liquidjs.
  const original = (err as { originalError?: unknown }).originalError;
  // liquidjs reports its render limits as an AssertionError, which is not a LiquidError.
  if (original instanceof Error && !(original instanceof LiquidError) && !(original instanceof AssertionError)) return original;
  return new TemplateError(`Template error: ${fromLiquid(String((err as Error).message).split('\n')[0])}`);
}
