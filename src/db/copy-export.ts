import { Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ident, inlineParams } from './sql';

export interface CopyExportOptions {
  databaseUrl: string;
  /** Connections of the export pool: exports running at once. */
  poolSize: number;
  /** Every export statement ends after this. */
  statementTimeoutMs: number;
}

/**
 * The export pool and PostgreSQL's COPY out: the database writes the rows as
 * CSV (quoting commas, quotes and newlines) and hands over the bytes as they
 * come. Exports run on a pool of their own, so a slow reader holds none of
 * the API's connections.
 */
export class CopyExport {
  private readonly pool: Pool;

  constructor(options: CopyExportOptions) {
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
   * Runs `SELECT <columns> FROM (<sql>)` as COPY … TO STDOUT in CSV (no
   * header) and gives the bytes to `consume`. When `consume` throws, leaving
   * its loop early destroys the COPY stream and the connection is closed,
   * which ends the query.
   */
  async csv(sql: string, params: unknown[], columns: string[], consume: (chunks: AsyncIterable<Buffer>) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      const inner = inlineParams(sql, params, (text) => client.escapeLiteral(text));
      const copy = client.query(copyTo(`COPY (SELECT ${columns.map((c) => `q.${ident(c)}`).join(', ')} FROM (${inner}) q) TO STDOUT WITH (FORMAT csv)`));
      await consume(copy);
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
