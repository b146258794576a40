import { FIELD_NAME, type FieldDefinition, type FieldType, RESERVED_MEMBERS } from './data-sources.schemas';

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?\s*$/;
const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?)?(Z|[+-]([01]\d|2[0-3])(:?[0-5]\d)?)?$/;

/** The type a field's sampled values fit: number and date need every non-null value to fit; anything else is a string. */
function inferType(values: unknown[]): FieldType {
  const present = values.filter((v) => v !== null && v !== undefined && v !== '');
  if (present.length === 0) return 'string';
  if (present.every((v) => typeof v === 'number' || (typeof v === 'string' && NUMERIC.test(v)))) return 'number';
  if (present.every((v) => typeof v === 'string' && ISO_DATE.test(v))) return 'date';
  return 'string';
}

/** `order_total` → `Order total`. */
export function labelFor(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Fields seen in the sampled records that the schema lacks. Names that are
 * not identifiers (they could not become members) are listed as skipped.
 * New number fields are measures; no new field becomes the time dimension.
 */
export function newFieldsFrom(samples: Record<string, unknown>[], known: Set<string>): { fields: Record<string, FieldDefinition>; skipped: string[] } {
  const values = new Map<string, unknown[]>();
  for (const record of samples) {
    for (const [name, value] of Object.entries(record)) {
      if (known.has(name)) continue;
      if (!values.has(name)) values.set(name, []);
      values.get(name)!.push(value);
    }
  }
  const fields: Record<string, FieldDefinition> = {};
  const skipped: string[] = [];
  for (const [name, seen] of values) {
    if (!FIELD_NAME.test(name) || RESERVED_MEMBERS.has(name)) {
      skipped.push(name);
      continue;
    }
    const type = inferType(seen);
    fields[name] = { type, label: labelFor(name), ...(type === 'number' ? { measure: true } : {}) };
  }
  return { fields, skipped };
}
