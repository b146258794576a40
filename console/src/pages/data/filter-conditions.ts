import { type ColumnType, type FilterField, isDateLike, TYPE_LABEL } from './record-columns';

/**
 * The filter builder's conditions and their exact mapping onto the API's
 * `where` language (src/data-stores/record-filter.ts): every condition is
 * `{"<dot.path>": {"<$operator>": operand}}`, all of which must hold. The
 * value typed is checked against what the field holds before anything is
 * sent: the API compares like with like, so `amount > "5"` would match
 * nothing rather than fail.
 */

/** The builder's operators: the API's, plus `$exists` split in two and "is null" (`$eq` null). */
export type Operator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | 'present' | 'absent' | 'null';

/** One row of the builder as typed: the value is text until checked against the field. */
export interface Condition {
  field: string;
  operator: Operator;
  value: string;
}

const ORDERING: Operator[] = ['$gt', '$gte', '$lt', '$lte'];
const NO_VALUE: Operator[] = ['present', 'absent', 'null'];

/** Whether the operator takes a value at all. */
export const takesValue = (operator: Operator) => !NO_VALUE.includes(operator);

/** The operators a field of this type offers, with their labels (ordering reads as time for dates, alphabet for text). */
export function operatorsFor(type: ColumnType): Array<{ id: Operator; label: string }> {
  const presence = [
    { id: 'present' as const, label: 'is present' },
    { id: 'absent' as const, label: 'is absent' },
    { id: 'null' as const, label: 'is null' },
  ];
  const equality = [
    { id: '$eq' as const, label: 'is' },
    { id: '$ne' as const, label: 'is not' },
  ];
  switch (type) {
    case 'number':
    case 'mixed':
      return [
        { id: '$eq', label: '=' },
        { id: '$ne', label: '≠' },
        { id: '$gt', label: '>' },
        { id: '$gte', label: '≥' },
        { id: '$lt', label: '<' },
        { id: '$lte', label: '≤' },
        { id: '$in', label: 'is one of' },
        ...presence,
      ];
    case 'date':
      return [
        ...equality,
        { id: '$gt', label: 'after' },
        { id: '$gte', label: 'on or after' },
        { id: '$lt', label: 'before' },
        { id: '$lte', label: 'on or before' },
        ...presence,
      ];
    case 'string':
      return [
        ...equality,
        { id: '$in', label: 'is one of' },
        { id: '$gt', label: 'after (A–Z)' },
        { id: '$gte', label: 'from (A–Z)' },
        { id: '$lt', label: 'before (A–Z)' },
        { id: '$lte', label: 'up to (A–Z)' },
        ...presence,
      ];
    case 'boolean':
      return [...equality, ...presence];
    case 'object':
    case 'empty':
      return presence;
  }
}

/** What the value box asks for, as its hint. */
export function valueHint(type: ColumnType, operator: Operator): string {
  const list = operator === '$in' ? ', separated by commas' : '';
  switch (type) {
    case 'number':
      return `A number${list}, e.g. 42 or -3.5`;
    case 'date':
      return 'A date, e.g. 2026-03-10 or 2026-03-10T09:00:00Z (compared as written)';
    case 'mixed':
      return `5 is a number, "5" (quoted) is text, true/false/null as such${list}`;
    default:
      return list ? `Values${list}` : '';
  }
}

type Checked = { operand: unknown } | { problem: string };

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** One value typed as text, as the field's type: a number for a number field, and so on; else a problem naming the field. */
function typedValue(field: string, type: ColumnType, text: string, ordering: boolean): Checked {
  const trimmed = text.trim();
  switch (type) {
    case 'number':
      return JSON_NUMBER.test(trimmed) && Number.isFinite(Number(trimmed))
        ? { operand: Number(trimmed) }
        : { problem: `${field} holds numbers: "${text}" is not a number` };
    case 'boolean':
      return trimmed === 'true' || trimmed === 'false' ? { operand: trimmed === 'true' } : { problem: `${field} holds true or false` };
    case 'date':
      return isDateLike(trimmed) ? { operand: trimmed } : { problem: `${field} holds dates: write one as 2026-03-10 or 2026-03-10T09:00:00Z` };
    case 'mixed': {
      // Several kinds live in this field: the text says which one it means, as a JSON literal would.
      if (JSON_NUMBER.test(trimmed)) return { operand: Number(trimmed) };
      if (!ordering && (trimmed === 'true' || trimmed === 'false')) return { operand: trimmed === 'true' };
      if (!ordering && trimmed === 'null') return { operand: null };
      if (/^".*"$/s.test(trimmed)) {
        try {
          return { operand: JSON.parse(trimmed) as string };
        } catch {
          return { problem: `${field}: "${text}" is not a quoted text` };
        }
      }
      return { operand: text };
    }
    default:
      return { operand: text };
  }
}

