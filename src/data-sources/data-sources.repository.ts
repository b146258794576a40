import type { DataSource as Database, EntityManager } from 'typeorm';
import { DataSource } from './data-source.entity';
import type { Expression } from './data-sources.schemas';
import { expressionSql } from './expression';
import {
  createTableSql,
  fillStatement,
  ident,
  indexStatements,
  qualified,
  SERVING_SCHEMA,
  syncStatement,
  timeField,
} from './serving-relation';

/** Rows that are live (not expired): every read of a serving relation filters with this. */
export const LIVE = '(__expires_at IS NULL OR __expires_at > now())';

/**
 * Data sources and their serving relations. Every method that builds or
 * drops a serving relation holds the table's advisory lock exclusively, so
 * the record triggers (which hold it shared) never write into a relation
 * that is being rebuilt, and no write is missed between fill and commit.
 */
export class DataSourcesRepository {
  constructor(private readonly db: Database) {}

  /** Newest first. */
  list(organizationId: string): Promise<DataSource[]> {
    return this.db.getRepository(DataSource).find({ where: { organizationId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  find(organizationId: string, id: string): Promise<DataSource | null> {
    return this.db.getRepository(DataSource).findOneBy({ organizationId, id });
  }

  /** Saves the source, then creates and fills its serving relation, all in one transaction. */
  async create(source: DataSource): Promise<DataSource> {
    return this.db.transaction(async (m) => {
      await this.lockTable(m, source);
      const saved = await m.save(DataSource, source);
      await this.build(m, saved);
      return saved;
    });
  }

  /** Saves changes that do not touch the serving relation (names, labels, calculated fields). */
  save(source: DataSource): Promise<DataSource> {
    return this.db.getRepository(DataSource).save(source);
  }

  /** Saves the source and rebuilds its serving relation from the records (schema change, re-enable). */
  async saveAndRebuild(source: DataSource): Promise<DataSource> {
    return this.db.transaction(async (m) => {
      await this.lockTable(m, source);
      await m.query(`DROP TABLE IF EXISTS ${qualified(source.servingRelation)}`);
      const saved = await m.save(DataSource, source);
      await this.build(m, saved);
      return saved;
    });
  }

  /** Drops and recreates the analytics indexes; the rows are untouched. */
  async reindex(source: DataSource): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.lockTable(m, source);
      const ix = indexStatements(source.servingRelation, timeField(source.recordSchema), source.windowDimensions);
      for (const sql of [...ix.drop, ...ix.create]) await m.query(sql);
    });
  }

  async delete(source: DataSource): Promise<void> {
    await this.db.transaction(async (m) => {
      await this.lockTable(m, source);
      await m.delete(DataSource, { organizationId: source.organizationId, id: source.id });
      await m.query(`DROP TABLE IF EXISTS ${qualified(source.servingRelation)}`);
    });
  }

  /** Record values of the table, newest first, to infer fields from. */
  async sampleValues(source: DataSource, limit: number): Promise<Record<string, unknown>[]> {
    const rows: Array<{ value: Record<string, unknown> }> = await this.db.query(
      `SELECT value FROM data_store_records
       WHERE organization_id = $1 AND table_name = $2 AND key <> '__meta__' AND (expires_at IS NULL OR expires_at > now())
       ORDER BY updated_at DESC LIMIT $3`,
      [source.tableOrganizationId, source.dataStoreTableName, limit],
    );
    return rows.map((r) => r.value);
  }

  /** The expression evaluated over the first `limit` live rows of the serving relation, in key order. */
  async preview(source: DataSource, expression: Expression, limit: number): Promise<Array<number | null>> {
    const sql = expressionSql(expression, (name) => ident(name));
    const rows: Array<{ v: string | null }> = await this.db.query(
      `SELECT (${sql})::float8 AS v FROM ${qualified(source.servingRelation)} WHERE ${LIVE} ORDER BY __key LIMIT $1`,
      [limit],
    );
    return rows.map((r) => (r.v === null ? null : Number(r.v)));
  }

  /** Names of the analytics indexes of a source (for operators and tests). */
  async indexNames(source: DataSource): Promise<string[]> {
    const rows: Array<{ indexname: string }> = await this.db.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 ORDER BY indexname`,
      [SERVING_SCHEMA, source.servingRelation],
    );
    return rows.map((r) => r.indexname);
  }

  private async build(m: EntityManager, source: DataSource): Promise<void> {
    const { fields } = source.recordSchema;
    const time = timeField(source.recordSchema);
    await m.query(createTableSql(source.servingRelation, fields));
    await m.query(fillStatement(source.servingRelation, fields, time), [source.tableOrganizationId, source.dataStoreTableName]);
    for (const sql of indexStatements(source.servingRelation, time, source.windowDimensions).create) await m.query(sql);
    await m.query(`ANALYZE ${qualified(source.servingRelation)}`);
  }

  /** Waits for writes in flight to the table and holds new ones until this transaction ends. */
  private async lockTable(m: EntityManager, source: DataSource): Promise<void> {
    await m.query('SELECT pg_advisory_xact_lock(analytics.table_lock_key($1, $2))', [source.tableOrganizationId, source.dataStoreTableName]);
  }
}

/** The sync statement a source's schema needs (kept on the row for the triggers). */
export function withSyncStatement(source: DataSource): DataSource {
  source.syncStatement = syncStatement(source.servingRelation, source.recordSchema.fields);
  return source;
}
