import type { Response } from 'express';
import type { Writable } from 'node:stream';
import type { CopyExport } from '../db/copy-export';

/** `<title>-<YYYY-MM-DD>.csv` (UTC date). */
export function exportFileName(title: string, today = new Date()): string {
  return `${title.trim() || 'export'}-${today.toISOString().slice(0, 10)}.csv`;
}

/** Starts a CSV answer as an attachment named from `title`, when the first row is ready (a refusal before it is still a JSON error). */
export function csvAttachment(res: Response, title: string): () => Writable {
  return () => {
    // Express's attachment() writes Content-Disposition with an ASCII fallback and the exact UTF-8 name, and sets text/csv.
    res.status(200).attachment(exportFileName(title));
    res.setHeader('Cache-Control', 'no-store');
    return res;
  };
}

/** One CSV field as RFC 4180 wants it: quoted when it holds a comma, quote or line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (fields: string[]) => `${fields.map(csvField).join(',')}\n`;

/** The reader of an export took no bytes for the idle timeout; it was cut off. */
export class StalledReader extends Error {
  constructor(idleTimeoutMs: number) {
    super(`the reader took nothing for ${idleTimeoutMs} ms`);
  }
}

/**
 * Streams the rows of generated SQL as CSV through PostgreSQL's own COPY
 * (CopyExport): the bytes flow to the response with backpressure, so memory
 * stays flat however many rows there are. The header is written here: COPY's
 * own would cut titles to PostgreSQL's 63-byte identifiers.
 *
 * A reader that takes nothing for the idle timeout is cut off: its
 * connection is closed, which ends the query.
 */
export class CsvExporter {
  constructor(
    private readonly copy: CopyExport,
    /** A reader that takes no bytes for this long is cut off. */
    private readonly idleTimeoutMs: number,
  ) {}

  /**
   * `columns` are the SQL's column aliases in output order; `header` their
   * titles. The response starts with the first rows, so a query that fails
   * before any (a timeout, say) can still be answered with an error.
   */
  stream(sql: string, params: unknown[], columns: string[], header: string[], out: { start(): Writable }): Promise<void> {
    return this.copy.csv(sql, params, columns, async (chunks) => {
      let res: Writable | undefined;
      const begin = () => {
        res = out.start();
        res.write(csvLine(header));
        return res;
      };
      try {
        // Leaving the loop early (a throw) destroys the COPY stream.
        for await (const chunk of chunks) {
          const target = res ?? begin();
          if (!target.write(chunk)) await drained(target, this.idleTimeoutMs);
        }
      } catch (err) {
        res?.destroy();
        throw err;
      }
      (res ?? begin()).end();
    });
  }

  /** Closes the export pool (at shutdown): the exporter is its only user. */
  close(): Promise<void> {
    return this.copy.close();
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
