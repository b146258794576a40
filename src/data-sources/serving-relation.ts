import { ident, literal, qualified, SERVING_SCHEMA } from '../db/sql';
import type { FieldDefinition, FieldType, RecordSchema, WindowDimension } from './data-sources.schemas';

/**
 * SQL for a data source's serving relation: a table in the `analytics`
 * schema with one typed column per field, plus the record key and expiry.
 * Field names are checked identifiers (FIELD_NAME) and still quoted here.
 */
export const SERVING_ENGINE = 'postgres';

const COLUMN_TYPES: Record<FieldType, string> = { number: 'numeric', string: 'text', date: 'timestamptz' };
// The never-failing conversions of the CreateDataSources migration.
const CONVERSIONS: Record<FieldType, string> = { number: 'analytics.to_number', string: 'analytics.to_text', date: 'analytics.to_time' };

/** `ds_<uuid with underscores>`: the relation's name and the Cube name of the source. */
export function servingRelationName(dataSourceId: string): string {
  return `ds_${dataSourceId.replace(/-/g, '_')}`;
}

/** What the physical table depends on: changing any of it means a rebuild. */
export function physicalShape(schema: Pick<RecordSchema, 'fields'>): string {
  return JSON.stringify(
    Object.entries(schema.fields)
      .map(([name, f]) => [name, f.type, Boolean(f.timeDimension)])
      .sort(),
  );
}

export function timeField(schema: Pick<RecordSchema, 'fields'>): string {
  return Object.keys(schema.fields).find((n) => schema.fields[n].timeDimension)!;
}

export function createTableSql(relation: string, fields: Record<string, FieldDefinition>): string {
  const columns = Object.entries(fields).map(([name, f]) => `${ident(name)} ${COLUMN_TYPES[f.type]}`);
  return `CREATE TABLE ${qualified(relation)} (__key text COLLATE "C" PRIMARY KEY, __expires_at timestamptz, ${columns.join(', ')})`;
}

function projection(fields: Record<string, FieldDefinition>, row: string) {
  const names = Object.keys(fields);
  return {
    columns: ['__key', '__expires_at', ...names.map(ident)].join(', '),
    values: [`${row}.key`, `${row}.expires_at`, ...names.map((n) => `${CONVERSIONS[fields[n].type]}(${row}.value -> ${literal(n)})`)].join(', '),
    updates: ['__expires_at', ...names.map(ident)].map((c) => `${c} = EXCLUDED.${c}`).join(', '),
  };
}

/**
 * The upsert the record triggers run with the written rows as `new_rows`,
 * and the table's organization and name as $1 and $2.
 */
export function syncStatement(relation: string, fields: Record<string, FieldDefinition>): string {
  const p = projection(fields, 'n');
  return `INSERT INTO ${qualified(relation)} (${p.columns}) SELECT ${p.values} FROM new_rows n
    WHERE n.organization_id = $1 AND n.table_name = $2 AND n.key <> '__meta__'
    ON CONFLICT (__key) DO UPDATE SET ${p.updates}`;
}

/** Fills a new serving table from every record of the table, in time order ($1 organization, $2 table). */
export function fillStatement(relation: string, fields: Record<string, FieldDefinition>, time: string): string {
  const p = projection(fields, 'n');
  return `INSERT INTO ${qualified(relation)} (${p.columns}) SELECT ${p.values} FROM data_store_records n
    WHERE n.organization_id = $1 AND n.table_name = $2 AND n.key <> '__meta__'
    ORDER BY ${CONVERSIONS.date}(n.value -> ${literal(time)})`;
}

/** The analytics indexes: the time dimension, and each window dimension's partition and order. */
export function indexStatements(relation: string, time: string, windows: WindowDimension[]): { drop: string[]; create: string[] } {
  const indexes = [{ name: `${relation}_time`, columns: [time] }];
  windows.forEach((w, i) => indexes.push({ name: `${relation}_w${i}`, columns: [...w.partitionBy, w.orderBy] }));
  return {
    drop: [
      `DO $$ DECLARE i text; BEGIN
      FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = ${literal(SERVING_SCHEMA)} AND tablename = ${literal(relation)} AND indexname <> ${literal(`${relation}_pkey`)}
      LOOP EXECUTE format('DROP INDEX ${SERVING_SCHEMA}.%I', i); END LOOP; END $$`,
    ],
    create: indexes.map((ix) => `CREATE INDEX ${ident(ix.name)} ON ${qualified(relation)} (${ix.columns.map(ident).join(', ')})`),
  };
}
