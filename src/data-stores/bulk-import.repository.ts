import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DataSource } from 'typeorm';
import { newId, newSuid } from '../ids';
import { META_KEY } from './data-stores.schemas';
import type { StagedRecord } from './data-stores.repository';

/** A record of an import and where it sits in the file (line or item number), for error reports. */
export type ImportRow = StagedRecord & { position: number };

/** Keys that appear more than once in one import, with the positions of their rows. */
export class DuplicateImportKeys extends Error {
  constructor(readonly duplicates: Array<{ key: string; rows: number[] }>) {
    super('duplicate keys in import');
  }
}

const CARDINALITY_VIOLATION = '21000';
const COPY_CHUNK_ROWS = 512;

/**
 * Loads a stream of records in one transaction: COPY into a temporary table
 * (PostgreSQL's fastest path in), then one INSERT … ON CONFLICT into
 * data_store_records. Either every row lands or none does; memory stays flat
 * because the stream only advances as fast as PostgreSQL takes rows.
 */
export class BulkImportRepository {
  constructor(private readonly db: DataSource) {}

  async importRecords(
    organizationId: string,
    tableName: string,
    rows: AsyncIterable<ImportRow>,
  ): Promise<{ created: number; updated: number }> {
    const runner = this.db.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    try {
      await client.query('BEGIN');
      await client.query(`
        CREATE TEMPORARY TABLE data_store_import (
          id uuid, suid text, key text COLLATE "C", value jsonb,
          expires_at timestamptz, record_timestamp timestamptz, position bigint
        ) ON COMMIT DROP`);
      await pipeline(Readable.from(copyText(rows)), client.query(copyFrom('COPY data_store_import FROM STDIN')));
      const counts = await this.upsertStaged(client, organizationId, tableName);
      await client.query('COMMIT');
      return counts;
    } catch (err) {
      // A connection too broken to roll back is already closed; the pool drops closed clients.
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  private async upsertStaged(client: PoolClient, organizationId: string, tableName: string) {
    await client.query(
      `INSERT INTO data_store_records (id, suid, organization_id, table_name, key, value)
       VALUES ($1, $2, $3, $4, '${META_KEY}', '{"createdVia": "import"}')
       ON CONFLICT (organization_id, table_name, key) DO NOTHING`,
      [newId(), newSuid(), organizationId, tableName],
    );
    await client.query('SAVEPOINT before_upsert');
    try {
      const { rows } = await client.query<{ created: number; updated: number }>(
        `WITH written AS (
           INSERT INTO data_store_records AS r
             (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at)
           SELECT id, suid, $1, $2, key, value, expires_at, coalesce(record_timestamp, now()), now(), now()
           FROM data_store_import
           ON CONFLICT (organization_id, table_name, key) DO UPDATE SET
             value = EXCLUDED.value,
             expires_at = EXCLUDED.expires_at,
             record_timestamp = EXCLUDED.record_timestamp,
             created_at = CASE WHEN r.expires_at <= now() THEN now() ELSE r.created_at END,
             updated_at = now()
           RETURNING (created_at = updated_at) AS created)
         SELECT (count(*) FILTER (WHERE created))::int AS created, (count(*) FILTER (WHERE NOT created))::int AS updated
         FROM written`,
        [organizationId, tableName],
      );
      return rows[0];
    } catch (err) {
      // ON CONFLICT cannot touch one row twice: the file repeats a key. Name the repeats.
      if ((err as { code?: string }).code !== CARDINALITY_VIOLATION) throw err;
      await client.query('ROLLBACK TO SAVEPOINT before_upsert');
      const { rows } = await client.query<{ key: string; rows: string[] }>(
        `SELECT key, array_agg(position ORDER BY position) AS rows FROM data_store_import
         GROUP BY key HAVING count(*) > 1 ORDER BY min(position) LIMIT 20`,
      );
      throw new DuplicateImportKeys(rows.map((r) => ({ key: r.key, rows: r.rows.map(Number) })));
    }
  }
}

/** COPY text format: tab-separated, \N for null, backslashes doubled (keys and JSON hold no raw tabs or newlines). */
async function* copyText(rows: AsyncIterable<ImportRow>): AsyncGenerator<string> {
  let chunk = '';
  let inChunk = 0;
  for await (const row of rows) {
    chunk +=
      `${newId()}\t${newSuid()}\t${escapeCopy(row.key)}\t${escapeCopy(row.valueJson)}\t` +
      `${row.expiresAt ? row.expiresAt.toISOString() : '\\N'}\t${row.recordTimestamp ? row.recordTimestamp.toISOString() : '\\N'}\t${row.position}\n`;
    if (++inChunk === COPY_CHUNK_ROWS) {
      yield chunk;
      chunk = '';
      inChunk = 0;
    }
  }
  if (chunk) yield chunk;
}

const escapeCopy = (text: string) => (text.includes('\\') ? text.replace(/\\/g, '\\\\') : text);
