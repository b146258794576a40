import type { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import type { FieldType } from '../src/data-sources/data-sources.schemas';
import { expressionSql, ident, LIVE, qualified } from '../src/db/sql';

/**
 * One Cube data model file per data source: the cube is named like the
 * serving relation (`ds_<uuid with underscores>`), its members are the
 * source's fields (measure fields as sums), its calculated fields and its
 * window dimensions, plus `count`. Every user string reaches the generated
 * JavaScript through JSON.stringify; SQL identifiers are checked names, quoted.
 */

const DIMENSION_TYPES: Record<FieldType, string> = { date: 'time', string: 'string', number: 'number' };

/** Cube reads the results cache for at most this long before checking for newer data: the freshness bound of queries. */
export const REFRESH_EVERY = '1 second';

const column = (name: string) => '${CUBE}.' + ident(name);

/** The SELECT a cube reads: live rows, plus one computed column per window dimension over all of them (`lifetime`). */
function baseSql(source: AnalyticsSource): string {
  const table = qualified(source.servingRelation);
  if (source.windowDimensions.length === 0) return `SELECT * FROM ${table} WHERE ${LIVE}`;
  const windows = source.windowDimensions.map((w) => {
    const partition = w.partitionBy.length ? `PARTITION BY ${w.partitionBy.map((p) => `t.${ident(p)}`).join(', ')} ` : '';
    // The key breaks ties, so numbering is stable from one query to the next.
    return `row_number() OVER (${partition}ORDER BY t.${ident(w.orderBy)} ${w.direction.toUpperCase()} NULLS LAST, t.__key) AS ${ident(w.name)}`;
  });
  return `SELECT t.*, ${windows.join(', ')} FROM ${table} t WHERE ${LIVE.replace(/__expires_at/g, 't.__expires_at')}`;
}

/** A built-in source's model (src/data-sources/runs-source.ts): its own SELECT and members, the key hidden as in every cube. */
function builtInDefinition(source: AnalyticsSource, builtIn: NonNullable<AnalyticsSource['builtIn']>): object {
  const dimensions: Record<string, object> = { __key: { sql: column('__key'), type: 'string', primaryKey: true, shown: false } };
  for (const [name, d] of Object.entries(builtIn.dimensions)) dimensions[name] = { sql: column(name), type: d.type, title: d.title };
  const measures: Record<string, object> = {};
  for (const [name, m] of Object.entries(builtIn.measures)) {
    measures[name] = { sql: m.sql, type: m.type, title: m.title, ...(m.format ? { format: m.format } : {}), meta: { builtIn: true } };
  }
  return { sql: builtIn.sql, title: source.name, refreshKey: { every: REFRESH_EVERY }, measures, dimensions };
}

export function cubeModel(source: AnalyticsSource): string {
  const definition = source.builtIn ? builtInDefinition(source, source.builtIn) : tableDefinition(source);
  // `${CUBE}` must stay a template placeholder for Cube's compiler, so sql strings become template literals.
  // Keys unquoted: Cube's transpiler recognises `sql:` properties by their identifier keys.
  const js = JSON.stringify(definition, null, 2)
    .replace(/^(\s*)"([A-Za-z_]\w*)":/gm, '$1$2:')
    .replace(/^(\s*)sql: "((?:[^"\\]|\\.)*)"/gm, (_m, indent: string, body: string) => `${indent}sql: \`${JSON.parse(`"${body}"`).replace(/`/g, '\\`')}\``);
  return `cube(${JSON.stringify(source.servingRelation)}, ${js});\n`;
}

/** The model of a source over a data store table: its serving relation's columns. */
function tableDefinition(source: AnalyticsSource): object {
  // count(*): counting the key column would read it for nothing.
  const measures: Record<string, object> = { count: { type: 'count', sql: '*', title: 'Count' } };
  const dimensions: Record<string, object> = { __key: { sql: column('__key'), type: 'string', primaryKey: true, shown: false } };
  for (const [name, field] of Object.entries(source.recordSchema.fields)) {
    if (field.measure) measures[name] = { sql: column(name), type: 'sum', title: field.label };
    else dimensions[name] = { sql: column(name), type: DIMENSION_TYPES[field.type], title: field.label };
  }
  for (const c of source.recordSchema.calculatedFields) {
    const sql = expressionSql(c.expression, column);
    // A calculated measure sums the per-row value, like a native measure field.
    if (c.measure) measures[c.name] = { sql, type: 'sum', title: c.label, meta: { calculated: true } };
    else dimensions[c.name] = { sql, type: 'number', title: c.label, meta: { calculated: true } };
  }
  for (const w of source.windowDimensions) dimensions[w.name] = { sql: column(w.name), type: 'number', title: w.label, meta: { window: true } };

  return { sql: baseSql(source), title: source.name, refreshKey: { every: REFRESH_EVERY }, measures, dimensions };
}
