import type { MemberAnnotation } from './types';

/** How a member's values are written: from its annotated type and format. */
export type ValueFormatter = (value: unknown) => string;

/** A value the answer holds as a number (Cube answers numbers as strings); null when it is none. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** Cube's `format` may be a name or an object with a `type` (newer Cube versions). */
function formatName(format: unknown): string | undefined {
  if (typeof format === 'string') return format;
  if (format !== null && typeof format === 'object' && typeof (format as { type?: unknown }).type === 'string') return (format as { type: string }).type;
  return undefined;
}

/**
 * The formatter of a numeric member: `currency` in `currency` (USD unless the
 * widget says), `percent` as the number followed by % (Cube's percent
 * measures hold the percentage, not the fraction), `id` as the plain digits,
 * anything else grouped with at most two decimals.
 */
export function numberFormatter(annotation: MemberAnnotation | undefined, locale: string, currency = 'USD'): ValueFormatter {
  const name = formatName(annotation?.format);
  const grouped = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  let write: (n: number) => string;
  if (name === 'currency') write = new Intl.NumberFormat(locale, { style: 'currency', currency }).format;
  else if (name === 'percent') write = (n) => `${grouped.format(n)}%`;
  else if (name === 'id') write = (n) => String(n);
  else write = grouped.format;
  return (value) => {
    const n = toNumber(value);
    if (n === null) return value === null || value === undefined ? '—' : String(value);
    return write(n);
  };
}
