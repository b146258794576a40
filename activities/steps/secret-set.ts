import type { SecretTracker } from '../../src/templates/secret-filters';

/** Secret values shorter than this are not masked: replacing every "1" or "eu" would garble outputs. */
const MIN_MASKED_LENGTH = 4;
export const MASK = '[secret]';

/**
 * The secret values one step touched, in every form the step may have
 * written them (as is, URL-encoded, JSON-escaped, and as filters transformed
 * them), and the masking of anything the service records.
 */
export class SecretSet implements SecretTracker {
  private readonly forms = new Set<string>();
  private pattern?: RegExp;

  get size(): number {
    return this.forms.size;
  }

  /** A secret value, with the forms it takes once encoded into a URL or JSON text. */
  add(value: string): void {
    if (value.length < MIN_MASKED_LENGTH) return;
    const forms = [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)];
    for (const form of forms) this.addForm(form);
  }

  transformed(input: string, transform: (secret: string) => string): void {
    for (const secret of this.within(input)) this.add(transform(secret));
  }

  sliced(input: string, start: number, length: number): void {
    const end = Math.min(input.length, start + length);
    for (const secret of this.within(input)) {
      for (let at = input.indexOf(secret); at !== -1; at = input.indexOf(secret, at + 1)) {
        const piece = input.slice(Math.max(at, start), Math.min(at + secret.length, end));
        this.add(piece);
      }
    }
  }

  encoded(input: string, output: string): void {
    if (this.within(input).length > 0) this.add(output);
  }

  /** A copy of `value` with every secret replaced by [secret], keys included. */
  mask<T>(value: T): T {
    if (this.forms.size === 0) return value;
    this.pattern ??= new RegExp(
      [...this.forms]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    const pattern = this.pattern;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return v.replace(pattern, MASK);
      if (Array.isArray(v)) return v.map(walk);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }

  /** The secret forms a value holds somewhere, given as its JSON text (strings and field names as JSON writes them). */
  formsIn(json: string): string[] {
    return [...this.forms].filter((form) => json.includes(form));
  }

  /** True when masking would change `value`: it holds a secret. */
  touches(value: unknown): boolean {
    return this.forms.size > 0 && JSON.stringify(this.mask(value)) !== JSON.stringify(value);
  }

  private within(input: string): string[] {
    return [...this.forms].filter((form) => input.includes(form));
  }

  private addForm(form: string): void {
    if (form.length < MIN_MASKED_LENGTH || this.forms.has(form)) return;
    this.forms.add(form);
    this.pattern = undefined;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
