import { type EntityManager, In, IsNull } from 'typeorm';
import { allowLongStatements } from '../db/statement-timeouts';
import { isUniqueViolation } from '../db/unique-violation';
import { ConflictError } from '../errors/errors';
import { AnalyticsSource, type SyncConfig } from './analytics-source.entity';
import type { Expression } from './data-sources.schemas';
import { expressionSql, ident, LIVE, qualified } from '../db/sql';
import { createTableSql, fillStatement, indexStatements, syncStatement, timeField } from './serving-relation';

/** What a change to a source asks of its serving relation. */
export type RelationChange = 'none' | 'reindex' | 'rebuild';

/**
 * Data sources and their serving relations. Every method that builds or
 * drops a serving relation holds the table's advisory lock exclusively, so
 * the record triggers (which hold it shared) never write into a relation
 * that is being rebuilt, and no write is missed between fill and commit.
 * Those transactions run under the long statement timeout: filling a
 * relation from a million records takes longer than the usual bound, and
 * the lock waits for an import in flight to commit.
 */
export class DataSourcesRepository {
  constructor(private readonly manager: EntityManager) {}

  /** Newest first. */
  list(organizationId: string): Promise<AnalyticsSource[]> {
    return this.manager.getRepository(AnalyticsSource).find({ where: { organizationId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The organization's sources among `ids`, in one query (the caller bounds how many ids it asks for). */
  findMany(organizationId: string, ids: string[]): Promise<AnalyticsSource[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.manager.getRepository(AnalyticsSource).findBy({ organizationId, id: In(ids) });
  }

  /** The organization's built-in sources of the given types (data_sources_built_in_key: one of each). */
  findBuiltIns(organizationId: string, types: readonly string[]): Promise<AnalyticsSource[]> {
    return this.manager.getRepository(AnalyticsSource).findBy({ organizationId, type: In([...types]) });
  }

  find(organizationId: string, id: string): Promise<AnalyticsSource | null> {
    return this.manager.getRepository(AnalyticsSource).findOneBy({ organizationId, id });
  }

  /**
   * Saves the source, then creates and fills its serving relation, all in one
   * transaction; `guard` runs first in that transaction and may refuse.
   */
  async create(source: AnalyticsSource, guard?: (m: EntityManager) => Promise<void>): Promise<AnalyticsSource> {
    source.syncStatement = syncStatement(source.servingRelation, source.recordSchema.fields);
    return this.manager.transaction(async (m) => {
      await allowLongStatements(m);
      await guard?.(m);
      await this.lockTable(m, source);
      const saved = await m.save(AnalyticsSource, source);
      await this.build(m, saved);
      return saved;
    });
  }

  /**
   * Applies `change` to the source's row, locked, and saves it: concurrent
   * edits of one source take turns instead of overwriting each other. The
   * change says what the serving relation needs: nothing, new indexes, or a
   * rebuild from the records; `beforeRelationChange` may refuse a re-index
   * or a rebuild, inside the transaction, after the row lock and before the
   * table's lock is taken. Null when there is no such source.
   */
  async update(
    organizationId: string,
    id: string,
    change: (source: AnalyticsSource) => RelationChange,
    beforeRelationChange?: (m: EntityManager, source: AnalyticsSource) => Promise<void>,
  ): Promise<AnalyticsSource | null> {
    return this.manager.transaction(async (m) => {
      // The row lock too may wait for a rebuild of the same source.
      await allowLongStatements(m);
      const source = await this.lockRow(m, organizationId, id);
      if (!source) return null;
      const effect = change(source);
      source.syncStatement = syncStatement(source.servingRelation, source.recordSchema.fields);
      if (effect === 'none') return m.save(AnalyticsSource, source);
      await beforeRelationChange?.(m, source);
      await this.lockTable(m, source);
      if (effect === 'reindex') {
        await this.createIndexes(m, source, true);
        return m.save(AnalyticsSource, source);
      }
      await m.query(`DROP TABLE IF EXISTS ${qualified(source.servingRelation)}`);
      const saved = await m.save(AnalyticsSource, source);
      await this.build(m, saved);
      return saved;
    });
  }

  /** Deletes the source and drops its serving relation; false when there is no such source. */
  async delete(organizationId: string, id: string): Promise<boolean> {
    return this.manager.transaction(async (m) => {
      await allowLongStatements(m);
      // The row first, then the table's lock: the same order as update(), so the two never deadlock.
      const source = await this.lockRow(m, organizationId, id);
      if (!source) return false;
      await this.lockTable(m, source);
      await m.delete(AnalyticsSource, { organizationId, id });
      await m.query(`DROP TABLE IF EXISTS ${qualified(source.servingRelation)}`);
      return true;
    });
  }

  /** Record values of the source's table, newest first, to infer fields from. */
  sampleValues(source: AnalyticsSource, limit: number): Promise<Record<string, unknown>[]> {
    return this.sampleTable(source.tableOrganizationId, source.dataStoreTableName, limit);
  }

  /**
   * Live record values of one organization's table, newest first (a source may not exist over it yet), cut down in
   * the database to what inference reads: at most 500 top-level fields a record, objects and arrays as `{}`, strings
   * longer than 100 characters as a short one (neither can be a number or a date). A sample of records of 256 KiB
   * each would otherwise bring hundreds of megabytes into the process for a list of field names.
   */
  async sampleTable(tableOrganizationId: string, tableName: string, limit: number): Promise<Record<string, unknown>[]> {
    const rows: Array<{ value: Record<string, unknown> }> = await this.manager.query(
      `SELECT CASE WHEN jsonb_typeof(r.value) <> 'object' THEN '{}'::jsonb ELSE (
                SELECT coalesce(jsonb_object_agg(e.k, CASE
                         WHEN jsonb_typeof(e.v) IN ('object', 'array') THEN '{}'::jsonb
                         WHEN jsonb_typeof(e.v) = 'string' AND length(e.v #>> '{}') > 100 THEN '"(long text)"'::jsonb
                         ELSE e.v END), '{}'::jsonb)
                  FROM (SELECT key AS k, value AS v FROM jsonb_each(r.value) LIMIT 500) e
              ) END AS value
         FROM data_store_records r
        WHERE r.organization_id = $1 AND r.table_name = $2 AND r.key <> '__meta__' AND (r.expires_at IS NULL OR r.expires_at > now())
        ORDER BY r.updated_at DESC LIMIT $3`,
      [tableOrganizationId, tableName, limit],
    );
    return rows.map((r) => r.value);
  }

  /** The expression evaluated over the first `limit` live rows of the serving relation, in key order. */
  async preview(source: AnalyticsSource, expression: Expression, limit: number): Promise<Array<number | null>> {
    const sql = expressionSql(expression, (name) => ident(name));
    const rows: Array<{ v: string | null }> = await this.manager.query(
      `SELECT (${sql})::float8 AS v FROM ${qualified(source.servingRelation)} WHERE ${LIVE} ORDER BY __key LIMIT $1`,
      [limit],
    );
    return rows.map((r) => (r.v === null ? null : Number(r.v)));
  }

  /**
   * Closes the recipient's sources over a revoked share (the revocation has
   * committed, so they are unreadable already): first disabled, after the
   * owner's writes in flight have finished (their triggers still saw them
   * enabled), so no later write is copied into them; then emptied, so no copy
   * of the owner's rows stays behind. Emptying deletes rows rather than
   * truncating: it waits for no reader, and holds no lock the owner's writes need.
   */
  async closeShare(share: { id: string; ownerOrganizationId: string; tableName: string }): Promise<void> {
    const sources = await this.manager.transaction(async (m) => {
      await allowLongStatements(m);
      // Rows before the table's lock, as update() takes them.
      const found = await m.getRepository(AnalyticsSource).find({ where: { shareId: share.id }, lock: { mode: 'pessimistic_write' } });
      if (found.length === 0) return [];
      await m.update(AnalyticsSource, { shareId: share.id }, { enabled: false });
      await m.query('SELECT pg_advisory_xact_lock(analytics.table_lock_key($1, $2))', [share.ownerOrganizationId, share.tableName]);
      return found;
    });
    for (const source of sources) {
      await this.manager.transaction(async (m) => {
        await allowLongStatements(m);
        await m.query(`DELETE FROM ${qualified(source.servingRelation)}`);
      });
    }
  }

  /** How many sources read through the share. */
  countByShare(shareId: string): Promise<number> {
    return this.manager.getRepository(AnalyticsSource).countBy({ shareId });
  }

  /** For each (organization, own table), the type of the oldest feed-backed source over it; tables only custom sources read are absent. */
  async feedTypes(tables: Array<{ organizationId: string; tableName: string }>): Promise<Map<string, string>> {
    if (tables.length === 0) return new Map();
    const rows: Array<{ organization_id: string; data_store_table_name: string; type: string }> = await this.manager.query(
      `SELECT DISTINCT ON (s.organization_id, s.data_store_table_name) s.organization_id, s.data_store_table_name, s.type
       FROM data_sources s JOIN unnest($1::uuid[], $2::text[]) AS t(organization_id, table_name)
         ON s.organization_id = t.organization_id AND s.table_organization_id = t.organization_id AND s.data_store_table_name = t.table_name
       WHERE s.type <> 'custom'
       ORDER BY s.organization_id, s.data_store_table_name, s.created_at`,
      [tables.map((t) => t.organizationId), tables.map((t) => t.tableName)],
    );
    return new Map(rows.map((r) => [`${r.organization_id}/${r.data_store_table_name}`, r.type]));
  }

  private async build(m: EntityManager, source: AnalyticsSource): Promise<void> {
    const { fields } = source.recordSchema;
    await m.query(createTableSql(source.servingRelation, fields));
    await m.query(fillStatement(source.servingRelation, fields, timeField(source.recordSchema)), [source.tableOrganizationId, source.dataStoreTableName]);
    await this.createIndexes(m, source, false);
    await m.query(`ANALYZE ${qualified(source.servingRelation)}`);
  }

  /** The analytics indexes of the source's current model; `replace` drops the existing ones first. */
  private async createIndexes(m: EntityManager, source: AnalyticsSource, replace: boolean): Promise<void> {
    const ix = indexStatements(source.servingRelation, timeField(source.recordSchema), source.windowDimensions);
    for (const sql of [...(replace ? ix.drop : []), ...ix.create]) await m.query(sql);
  }

  private lockRow(m: EntityManager, organizationId: string, id: string): Promise<AnalyticsSource | null> {
    return m.getRepository(AnalyticsSource).findOne({ where: { organizationId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Waits for writes in flight to the table and holds new ones until this transaction ends. */
  private async lockTable(m: EntityManager, source: AnalyticsSource): Promise<void> {
    await m.query('SELECT pg_advisory_xact_lock(analytics.table_lock_key($1, $2))', [source.tableOrganizationId, source.dataStoreTableName]);
  }

  /** The organization's own source of a data feed (`type`) on a connection, or null (data_sources_feed_key makes it unique). */
  findFeedSource(organizationId: string, type: string, connectionId: string): Promise<AnalyticsSource | null> {
    return this.manager.getRepository(AnalyticsSource).findOneBy({ organizationId, type, connectionId, sharedFromOrganizationId: IsNull() });
  }

  /**
   * Merges `patch` into the source's syncConfig in one statement (jsonb
   * `||`), so sync progress never overwrites an edit of other columns made
   * meanwhile; false when there is no such source.
   */
  async mergeSyncConfig(organizationId: string, id: string, patch: Partial<SyncConfig>): Promise<boolean> {
    // An UPDATE answers [rows, count] through TypeORM.
    const [rows]: [unknown[], number] = await this.manager.query(
      `UPDATE data_sources SET sync_config = coalesce(sync_config, '{}'::jsonb) || $3::jsonb, updated_at = now()
       WHERE organization_id = $1 AND id = $2 RETURNING id`,
      [organizationId, id, JSON.stringify(patch)],
    );
    return rows.length > 0;
  }

  /** The connection name a feed source's runs look its connection up by (after the connection was renamed). */
  async setFeedConnectionName(organizationId: string, id: string, connectionName: string): Promise<void> {
    await this.manager.getRepository(AnalyticsSource).update({ organizationId, id }, { connectionName });
  }

  /**
   * Points a feed source at another connection; ConflictError
   * feed_source_exists when that connection already has a source of the feed
   * (the unique index data_sources_feed_key decides, also between racing requests).
   */
  async setFeedConnection(organizationId: string, id: string, connection: { id: string; name: string }): Promise<void> {
    try {
      await this.manager.getRepository(AnalyticsSource).update({ organizationId, id }, { connectionId: connection.id, connectionName: connection.name });
    } catch (err) {
      if (!isUniqueViolation(err, 'data_sources_feed_key')) throw err;
      throw new ConflictError(
        `Connection "${connection.name}" already has a data source of this feed; toggle that one, or delete it before attaching the connection here`,
        'feed_source_exists',
      );
    }
  }
}
