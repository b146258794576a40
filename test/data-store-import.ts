import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type request from 'supertest';
import { createApp } from '../src/app/app';
import { createServices } from '../src/app/services';
import { seedRecords, type TestOrg } from './factories';
import { as, expectError, type Harness } from './harness';

/**
 * Helpers of the data store import tests (data-stores-import-*.integration.test.ts):
 * POST /data-stores/tables/:tableName/import with a raw body, and what a
 * failed import must leave behind (nothing, or the table as it was).
 */

export const CONTENT_TYPE = { csv: 'text/csv', json: 'application/json', ndjson: 'application/x-ndjson' } as const;
export type Format = keyof typeof CONTENT_TYPE;

export interface ImportOptions {
  query?: string;
  token?: string;
  app?: Express;
  contentType?: string;
  headers?: Record<string, string>;
  /** How long to wait for the answer; a request that hangs fails the test after this. */
  timeoutMs?: number;
}

/** Lines joined with LF and a final newline. */
export const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

export type Rec = Record<string, any>;

export type Detail = { path: string; message: string };
export const detailsOf = (res: request.Response): Detail[] => res.body.error.details ?? [];
export const pathsOf = (res: request.Response) => detailsOf(res).map((d) => d.path);

/** Sends `chunks` with Transfer-Encoding: chunked (no Content-Length) to a listening copy of `app`. */
export async function postChunked(app: Express, path: string, headers: Record<string, string>, chunks: Buffer[]) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<{ status: number; body: Rec }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      // The server may answer (and close) before the whole body is sent.
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * The helpers that need the file's harness, which its beforeAll starts:
 * `harness` is called only when a helper runs.
 */
export function dataStoreImports(harness: () => Harness) {
  /** POSTs `body` raw to the import route (as the owner unless `token` is given). */
  function importFile(org: TestOrg, table: string, format: Format, body: string | Buffer, o: ImportOptions = {}) {
    const req = as(o.app ?? harness().app, o.token ?? org.ownerToken)
      .post(`/data-stores/tables/${table}/import${o.query ? `?${o.query}` : ''}`)
      .set('Content-Type', o.contentType ?? CONTENT_TYPE[format])
      .timeout(o.timeoutMs ?? 5000);
    for (const [name, value] of Object.entries(o.headers ?? {})) req.set(name, value);
    // superagent would JSON-encode a Buffer sent as application/json; send the bytes as they are.
    if (Buffer.isBuffer(body)) req.serialize((b: any) => b);
    return req.send(body);
  }
  const importCsv = (org: TestOrg, table: string, text: string | Buffer, query?: string) => importFile(org, table, 'csv', text, { query });
  const importJson = (org: TestOrg, table: string, items: unknown) => importFile(org, table, 'json', JSON.stringify(items));
  const importNdjson = (org: TestOrg, table: string, text: string) => importFile(org, table, 'ndjson', text);

  /** Every live record of a table through the API, keyed by record key. */
  async function recordsOf(org: TestOrg, table: string): Promise<Record<string, Rec>> {
    const res = await as(harness().app, org.ownerToken).get(`/data-stores/tables/${table}?limit=1000`);
    expect(res.status).toBe(200);
    return Object.fromEntries((res.body.data as Rec[]).map((r) => [r.key, r]));
  }

  /** Just the values, keyed by record key. */
  async function valuesOf(org: TestOrg, table: string): Promise<Record<string, Rec>> {
    const records = await recordsOf(org, table);
    return Object.fromEntries(Object.entries(records).map(([k, r]) => [k, r.value]));
  }

  /** The table's entry in GET /data-stores/tables, if any. */
  async function tableEntry(org: TestOrg, table: string): Promise<Rec | undefined> {
    const res = await as(harness().app, org.ownerToken).get('/data-stores/tables?limit=1000');
    expect(res.status).toBe(200);
    return (res.body.data as Rec[]).find((t) => t.tableName === table);
  }

  /** Rows stored for the organization (one table, or all), __meta__ rows included, straight from SQL. */
  async function rowCount(org: TestOrg, table?: string): Promise<number> {
    const rows: Array<{ n: number }> = await harness().services.db.query(
      `SELECT count(*)::int AS n FROM data_store_records WHERE organization_id = $1 ${table ? 'AND table_name = $2' : ''}`,
      table ? [org.organizationId, table] : [org.organizationId],
    );
    return rows[0].n;
  }

  /** The table does not exist in any form: not listed, 404 on read, no rows at all. */
  async function expectNoTable(org: TestOrg, table: string) {
    expect(await tableEntry(org, table)).toBeUndefined();
    expectError(await as(harness().app, org.ownerToken).get(`/data-stores/tables/${table}`), 404, 'not_found');
    expect(await rowCount(org, table)).toBe(0);
  }

  /** A table snapshot that must survive a failed import unchanged: API records and the raw rows. */
  async function snapshot(org: TestOrg, table: string) {
    const raw: Rec[] = await harness().services.db.query(
      `SELECT key, value, expires_at, record_timestamp, created_at, updated_at FROM data_store_records
       WHERE organization_id = $1 AND table_name = $2 ORDER BY key`,
      [org.organizationId, table],
    );
    return { records: await recordsOf(org, table), raw, entry: await tableEntry(org, table) };
  }

  /** Writes records through the ordinary upsert route (not the import). */
  const seed = (org: TestOrg, table: string, records: Array<{ key: string; value: Rec }>) => seedRecords(harness().app, org, table, records);

  /** Pool clients currently checked out of the app's connection pool. */
  function checkedOut(): number {
    const pool = (harness().services.db.driver as unknown as { master: { totalCount: number; idleCount: number } }).master;
    return pool.totalCount - pool.idleCount;
  }

  /** An app like the harness's but whose import limit is `importLimitBytes`, on the same database and Temporal connection. */
  function appWithImportLimit(importLimitBytes: number): Express {
    const { config, logger, db, keyring, temporal } = harness().services;
    return createApp(createServices({ config: { ...config, dataStores: { ...config.dataStores, importLimitBytes } }, logger, db, keyring, temporal }));
  }

  return {
    importFile,
    importCsv,
    importJson,
    importNdjson,
    recordsOf,
    valuesOf,
    tableEntry,
    rowCount,
    expectNoTable,
    snapshot,
    seed,
    checkedOut,
    appWithImportLimit,
  };
}
