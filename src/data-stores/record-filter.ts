import { z } from '../openapi/zod';
import { unstorableJson } from '../db/storable-json';

export const FILTER_OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$exists'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition on a record's value: the field at `path` compared with `operand`. */
export interface FilterCondition {
  path: string[];
  operator: FilterOperator;
  operand: unknown;
}

const MAX_CONDITIONS = 20;
const MAX_PATH_DEPTH = 10;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  isPlainObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));

/**
 * Value filters for record reads, written as a JSON object:
 * `{"status": "paid", "customer.country": {"$in": ["FR", "DE"]}, "total": {"$gte": 100}}`.
 * A plain value (object included) means equality; an object whose keys all
 * start with `$` holds operators. Every condition must hold.
 */
export const RecordFilter = {
  /** Parses the `where` text, reporting problems on `ctx` (as zod transforms do). */
  parseJson(text: string, ctx: z.RefinementCtx): FilterCondition[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"status":"paid"}' });
      return z.NEVER;
    }
    const problems: string[] = [];
    const conditions = RecordFilter.parse(parsed, problems);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return problems.length ? z.NEVER : conditions;
  },

  /** Validates an already-parsed filter object; problems are pushed as messages naming the field. */
  parse(where: unknown, problems: string[]): FilterCondition[] {
    if (!isPlainObject(where)) {
      problems.push('must be a JSON object of field conditions');
      return [];
    }
    const conditions: FilterCondition[] = [];
    for (const [field, spec] of Object.entries(where)) {
      const path = field.split('.');
      if (path.some((segment) => segment === '') || path.length > MAX_PATH_DEPTH) {
        problems.push(`"${field}": a field path is up to ${MAX_PATH_DEPTH} dot-separated, non-empty names`);
        continue;
      }
      const entries = isOperatorObject(spec) ? Object.entries(spec) : [['$eq', spec] as const];
      for (const [operator, operand] of entries) {
        const problem = checkOperand(operator, operand) ?? unstorableJson({ [field]: operand }, '')?.message;
        if (problem) problems.push(`"${field}" ${operator}: ${problem}`);
        else conditions.push({ path, operator: operator as FilterOperator, operand });
      }
    }
    if (conditions.length > MAX_CONDITIONS) problems.push(`at most ${MAX_CONDITIONS} conditions`);
    return conditions;
  },
};

function checkOperand(operator: string, operand: unknown): string | undefined {
  switch (operator) {
    case '$eq':
    case '$ne':
      return operand === undefined ? 'needs a value' : undefined;
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return typeof operand === 'number' || typeof operand === 'string' ? undefined : 'compares numbers or strings only';
    case '$in':
      return Array.isArray(operand) && operand.length > 0 && operand.length <= 1000 ? undefined : 'needs an array of 1 to 1000 values';
    case '$exists':
      return typeof operand === 'boolean' ? undefined : 'needs true or false';
    default:
      return `unknown operator; use one of ${FILTER_OPERATORS.join(', ')}`;
  }
}
