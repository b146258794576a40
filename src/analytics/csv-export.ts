import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource as Database } from 'typeorm';
import { ident } from '../data-sources/serving-relation';
import { inlineParams } from './sql-params';

export interface CsvColumn {
  /** The column alias in the generated SQL. */
  alias: string;
  /** The header written for it. */
  title: string;
}

/**
 * Streams the rows of generated SQL as CSV through PostgreSQL's own COPY:
 * the database writes the CSV (quoting commas, quotes and newlines), and the
 * bytes flow to the response with backpressure, so memory stays flat
 * however many rows there are.
 */
export class CsvExporter {
  constructor(private readonly db: Database) {}

  async stream(sql: string, params: unknown[], columns: CsvColumn[], out: Writable): Promise<void> {
    // TypeORM's pool: the export borrows one connection of the service's own.
    const pool = (this.db.driver as unknown as { master: Pool }).master;
    const client: PoolClient = await pool.connect();
    try {
      const select = columns.map((c) => `q.${ident(c.alias)} AS ${ident(c.title)}`).join(', ');
      const inner = inlineParams(sql, params, (text) => client.escapeLiteral(text));
      await pipeline(client.query(copyTo(`COPY (SELECT ${select} FROM (${inner}) q) TO STDOUT WITH (FORMAT csv, HEADER true)`)), out);
      client.release();
    } catch (err) {
      // A COPY cut short (the caller went away) leaves the connection mid-protocol: it is closed, not reused.
      client.release(err as Error);
      throw err;
    }
  }
}
