import type { EntityManager } from 'typeorm';
import { ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import type { AnalyticsSource } from './analytics-source.entity';
import { builtInRecordSchema, type BuiltInType, isBuiltInType, RUN_STEPS_TYPE, RUNS_TYPE } from './runs-source';
import { servingRelationName } from './serving-relation';

/**
 * The built-in sources every organization has over its own runs
 * (runs-source.ts): real rows of data_sources, so widgets, filters,
 * validation, CSV, the report PDF, export and the console reach them by id as
 * they reach any source. They have no serving relation (their Cube model reads
 * the run tables) and no data store table: `dataStoreTableName` holds their
 * type, which is no table name, so no record trigger and no share can name it.
 * Nobody changes them: see assertNotBuiltIn.
 */

export const BUILT_IN_SOURCES: ReadonlyArray<{ type: BuiltInType; name: string }> = [
  { type: RUNS_TYPE, name: 'Runs' },
  { type: RUN_STEPS_TYPE, name: 'Run steps' },
];

/**
 * Creates the organization's built-in sources in `manager`'s transaction; sources it already has are left as
 * they are (the unique index data_sources_built_in_key decides), so it may run again.
 */
export async function createBuiltInSources(manager: Pick<EntityManager, 'query'>, organizationId: string): Promise<void> {
  for (const { type, name } of BUILT_IN_SOURCES) {
    const id = newId();
    await manager.query(
      `INSERT INTO data_sources (id, suid, organization_id, user_id, name, type, data_store_table_name, table_organization_id, record_schema,
         window_dimensions, enabled, serving_engine, serving_relation, hot_path_mode, sync_statement)
       VALUES ($1, $2, $3, NULL, $4, $5, $5, $3, $6::jsonb, '[]'::jsonb, true, 'built-in', $7, 'retain', '')
       ON CONFLICT (organization_id, type) WHERE type LIKE 'flowbase:%' DO NOTHING`,
      [id, newSuid(), organizationId, name, type, JSON.stringify(builtInRecordSchema(type)), servingRelationName(id)],
    );
  }
}

export const isBuiltIn = (source: Pick<AnalyticsSource, 'type'>): boolean => isBuiltInType(source.type);

/**
 * 400 source_read_only for any change to a built-in source: its fields are the runs' own, its model is the
 * service's, and it has no serving relation to re-index or rebuild.
 */
export function assertNotBuiltIn(source: Pick<AnalyticsSource, 'type' | 'name'>, what: string): void {
  if (!isBuiltIn(source)) return;
  throw new ValidationError(
    `Data source "${source.name}" is built in (${source.type}) and read-only: it cannot ${what}. Build widgets over it, or a source of your own over a data store table`,
    [{ path: 'dataSourceId', message: 'a built-in source is read-only' }],
    'source_read_only',
  );
}
