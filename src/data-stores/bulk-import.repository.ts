import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { EntityManager } from 'typeorm';
import { isDeadlock } from '../db/database-errors';
import { allowLongStatements } from '../db/statement-timeouts';
import { newId, newSuid } from '../ids';
import { REGISTER_TABLE, registerParams, REPLACE_ON_CONFLICT, type StagedRecord, TABLE_LOCK, tableLockKey, WAS_CREATED } from './data-stores.repository';
import { Semaphore } from '../lib/semaphore';

/** A record of an import and where it sits in the file (line or item number, increasing), for error reports. */
export type ImportRow = StagedRecord & { position: number };

/** Keys that appear more than once in one import, with the positions of their rows. */
export class DuplicateImportKeys extends Error {
  constructor(readonly duplicates: Array<{ key: string; rows: number[] }>) {
    super('duplicate keys in import');
  }
}

/** PostgreSQL broke a deadlock between this import and other writes to the same records by aborting the import. */
export class ImportDeadlocked extends Error {}

const CARDINALITY_VIOLATION = '21000';
/** A segment ends at this many rows or bytes of COPY text: what is held in memory twice over (one loading, the next being read). */
const SEGMENT_ROWS = 50_000;
const SEGMENT_BYTES = 32 * 1024 * 1024;
/**
 * Imports running at once in this process. Each holds a database connection
 * for as long as its upload lasts; the rest of the pool stays free for the API.
 */
const CONCURRENT_IMPORTS = 3;

interface Segment {
  /** COPY text per batch, as buffers: off the JS heap, so a segment waiting its turn does not grow it. */
  text: Buffer[];
  rows: number;
  lastPosition: number;
}

/**
 * Loads a stream of records in one transaction, so either every row lands
 * or none does. The stream is cut into segments; each is COPied into a
 * temporary table (PostgreSQL's fastest way in) and then upserted into
 * data_store_records with one INSERT … ON CONFLICT, while the next segment
 * is read and parsed. Memory stays bounded by two segments whatever the
 * file size, and parsing overlaps the database's work. Built over the
 * pool's EntityManager: an import is a transaction of its own, on a
 * connection of its own, and refuses to start inside another one.
 */
export class BulkImportRepository {
  private readonly slots = new Semaphore(CONCURRENT_IMPORTS);

  constructor(private readonly manager: EntityManager) {}

  async importRecords(organizationId: string, tableName: string, batches: AsyncIterable<ImportRow[]>): Promise<{ created: number; updated: number }> {
    // On a connection of its own, the import would commit whether or not the transaction it was asked to join does.
    if (this.manager.queryRunner) throw new Error('An import runs in a transaction of its own; it cannot join one');
    const rows = batches[Symbol.asyncIterator]();
    // No connection is taken before there is something to load: a caller that never sends holds none.
    const next = readSegment(rows);
    try {
      await next;
    } catch (err) {
      void rows.return?.().catch(() => undefined);
      throw err;
    }
    return this.slots.run(() => this.load(organizationId, tableName, rows, next));
  }

  private async load(
    organizationId: string,
    tableName: string,
    rows: AsyncIterator<ImportRow[]>,
    first: Promise<Segment>,
  ): Promise<{ created: number; updated: number }> {
    const runner = this.manager.connection.createQueryRunner();
    // The runner's own connection: COPY needs the pg client, the transaction is begun and ended through the runner.
    const client = (await runner.connect()) as PoolClient;
    let next = first;
    try {
      await runner.startTransaction();
      // A segment's upsert may run long, and between segments the transaction waits for the upload: both get the long bound.
      await allowLongStatements(runner.manager, { waitsForUpload: true });
      // Imports into one table take turns (two would lock the same rows in file order and deadlock), and a table delete waits for them.
      await client.query(`SELECT pg_advisory_xact_lock(${TABLE_LOCK})`, [tableLockKey(organizationId, tableName)]);
      await client.query(`
        CREATE TEMPORARY TABLE data_store_import (
          id uuid, suid text, key text COLLATE "C", value jsonb,
          expires_at timestamptz, record_timestamp timestamptz, position bigint
        ) ON COMMIT DROP`);
      await client.query('CREATE INDEX ON data_store_import (position)');

      const counts = { created: 0, updated: 0 };
      let after = -1; // positions start at 0 (JSON item numbers) or 1 (lines)
      for (let segment = await next; segment.rows > 0; segment = await next) {
        await pipeline(Readable.from(segment.text), client.query(copyFrom('COPY data_store_import FROM STDIN')));
        // Read the next segment while the database upserts this one; not during the COPY, which it would slow.
        next = readSegment(rows);
        next.catch(() => undefined); // awaited on the next turn; a failure meanwhile must not go unhandled
        const written = await this.upsertSegment(client, organizationId, tableName, after, segment.lastPosition);
        counts.created += written.created;
        counts.updated += written.updated;
        after = segment.lastPosition;
      }
      // Within one segment ON CONFLICT catches a repeated key; across segments only this does.
      await this.rejectRepeatedKeys(client);
      // Registered last: a __meta__ row inserted at the start would hold back every other writer to a new table until now.
      await client.query(REGISTER_TABLE, registerParams(organizationId, tableName, 'import'));
      await runner.commitTransaction();
      return counts;
    } catch (err) {
      // A connection too broken to roll back is already closed; the pool drops closed clients.
      await runner.rollbackTransaction().catch(() => undefined);
      void rows.return?.().catch(() => undefined);
      if (isDeadlock(err)) throw new ImportDeadlocked();
      throw err;
    } finally {
      await runner.release();
    }
  }

