import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { DataSource as Database } from 'typeorm';
import { ident } from '../data-sources/serving-relation';
import { inlineParams } from './sql-params';

/** One CSV field as RFC 4180 wants it: quoted when it holds a comma, quote or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (fields: string[]) => `${fields.map(csvField).join(',')}\n`;

/**
 * Streams the rows of generated SQL as CSV through PostgreSQL's own COPY:
 * the database writes the rows (quoting commas, quotes and newlines), and the
 * bytes flow to the response with backpressure, so memory stays flat
 * however many rows there are. The header is written here: COPY's own would
 * cut titles to PostgreSQL's 63-byte identifiers.
 */
export class CsvExporter {
  constructor(private readonly db: Database) {}

  /** `columns` are the SQL's column aliases in output order; `header` their titles. */
  async stream(sql: string, params: unknown[], columns: string[], header: string[], out: Writable): Promise<void> {
    // TypeORM's pool: the export borrows one connection of the service's own.
    const pool = (this.db.driver as unknown as { master: Pool }).master;
    const client: PoolClient = await pool.connect();
    try {
      const inner = inlineParams(sql, params, (text) => client.escapeLiteral(text));
      const copy = client.query(copyTo(`COPY (SELECT ${columns.map((c) => `q.${ident(c)}`).join(', ')} FROM (${inner}) q) TO STDOUT WITH (FORMAT csv)`));
      out.write(csvLine(header));
      await pipeline(copy, out);
      client.release();
    } catch (err) {
      // A COPY cut short (the caller went away) leaves the connection mid-protocol: it is closed, not reused.
      client.release(err as Error);
      throw err;
    }
  }
}
