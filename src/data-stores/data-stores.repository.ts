import type { EntityManager } from 'typeorm';
import { isDeadlock } from '../db/database-errors';
import { type PreparedStatement, queryPrepared } from '../db/prepared-statement';
import { allowLongStatements } from '../db/statement-timeouts';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import { META_KEY } from './data-stores.schemas';
import { keyRange } from './key-range';
import type { FilterCondition } from './record-filter';

/** A record as stored (interface.md 2.8). */
export interface StoredRecord {
  id: string;
  suid: string;
  organizationId: string;
  tableName: string;
  key: string;
  value: Record<string, unknown>;
  expiresAt: Date | null;
  recordTimestamp: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** A validated write: the value already serialized (its size was checked on that text). */
export interface StagedRecord {
  key: string;
  valueJson: string;
  expiresAt: Date | null;
  /** null: the time of the write. */
  recordTimestamp: Date | null;
}

export type TableOrigin = 'api' | 'import' | 'workflow';

export interface TableSummary {
  tableName: string;
  recordCount: number;
  createdVia: TableOrigin;
  createdAt: Date;
}

export interface RecordQuery {
  prefix?: string;
  after?: string;
  where?: FilterCondition[];
  limit: number;
  offset: number;
}

const COLUMNS = `id, suid, organization_id AS "organizationId", table_name AS "tableName", key, value,
  expires_at AS "expiresAt", record_timestamp AS "recordTimestamp", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Expired rows are invisible everywhere; the purge removes them later. */
const live = (alias = '') => `(${alias}expires_at IS NULL OR ${alias}expires_at > now())`;

/**
 * Registers a table: its __meta__ row, inserted unless it is there already
 * ($1 organization, $2 table, $3 origin, $4 id, $5 suid; see registerParams).
 */
export const REGISTER_TABLE = `INSERT INTO data_store_records (id, suid, organization_id, table_name, key, value)
  VALUES ($4, $5, $1, $2, '${META_KEY}', jsonb_build_object('createdVia', $3::text))
  ON CONFLICT (organization_id, table_name, key) DO NOTHING`;
export const registerParams = (organizationId: string, tableName: string, origin: TableOrigin) => [organizationId, tableName, origin, newId(), newSuid()];

/**
 * The received share a write's table name stands for, when the organization
 * has no table of its own by that name: shared tables are read-only, and an
 * organization's own tables always win ($1 organization, $2 table name).
 * Asked in the write's own statement, so a write is one round trip.
 */
const READ_ONLY_SHARE = `read_only AS (
    SELECT s.id FROM data_store_shares s
    WHERE s.shared_to_organization_id = $1 AND s.alias = $2 AND s.revoked_at IS NULL
      AND NOT EXISTS (SELECT FROM data_store_records m WHERE m.organization_id = $1 AND m.table_name = $2 AND m.key = '${META_KEY}')
    ORDER BY s.created_at, s.id LIMIT 1)`;

/** Registers the table in the same statement as the write, unless the name is a read-only shared table. */
const ENSURE_TABLE = `meta AS (
    INSERT INTO data_store_records (id, suid, organization_id, table_name, key, value)
    SELECT $4, $5, $1, $2, '${META_KEY}', jsonb_build_object('createdVia', $3::text) WHERE NOT EXISTS (SELECT FROM read_only)
    ON CONFLICT (organization_id, table_name, key) DO NOTHING)`;

/**
 * A transaction lock per table ($1 = tableLockKey): imports hold it while
 * they load, and deleting the table takes it first, so a delete never runs
 * under an import that would then commit records into a table that is gone.
 */
export const TABLE_LOCK = 'hashtextextended($1, 0)';
export const tableLockKey = (organizationId: string, tableName: string) => `data-store-table:${organizationId}:${tableName}`;

/**
 * How a write replaces an existing row. A record past its expiry is gone for
 * readers, so overwriting it counts as a creation. A write that waited on a
 * lock may start before the row it replaces was written: updated_at never
 * goes back.
 */
export const REPLACE_ON_CONFLICT = `
    value = EXCLUDED.value,
    expires_at = EXCLUDED.expires_at,
    record_timestamp = EXCLUDED.record_timestamp,
    created_at = CASE WHEN r.expires_at <= now() THEN now() ELSE r.created_at END,
    updated_at = greatest(now(), r.updated_at)`;

/**
 * Writes rows given as parallel arrays ($6…$11), in key order so that
 * concurrent batches lock rows in the same order; nothing when the name is a
 * read-only shared table.
 */
const WRITE_ROWS = `INSERT INTO data_store_records AS r
    (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at)
  SELECT u.id, u.suid, $1, $2, u.key, u.value, u.expires_at, coalesce(u.record_timestamp, now()), now(), now()
  FROM unnest($6::uuid[], $7::text[], $8::text[], $9::jsonb[], $10::timestamptz[], $11::timestamptz[])
    AS u(id, suid, key, value, expires_at, record_timestamp)
  WHERE NOT EXISTS (SELECT FROM read_only)
  ORDER BY u.key COLLATE "C"
  ON CONFLICT (organization_id, table_name, key) DO UPDATE SET ${REPLACE_ON_CONFLICT}`;

/**
 * WRITE_ROWS for a single row, its fields as plain parameters ($6…$11): no
 * arrays for the client to build and escape and the server to parse, no sort.
 * Most API writes are one record.
 */
const WRITE_ONE_ROW = `INSERT INTO data_store_records AS r
    (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at)
  SELECT $6::uuid, $7::text, $1, $2, $8::text, $9::jsonb, $10::timestamptz, coalesce($11::timestamptz, now()), now(), now()
  WHERE NOT EXISTS (SELECT FROM read_only)
  ON CONFLICT (organization_id, table_name, key) DO UPDATE SET ${REPLACE_ON_CONFLICT}`;

/** Whether the returned row was created by this statement (inserted, or an expired one revived). */
export const WAS_CREATED = `(xmax = 0 OR created_at = now())`;

/**
 * One write in one statement: the read-only check, the table's registration
 * and the rows. Answers the written rows, each with "readOnlyShareId" null;
 * or, when the name is a read-only shared table, one row of nulls but
 * "readOnlyShareId" (nothing was written); or one row of nulls when nothing
 * was written otherwise (an insert whose key is taken).
 */
const writeStatement = (name: string, write: string, conflictCondition: string, returning: string): PreparedStatement => ({
  name,
  text: `WITH ${READ_ONLY_SHARE}, ${ENSURE_TABLE},
  written AS (${write} ${conflictCondition} RETURNING ${returning})
  SELECT w.*, s.id AS "readOnlyShareId" FROM (SELECT (SELECT id FROM read_only) AS id) s LEFT JOIN written w ON true`,
});
const UPSERT = writeStatement('data_store_upsert', WRITE_ROWS, '', `${COLUMNS}, ${WAS_CREATED} AS created`);
const UPSERT_ONE = writeStatement('data_store_upsert_one', WRITE_ONE_ROW, '', `${COLUMNS}, ${WAS_CREATED} AS created`);
/** A live record keeps its key: only an expired one is replaced. */
const INSERT = writeStatement('data_store_insert', WRITE_ROWS, 'WHERE r.expires_at <= now()', COLUMNS);

/** What a write did: the rows it wrote, or nothing because the name is a read-only shared table (that share's id). */
export type WriteResult<T> = { written: T[] } | { readOnlyShareId: string };

type WrittenRow<T> = Partial<T> & { readOnlyShareId: string | null };

function writeResult<T extends { id: string }>(rows: WrittenRow<T>[]): WriteResult<T> {
  const readOnlyShareId = rows[0]?.readOnlyShareId;
  if (readOnlyShareId) return { readOnlyShareId };
  return { written: rows.filter((r) => r.id != null).map(({ readOnlyShareId: _, ...row }) => row as unknown as T) };
}

/**
 * Every query of data store records. Plain SQL rather than the ORM: writes
 * need ON CONFLICT with conditions, reads need jsonb paths and key ranges.
 * Every method takes the organization; there is no unscoped read.
 */
export class DataStoresRepository {
  constructor(private readonly manager: EntityManager) {}

  /**
   * Upserts rows (keys unique among them) and registers the table, unless
   * the name is a read-only shared table; `created` tells new from replaced.
   */
  async upsert(
    organizationId: string,
    tableName: string,
    rows: StagedRecord[],
    origin: TableOrigin,
  ): Promise<WriteResult<{ record: StoredRecord; created: boolean }>> {
    const [statement, params] =
      rows.length === 1
        ? [UPSERT_ONE, this.oneRowParams(organizationId, tableName, rows[0], origin)]
        : [UPSERT, this.writeParams(organizationId, tableName, rows, origin)];
    const result = writeResult<StoredRecord & { created: boolean }>(await retryOnDeadlock(this.manager, () => queryPrepared(this.manager, statement, params)));
    if ('readOnlyShareId' in result) return result;
    return { written: result.written.map(({ created, ...record }) => ({ record, created })) };
  }

  /** Inserts one record unless a live one holds the key (`written` empty then), or the name is a read-only shared table. */
  async insert(organizationId: string, tableName: string, row: StagedRecord, origin: TableOrigin): Promise<WriteResult<StoredRecord>> {
    return writeResult(await queryPrepared(this.manager, INSERT, this.writeParams(organizationId, tableName, [row], origin)));
  }

  private writeParams(organizationId: string, tableName: string, rows: StagedRecord[], origin: TableOrigin): unknown[] {
    return [
      ...registerParams(organizationId, tableName, origin),
      rows.map(() => newId()),
      rows.map(() => newSuid()),
      rows.map((r) => r.key),
      rows.map((r) => r.valueJson),
      rows.map((r) => r.expiresAt),
      rows.map((r) => r.recordTimestamp),
    ];
  }

  /** The parameters of WRITE_ONE_ROW: those of writeParams with the row's fields in place of the arrays. */
  private oneRowParams(organizationId: string, tableName: string, row: StagedRecord, origin: TableOrigin): unknown[] {
    return [...registerParams(organizationId, tableName, origin), newId(), newSuid(), row.key, row.valueJson, row.expiresAt, row.recordTimestamp];
  }

  async find(organizationId: string, tableName: string, key: string, manager?: EntityManager): Promise<StoredRecord | null> {
    const rows: StoredRecord[] = await (manager ?? this.manager).query(
      `SELECT ${COLUMNS} FROM data_store_records
       WHERE organization_id = $1 AND table_name = $2 AND key = $3 AND ${live()}
       ${manager ? 'FOR UPDATE' : ''}`,
      [organizationId, tableName, key],
    );
    return rows[0] ?? null;
  }

  /**
   * Reads the live record under a row lock, lets `change` compute its new
   * state (throwing rolls everything back), and writes it. Null when absent.
   */
  async modify(organizationId: string, tableName: string, key: string, change: (current: StoredRecord) => StagedRecord): Promise<StoredRecord | null> {
    return this.manager.transaction(async (manager) => {
      const current = await this.find(organizationId, tableName, key, manager);
      if (!current) return null;
      const next = change(current);
      const rows: [StoredRecord[], number] = await manager.query(
        `UPDATE data_store_records SET value = $2::jsonb, expires_at = $3, record_timestamp = coalesce($4, record_timestamp), updated_at = greatest(now(), updated_at)
         WHERE id = $1 AND organization_id = $5 RETURNING ${COLUMNS}`,
        [current.id, next.valueJson, next.expiresAt, next.recordTimestamp, organizationId],
      );
      return rows[0][0];
    });
  }

  async deleteRecord(organizationId: string, tableName: string, key: string): Promise<StoredRecord | null> {
    const [rows]: [StoredRecord[], number] = await this.manager.query(
      `DELETE FROM data_store_records
       WHERE organization_id = $1 AND table_name = $2 AND key = $3 AND key <> '${META_KEY}' AND ${live()}
       RETURNING ${COLUMNS}`,
      [organizationId, tableName, key],
    );
    return rows[0] ?? null;
  }

  /** The live values of these keys (a page of them at most), by key; absent keys have no live record. */
  async valuesOf(organizationId: string, tableName: string, keys: string[]): Promise<Map<string, Record<string, unknown>>> {
    if (keys.length === 0) return new Map();
    const rows: { key: string; value: Record<string, unknown> }[] = await this.manager.query(
      `SELECT key, value FROM data_store_records
       WHERE organization_id = $1 AND table_name = $2 AND key = ANY($3::text[]) AND key <> '${META_KEY}' AND ${live()}`,
      [organizationId, tableName, keys],
    );
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /** Deletes the records of these keys in one statement; answers how many there were. */
  async deleteKeys(organizationId: string, tableName: string, keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const [, count]: [unknown, number] = await this.manager.query(
      `DELETE FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key = ANY($3::text[]) AND key <> '${META_KEY}'`,
      [organizationId, tableName, keys],
    );
    return count;
  }

  /** Live records of one table in key order, without the __meta__ row. */
  async query(organizationId: string, tableName: string, q: RecordQuery): Promise<StoredRecord[]> {
    const { sql, params } = this.recordConditions(organizationId, tableName, q);
    params.push(q.limit, q.offset);
    return this.manager.query(
      `SELECT ${COLUMNS} FROM data_store_records WHERE ${sql}
       ORDER BY key LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
  }

  async count(organizationId: string, tableName: string, q: Omit<RecordQuery, 'limit' | 'offset'>): Promise<number> {
    const { sql, params } = this.recordConditions(organizationId, tableName, q);
    const rows: Array<{ total: number }> = await this.manager.query(`SELECT count(*)::int AS total FROM data_store_records WHERE ${sql}`, params);
    return rows[0].total;
  }

  private recordConditions(organizationId: string, tableName: string, q: Omit<RecordQuery, 'limit' | 'offset'>) {
    const params: unknown[] = [organizationId, tableName];
    const where = ['organization_id = $1', 'table_name = $2', `key <> '${META_KEY}'`, live()];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (q.prefix) {
      // A range on the "C"-collated key is an index scan; LIKE with a parameter would not be.
      const range = keyRange(q.prefix);
      where.push(`key >= ${param(range.from)}`);
      if (range.before !== undefined) where.push(`key < ${param(range.before)}`);
    }
    if (q.after !== undefined) where.push(`key > ${param(q.after)}`);
    for (const c of q.where ?? []) where.push(conditionSql(c, param));
    return { sql: where.join(' AND '), params };
  }

  /** Every record of the organization across tables, __meta__ rows included. */
  async listAll(organizationId: string, page: Page): Promise<{ total: number; data: StoredRecord[] }> {
    const [data, totals]: [StoredRecord[], Array<{ total: number }>] = await Promise.all([
      this.manager.query(
        `SELECT ${COLUMNS} FROM data_store_records WHERE organization_id = $1 AND ${live()}
         ORDER BY table_name, key LIMIT $2 OFFSET $3`,
        [organizationId, page.limit, page.offset],
      ),
      this.manager.query(`SELECT count(*)::int AS total FROM data_store_records WHERE organization_id = $1 AND ${live()}`, [organizationId]),
    ]);
    return { total: totals[0].total, data };
  }

  /** Registers an empty table; false when it exists already. */
  async createTable(organizationId: string, tableName: string, origin: TableOrigin): Promise<boolean> {
    const inserted: unknown[] = await this.manager.query(`${REGISTER_TABLE} RETURNING id`, registerParams(organizationId, tableName, origin));
    return inserted.length === 1;
  }

  async tableExists(organizationId: string, tableName: string): Promise<boolean> {
    const rows: unknown[] = await this.manager.query(
      `SELECT 1 FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key = '${META_KEY}'`,
      [organizationId, tableName],
    );
    return rows.length > 0;
  }

  async findTable(organizationId: string, tableName: string): Promise<TableSummary | null> {
    const rows = await this.tables(organizationId, 'AND m.table_name = $2', [tableName]);
    return rows[0] ?? null;
  }

  async listTables(organizationId: string, page: Page): Promise<{ total: number; data: TableSummary[] }> {
    const [data, totals] = await Promise.all([
      this.tables(organizationId, 'ORDER BY m.table_name LIMIT $2 OFFSET $3', [page.limit, page.offset]),
      this.manager.query(`SELECT count(*)::int AS total FROM data_store_records WHERE organization_id = $1 AND key = '${META_KEY}'`, [
        organizationId,
      ]) as Promise<Array<{ total: number }>>,
    ]);
    return { total: totals[0].total, data };
  }

  private tables(organizationId: string, tail: string, params: unknown[]): Promise<TableSummary[]> {
    return this.manager.query(
      `SELECT m.table_name AS "tableName", m.value->>'createdVia' AS "createdVia", m.created_at AS "createdAt",
         (SELECT count(*)::int FROM data_store_records r
          WHERE r.organization_id = m.organization_id AND r.table_name = m.table_name
            AND r.key <> '${META_KEY}' AND ${live('r.')}) AS "recordCount"
       FROM data_store_records m
       WHERE m.organization_id = $1 AND m.key = '${META_KEY}' ${tail}`,
      [organizationId, ...params],
    );
  }

  /** Deletes a table with every record in it; null when there was no such table. */
  async deleteTable(organizationId: string, tableName: string): Promise<{ deletedRecords: number } | null> {
    return this.manager.transaction(async (manager) => {
      // Long: it waits for an import into the table to commit, then deletes every record (and their serving rows).
      await allowLongStatements(manager);
      await manager.query(`SELECT pg_advisory_xact_lock(${TABLE_LOCK})`, [tableLockKey(organizationId, tableName)]);
      return this.deleteTableRows(organizationId, tableName, manager);
    });
  }

  private async deleteTableRows(organizationId: string, tableName: string, manager: EntityManager): Promise<{ deletedRecords: number } | null> {
    const rows: Array<{ registered: boolean; records: number }> = await manager.query(
      `WITH gone AS (
         DELETE FROM data_store_records WHERE organization_id = $1 AND table_name = $2
         RETURNING key, ${live()} AS live)
       SELECT coalesce(bool_or(key = '${META_KEY}'), false) AS registered,
              (count(*) FILTER (WHERE key <> '${META_KEY}' AND live))::int AS records
       FROM gone`,
      [organizationId, tableName],
    );
    return rows[0].registered ? { deletedRecords: rows[0].records } : null;
  }

  /** Deletes up to `batch` expired records of any organization; rows locked by writers are skipped. */
  async purgeExpired(batch: number): Promise<number> {
    return this.manager.transaction(async (manager) => {
      // Long: the delete's triggers wait for any serving relation over those tables being rebuilt.
      await allowLongStatements(manager);
      const [, deleted]: [unknown[], number] = await manager.query(
        `DELETE FROM data_store_records WHERE id IN (
           SELECT id FROM data_store_records WHERE expires_at <= now()
           ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [batch],
      );
      return deleted;
    });
  }
}

/**
 * Runs a single-statement write again when PostgreSQL aborted it to break a
 * deadlock (an import holding rows in file order, say): on the pool the
 * statement is a transaction of its own, it is idempotent, and the other
 * party has moved on by then. Not inside a caller's transaction (`manager`
 * of a package install): PostgreSQL has aborted that whole transaction, and
 * every statement after it would only fail with "current transaction is
 * aborted". The deadlock goes up as it is, to the owner of the transaction,
 * which runs its whole unit again (PackagesRepository.transaction).
 */
async function retryOnDeadlock<T>(manager: EntityManager, write: () => Promise<T>, attempts = 3): Promise<T> {
  if (manager.queryRunner) return write();
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
    }
  }
}

/** SQL for one value filter; operands travel as parameters, paths as text[]. */
function conditionSql(c: FilterCondition, param: (value: unknown) => string): string {
  const field = `(value #> ${param(c.path)}::text[])`;
  switch (c.operator) {
    case '$eq':
      return `${field} = ${param(JSON.stringify(c.operand))}::jsonb`;
    case '$ne':
      return `${field} IS DISTINCT FROM ${param(JSON.stringify(c.operand))}::jsonb`;
    case '$in':
      return `${field} = ANY(${param((c.operand as unknown[]).map((v) => JSON.stringify(v)))}::jsonb[])`;
    case '$exists':
      return `${field} IS ${c.operand ? 'NOT ' : ''}NULL`;
    default: {
      // Ordering compares like with like: numbers with numbers, strings with strings.
      const op = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[c.operator];
      const type = typeof c.operand === 'number' ? 'number' : 'string';
      return `(jsonb_typeof(${field}) = '${type}' AND ${field} ${op} ${param(JSON.stringify(c.operand))}::jsonb)`;
    }
  }
}