/** The operand of one condition, or the problem to show at its value box. */
export function checkCondition(condition: Condition, type: ColumnType): Checked {
  const { field, operator, value } = condition;
  if (!operatorsFor(type).some((o) => o.id === operator)) {
    return { problem: `${field} holds ${TYPE_LABEL[type]} values: choose another comparison` };
  }
  if (operator === 'present') return { operand: true };
  if (operator === 'absent') return { operand: false };
  if (operator === 'null') return { operand: null };
  if (value.trim() === '' && type !== 'string') return { problem: `Give ${field} a value` };
  if (operator === '$in') {
    const items = value.split(',').filter((item) => item.trim() !== '');
    if (items.length === 0) return { problem: `Give ${field} at least one value` };
    if (items.length > 1000) return { problem: 'At most 1000 values' };
    const operands: unknown[] = [];
    for (const item of items) {
      const checked = typedValue(field, type, item.trim(), false);
      if ('problem' in checked) return checked;
      operands.push(checked.operand);
    }
    return { operand: operands };
  }
  return typedValue(field, type, value, ORDERING.includes(operator));
}

const API_OPERATOR: Record<Operator, string> = {
  $eq: '$eq',
  $ne: '$ne',
  $gt: '$gt',
  $gte: '$gte',
  $lt: '$lt',
  $lte: '$lte',
  $in: '$in',
  present: '$exists',
  absent: '$exists',
  null: '$eq',
};

/** At most this many conditions, as the API allows. */
export const MAX_CONDITIONS = 20;

export interface BuiltFilter {
  /** The `where` object to send, when every condition holds up. */
  where?: Record<string, Record<string, unknown>>;
  /** Problems by row index; a row with one shows it at its value box. */
  problems: Map<number, string>;
}

/**
 * The conditions as the API's `where` object, each value typed by its
 * field. A field not among `fields` (a link naming one this page does not
 * show) is read as `mixed`. Two conditions with the same field and operator
 * cannot both be said in a JSON object: the second is refused.
 */
export function buildWhere(conditions: Condition[], fields: FilterField[]): BuiltFilter {
  const problems = new Map<number, string>();
  const where: Record<string, Record<string, unknown>> = {};
  conditions.forEach((condition, index) => {
    const type = fields.find((f) => f.path === condition.field)?.type ?? 'mixed';
    if (!condition.field) {
      problems.set(index, 'Choose a field');
      return;
    }
    const checked = checkCondition(condition, type);
    if ('problem' in checked) {
      problems.set(index, checked.problem);
      return;
    }
    const operator = API_OPERATOR[condition.operator];
    const spec = (where[condition.field] ??= {});
    if (operator in spec) {
      problems.set(index, `${condition.field} already has this comparison; change or remove one of them`);
      return;
    }
    spec[operator] = checked.operand;
  });
  if (conditions.length > MAX_CONDITIONS) problems.set(MAX_CONDITIONS, `At most ${MAX_CONDITIONS} conditions`);
  return problems.size ? { problems } : { where: conditions.length ? where : undefined, problems };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function operandText(operand: unknown, type: ColumnType | undefined): string {
  // In a field of several kinds the text must say which kind it means: quote text that would read as another.
  if (type === undefined || type === 'mixed') {
    return typeof operand === 'string' && (JSON_NUMBER.test(operand.trim()) || /^(true|false|null|".*")$/s.test(operand.trim()))
      ? JSON.stringify(operand)
      : String(operand);
  }
  return String(operand);
}

/**
 * The conditions a `where` text stands for (the URL's, so a shared or
 * reloaded view shows its filter in the builder), or why it cannot be shown
 * there (hand-written JSON the builder has no control for).
 */
export function parseWhere(text: string, fields: FilterField[]): { conditions: Condition[] } | { problem: string } {
  if (!text.trim()) return { conditions: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'The filter in this address is not JSON; clear it to start again' };
  }
  if (!isPlainObject(parsed)) return { problem: 'The filter in this address is not a JSON object; clear it to start again' };
  const conditions: Condition[] = [];
  for (const [field, spec] of Object.entries(parsed)) {
    const type = fields.find((f) => f.path === field)?.type;
    const operatorObject = isPlainObject(spec) && Object.keys(spec).length > 0 && Object.keys(spec).every((k) => k.startsWith('$'));
    for (const [operator, operand] of operatorObject ? Object.entries(spec) : [['$eq', spec] as const]) {
      if (operator === '$exists' && typeof operand === 'boolean') {
        conditions.push({ field, operator: operand ? 'present' : 'absent', value: '' });
      } else if (operator === '$eq' && operand === null) {
        conditions.push({ field, operator: 'null', value: '' });
      } else if (operator === '$in' && Array.isArray(operand) && operand.every((v) => !isPlainObject(v) && !Array.isArray(v))) {
        conditions.push({ field, operator: '$in', value: operand.map((v) => operandText(v, type)).join(', ') });
      } else if (['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'].includes(operator) && ['string', 'number', 'boolean'].includes(typeof operand)) {
        conditions.push({ field, operator: operator as Operator, value: operandText(operand, type) });
      } else {
        return { problem: `The filter in this address has a condition on ${field} (${operator}) the builder cannot show; clear it to start again` };
      }
    }
  }
  return { conditions };
}