  private async upsertSegment(client: PoolClient, organizationId: string, tableName: string, after: number, upTo: number) {
    await client.query('SAVEPOINT segment');
    try {
      const { rows } = await client.query<{ created: number; updated: number }>(
        `WITH written AS (
           INSERT INTO data_store_records AS r
             (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at)
           SELECT id, suid, $1, $2, key, value, expires_at, coalesce(record_timestamp, now()), now(), now()
           FROM data_store_import WHERE position > $3 AND position <= $4
           ON CONFLICT (organization_id, table_name, key) DO UPDATE SET ${REPLACE_ON_CONFLICT}
           RETURNING ${WAS_CREATED} AS created)
         SELECT (count(*) FILTER (WHERE created))::int AS created, (count(*) FILTER (WHERE NOT created))::int AS updated
         FROM written`,
        [organizationId, tableName, after, upTo],
      );
      await client.query('RELEASE SAVEPOINT segment');
      return rows[0];
    } catch (err) {
      // ON CONFLICT cannot touch one row twice: the segment repeats a key.
      if ((err as { code?: string }).code !== CARDINALITY_VIOLATION) throw err;
      await client.query('ROLLBACK TO SAVEPOINT segment');
      await this.rejectRepeatedKeys(client);
      throw err;
    }
  }

  /** Throws DuplicateImportKeys naming the repeated keys, if any, with the positions of their rows. */
  private async rejectRepeatedKeys(client: PoolClient): Promise<void> {
    const { rows } = await client.query<{ key: string; rows: string[] }>(
      `SELECT key, array_agg(position ORDER BY position) AS rows FROM data_store_import
       GROUP BY key HAVING count(*) > 1 ORDER BY min(position) LIMIT 20`,
    );
    if (rows.length > 0) throw new DuplicateImportKeys(rows.map((r) => ({ key: r.key, rows: r.rows.map(Number) })));
  }
}

/** Reads batches until a segment's worth of rows, as COPY text (empty at the end of the stream). */
async function readSegment(rows: AsyncIterator<ImportRow[]>): Promise<Segment> {
  const segment: Segment = { text: [], rows: 0, lastPosition: 0 };
  let bytes = 0;
  while (segment.rows < SEGMENT_ROWS && bytes < SEGMENT_BYTES) {
    const next = await rows.next();
    if (next.done) break;
    if (next.value.length === 0) continue;
    const text = copyText(next.value);
    bytes += text.length;
    segment.text.push(text);
    segment.rows += next.value.length;
    segment.lastPosition = next.value[next.value.length - 1].position;
  }
  return segment;
}

/** COPY text format: tab-separated, \N for null, backslashes doubled (keys and JSON hold no raw tabs or newlines). */
function copyText(rows: ImportRow[]): Buffer {
  let text = '';
  for (const row of rows) {
    const expiresAt = row.expiresAt ? row.expiresAt.toISOString() : '\\N';
    const recordTimestamp = row.recordTimestamp ? row.recordTimestamp.toISOString() : '\\N';
    text += `${newId()}\t${newSuid()}\t${escapeCopy(row.key)}\t${escapeCopy(row.valueJson)}\t${expiresAt}\t${recordTimestamp}\t${row.position}\n`;
  }
  return Buffer.from(text, 'utf8');
}

const escapeCopy = (text: string) => (text.includes('\\') ? text.replace(/\\/g, '\\\\') : text);
