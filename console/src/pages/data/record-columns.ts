/**
 * Columns for a page of data store records. A table has no schema: its
 * columns are read off the values shown, the top-level keys of the value
 * objects in order of first appearance, each typed by what its values hold.
 */

/** What a column holds: `date` is a string that reads as an ISO 8601 date; `mixed` is several kinds; `empty` only nulls. */
export type ColumnType = 'number' | 'string' | 'boolean' | 'date' | 'object' | 'mixed' | 'empty';

export interface Column {
  name: string;
  type: ColumnType;
  /** In how many of the records the key is present. */
  present: number;
}

/** A field the filter builder offers: a top-level column or a path into an object column (`customer.country`). */
export interface FilterField {
  path: string;
  type: ColumnType;
}

/** 2026-03-10, 2026-03-10T03:30, 2026-03-10 03:30:00.5Z, 2026-03-10T03:30:00+02:00 */
const ISO_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether text reads as an ISO 8601 date or date-time (what CSV imports and workflow steps usually store). */
export const isDateLike = (text: string): boolean => ISO_DATE.test(text);

/** The kind of one JSON value; null is `empty` (an empty CSV cell) and does not decide a column's type. */
export function kindOf(value: unknown): ColumnType {
  if (value === null || value === undefined) return 'empty';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return isDateLike(value) ? 'date' : 'string';
  return 'object';
}

/** Two kinds seen in one column: dates among other text make it text; anything else unlike is `mixed`. */
function merge(a: ColumnType, b: ColumnType): ColumnType {
  if (a === b || b === 'empty') return a;
  if (a === 'empty') return b;
  if ((a === 'date' && b === 'string') || (a === 'string' && b === 'date')) return 'string';
  return 'mixed';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The columns of these values: every top-level key, in alphabetical order, typed by its values. */
export function inferColumns(values: ReadonlyArray<Record<string, unknown>>): Column[] {
  const columns = new Map<string, Column>();
  for (const value of values) {
    if (!isObject(value)) continue;
    for (const [name, cell] of Object.entries(value)) {
      const column = columns.get(name);
      if (column) {
        column.type = merge(column.type, kindOf(cell));
        column.present++;
      } else {
        columns.set(name, { name, type: kindOf(cell), present: 1 });
      }
    }
  }
  // Alphabetical: PostgreSQL keeps a value's keys in its own order (shortest first), not as they were written.
  return [...columns.values()].sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/** Nesting the builder offers paths into (the API takes up to 10 levels; three cover what people filter on). */
const MAX_FIELD_DEPTH = 3;

/**
 * The fields a filter can name: each column, and inside object columns their
 * keys as dot paths. The API splits paths on dots, so a key holding a dot (or
 * empty) cannot be named and is left out.
 */
export function filterFields(values: ReadonlyArray<Record<string, unknown>>, depth = 1): FilterField[] {
  const fields: FilterField[] = [];
  for (const column of inferColumns(values)) {
    if (column.name === '' || column.name.includes('.')) continue;
    fields.push({ path: column.name, type: column.type });
    if (column.type !== 'object' || depth >= MAX_FIELD_DEPTH) continue;
    const inner = values.map((v) => (isObject(v) ? v[column.name] : undefined)).filter(isObject);
    for (const nested of filterFields(inner, depth + 1)) fields.push({ path: `${column.name}.${nested.path}`, type: nested.type });
  }
  return fields;
}

const CELL_CHARS = 80;

/** One cell's text: numbers in the reader's locale, objects as compact JSON cut to fit, absent keys blank. */
export function cellText(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'number') return value.toLocaleString(undefined, { maximumFractionDigits: 20 });
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS - 1)}…` : text;
}

/** How a column's type is named to people: in headers ("amount · number") and in the builder's messages. */
export const TYPE_LABEL: Record<ColumnType, string> = {
  number: 'number',
  string: 'text',
  boolean: 'true/false',
  date: 'date',
  object: 'object',
  mixed: 'mixed',
  empty: 'empty',
};
