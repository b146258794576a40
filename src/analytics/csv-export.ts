import type { Writable } from 'node:stream';
import { Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ident, inlineParams } from '../db/sql';

/** One CSV field as RFC 4180 wants it: quoted when it holds a comma, quote or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (fields: string[]) => `${fields.map(csvField).join(',')}\n`;

export interface CsvExporterOptions {
  databaseUrl: string;
  /** Connections of the export pool: exports running at once. */
  poolSize: number;
  /** Every export statement ends after this. */
  statementTimeoutMs: number;
  /** A reader that takes no bytes for this long is cut off. */
  idleTimeoutMs: number;
}

/** The reader of an export took no bytes for the idle timeout; it was cut off. */
export class StalledReader extends Error {
  constructor(idleTimeoutMs: number) {
    super(`the reader took nothing for ${idleTimeoutMs} ms`);
  }
}

/**
 * Streams the rows of generated SQL as CSV through PostgreSQL's own COPY:
 * the database writes the rows (quoting commas, quotes and newlines), and the
 * bytes flow to the response with backpressure, so memory stays flat
 * however many rows there are. The header is written here: COPY's own would
 * cut titles to PostgreSQL's 63-byte identifiers.
 *
 * Exports run on a pool of their own, so a slow reader holds none of the
 * API's connections, and one that takes nothing for the idle timeout is cut
 * off: its connection is closed, which ends the query.
 */
export class CsvExporter {
  private readonly pool: Pool;

  constructor(private readonly options: CsvExporterOptions) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize,
      statement_timeout: options.statementTimeoutMs,
      application_name: 'flowbase-export',
      // Idle connections do not keep the process alive: a process that never calls close() can still exit.
      allowExitOnIdle: true,
    });
    // A connection that drops while idle is discarded by the pool; the next export opens a new one.
    this.pool.on('error', () => undefined);
  }

  /**
   * `columns` are the SQL's column aliases in output order; `header` their
   * titles. The response starts with the first rows, so a query that fails
   * before any (a timeout, say) can still be answered with an error.
   */
  async stream(sql: string, params: unknown[], columns: string[], header: string[], out: { start(): Writable }): Promise<void> {
    const client = await this.pool.connect();
    try {
      const inner = inlineParams(sql, params, (text) => client.escapeLiteral(text));
      const copy = client.query(copyTo(`COPY (SELECT ${columns.map((c) => `q.${ident(c)}`).join(', ')} FROM (${inner}) q) TO STDOUT WITH (FORMAT csv)`));
      let res: Writable | undefined;
      const begin = () => {
        res = out.start();
        res.write(csvLine(header));
        return res;
      };
      try {
        // Leaving the loop early (a throw) destroys the COPY stream.
        for await (const chunk of copy) {
          const target = res ?? begin();
          if (!target.write(chunk)) await drained(target, this.options.idleTimeoutMs);
        }
      } catch (err) {
        res?.destroy();
        throw err;
      }
      (res ?? begin()).end();
      client.release();
    } catch (err) {
      // A COPY cut short leaves the connection mid-protocol: pg closes its socket rather than reuse it, which ends the query.
      client.release(err as Error);
      throw err;
    }
  }

  /** Closes the export pool (at shutdown). */
  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Resolves when `out` takes data again; rejects when it is gone, or takes nothing for `idleMs`. */
function drained(out: Writable, idleMs: number): Promise<void> {
  if (out.destroyed) return Promise.reject(new Error('the caller left'));
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      clearTimeout(timer);
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error('the caller left'));
    const timer = setTimeout(() => settle(new StalledReader(idleMs)), idleMs);
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}
