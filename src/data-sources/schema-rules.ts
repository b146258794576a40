import type { FieldIssue } from '../errors/errors';
import type { AnalyticsSource } from './analytics-source.entity';
import { type CalculatedField, type Expression, RESERVED_MEMBERS, type RecordSchema, type WindowDimension } from './data-sources.schemas';
import { expressionIdentifiers, expressionSizeProblem } from './expression';

/**
 * Cross-field rules of a source's model: fields, calculated fields and
 * window dimensions share one namespace (they are all Cube members of the
 * source), and expressions and windows may name only native fields.
 */

/** Every member name taken on the source, but the member with `exceptId`. */
export function takenNames(schema: RecordSchema, windows: WindowDimension[], exceptId?: string): Set<string> {
  return new Set([
    ...RESERVED_MEMBERS,
    ...Object.keys(schema.fields),
    ...schema.calculatedFields.filter((c) => c.id !== exceptId).map((c) => c.name),
    ...windows.filter((w) => w.id !== exceptId).map((w) => w.name),
  ]);
}

/** Problems of an expression over the schema's native fields (empty when it is fine). */
export function expressionIssues(schema: Pick<RecordSchema, 'fields'>, expression: Expression, at = 'expression'): FieldIssue[] {
  const size = expressionSizeProblem(expression);
  if (size) return [{ path: at, message: `the expression ${size}` }];
  const issues: FieldIssue[] = [];
  for (const name of new Set(expressionIdentifiers(expression))) {
    const field = schema.fields[name];
    if (!field) issues.push({ path: at, message: `names "${name}", which is not a field of this source` });
    else if (field.type !== 'number')
      issues.push({ path: at, message: `names "${name}", a ${field.type} field; only number fields can be used in arithmetic` });
  }
  return issues;
}

/** A calculated field or window dimension must not reuse a name of the source (its own old name aside). */
function nameIssues(schema: RecordSchema, windows: WindowDimension[], member: { id?: string; name: string }, prefix: string): FieldIssue[] {
  if (!takenNames(schema, windows, member.id).has(member.name)) return [];
  return [{ path: `${prefix}name`, message: `"${member.name}" is already a field, calculated field or window dimension of this source` }];
}

export function calculatedFieldIssues(
  schema: RecordSchema,
  windows: WindowDimension[],
  field: Omit<CalculatedField, 'id'> & { id?: string },
  at = '',
): FieldIssue[] {
  const prefix = at ? `${at}.` : '';
  return [...nameIssues(schema, windows, field, prefix), ...expressionIssues(schema, field.expression, `${prefix}expression`)];
}

export function windowDimensionIssues(
  schema: RecordSchema,
  windows: WindowDimension[],
  w: Omit<WindowDimension, 'id'> & { id?: string },
  at = '',
): FieldIssue[] {
  const prefix = at ? `${at}.` : '';
  const issues = nameIssues(schema, windows, w, prefix);
  w.partitionBy.forEach((name, i) => {
    if (!schema.fields[name]) issues.push({ path: `${prefix}partitionBy.${i}`, message: `"${name}" is not a field of this source` });
  });
  if (!schema.fields[w.orderBy]) issues.push({ path: `${prefix}orderBy`, message: `"${w.orderBy}" is not a field of this source` });
  return issues;
}

/** Every calculated field and window dimension checked against a (new) schema. */
export function modelIssues(schema: RecordSchema, windows: WindowDimension[]): FieldIssue[] {
  return [
    ...schema.calculatedFields.flatMap((c, i) => calculatedFieldIssues(schema, windows, c, `recordSchema.calculatedFields.${i}`)),
    ...windows.flatMap((w, i) => windowDimensionIssues(schema, windows, w, `windowDimensions.${i}`)),
  ];
}

/**
 * Why the source cannot serve window dimensions, or null. They are computed
 * by the serving engine over every row a source holds (`lifetime`), which
 * needs one row per record in a relation of this service's own PostgreSQL:
 * aggregate (feed) sources and sources read through a share do not qualify.
 */
export function windowUnsupportedReason(source: AnalyticsSource): string | null {
  if (source.servingEngine !== 'postgres') return `the serving engine "${source.servingEngine}" cannot compute window functions`;
  if (source.type !== 'custom') return 'feed-backed sources hold aggregates, not one row per record';
  if (source.sharedFromOrganizationId) return "a source read through a share cannot add window dimensions to the owner's table";
  return null;
}
