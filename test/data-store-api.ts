import type request from 'supertest';
import { as, expectError, expectStatus, type Harness } from './harness';
import { insertRecord, seedRecords, type TestOrg, waitFor } from './factories';

/**
 * Helpers of the data store API tests (data-stores-*.integration.test.ts):
 * the routes' URLs, the record shape of interface.md 2.8, reads through the
 * API as the owner, and the rows as stored. Each call that writes or reads
 * fails the test unless the API answers with the expected status.
 */

export type Json = Record<string, any>;
export type Query = Record<string, string | number>;
export type Client = ReturnType<typeof as>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** interface.md 2.8, exactly. */
export const RECORD_FIELDS = ['createdAt', 'expiresAt', 'id', 'key', 'organizationId', 'recordTimestamp', 'suid', 'tableName', 'updatedAt', 'value'];
export const TABLE_FIELDS = ['createdAt', 'createdVia', 'recordCount', 'tableName'];
export const MAX_VALUE_BYTES = 256 * 1024;

export const tableUrl = (table: string) => `/data-stores/tables/${encodeURIComponent(table)}`;
export const recordUrl = (table: string, key: string) => `${tableUrl(table)}/records/${encodeURIComponent(key)}`;

/** A value whose JSON serialization is exactly `bytes` bytes long. */
export const valueOfSize = (bytes: number) => ({ a: 'x'.repeat(bytes - '{"a":""}'.length) });
/** PostgreSQL "C" collation order: UTF-8 bytes, i.e. code points. */
export const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
export const ms = (iso: string) => new Date(iso).getTime();
export const recordsOf = (entries: Record<string, Json>) => Object.entries(entries).map(([key, value]) => ({ key, value }));

/** A 400 whose details name `path`. */
export function expectInvalid(res: request.Response, path: string, code = 'validation_failed') {
  expectError(res, 400, code);
  expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
}

export function expectRecordShape(r: Json) {
  expect(Object.keys(r).sort()).toEqual(RECORD_FIELDS);
  expect(r.id).toMatch(UUID);
  expect(typeof r.suid).toBe('string');
  expect(r.suid.length).toBeGreaterThan(0);
  for (const field of ['recordTimestamp', 'createdAt', 'updatedAt']) expect(new Date(r[field]).toISOString()).toBe(r[field]);
  if (r.expiresAt !== null) expect(new Date(r.expiresAt).toISOString()).toBe(r.expiresAt);
}

/** Starts a supertest request now (they are lazy) and returns its promise. */
export const start = (req: request.Test): Promise<request.Response> => new Promise((resolve, reject) => req.then(resolve, reject));

/**
 * The helpers that need the file's harness, which its beforeAll starts:
 * `harness` is called only when a helper runs.
 */
export function dataStoreApi(harness: () => Harness) {
  const owner = (org: TestOrg) => as(harness().app, org.ownerToken);

  const insert = (org: TestOrg, body: Json): Promise<Json> => insertRecord(harness().app, org, body);

  /** Batch upsert as the owner; the table is created if needed. */
  const seed = (org: TestOrg, table: string, records: Record<string, Json>) => seedRecords(harness().app, org, table, records);

  async function put(org: TestOrg, table: string, key: string, body: Json, status?: number): Promise<Json> {
    const res = await owner(org).put(recordUrl(table, key)).send(body);
    if (status) expectStatus(res, status);
    else expect([200, 201]).toContain(res.status);
    return res.body;
  }

  async function read(org: TestOrg, table: string, query: Query = {}) {
    const res = await owner(org).get(tableUrl(table)).query(query);
    expectStatus(res, 200);
    return res.body as { data: Json[]; nextAfter: string | null; total?: number };
  }

  const keysOf = async (org: TestOrg, table: string, query: Query = {}) => (await read(org, table, query)).data.map((r) => r.key as string);
  const filtered = (org: TestOrg, table: string, where: unknown, query: Query = {}) => keysOf(org, table, { where: JSON.stringify(where), ...query });

  async function getRecord(org: TestOrg, table: string, key: string) {
    const res = await owner(org).get(recordUrl(table, key));
    expectStatus(res, 200);
    return res.body as Json;
  }

  async function listOf(org: TestOrg, path: '/data-stores' | '/data-stores/tables', query: Query = {}) {
    const res = await owner(org).get(path).query(query);
    expectStatus(res, 200);
    return res.body as { total: number; data: Json[] };
  }
  const tablesOf = (org: TestOrg, query: Query = {}) => listOf(org, '/data-stores/tables', query);
  const everythingOf = (org: TestOrg, query: Query = {}) => listOf(org, '/data-stores', query);

  /** The organization's rows as stored, __meta__ and expired ones included. */
  async function dbRows(org: TestOrg, table?: string): Promise<Json[]> {
    return harness().services.db.query(
      `SELECT id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at FROM data_store_records
       WHERE organization_id = $1 AND ($2::text IS NULL OR table_name = $2) ORDER BY table_name, key`,
      [org.organizationId, table ?? null],
    );
  }
  const dbRow = async (org: TestOrg, table: string, key: string) => (await dbRows(org, table)).find((r) => r.key === key);

  /** Moves a record's expiry into the past, as if its TTL had run out. */
  async function expire(org: TestOrg, table: string, key: string) {
    const [, count] = await harness().services.db.query(
      `UPDATE data_store_records SET expires_at = now() - interval '1 second' WHERE organization_id = $1 AND table_name = $2 AND key = $3`,
      [org.organizationId, table, key],
    );
    expect(count).toBe(1);
  }

  /**
   * Holds a row lock on one record in a transaction of its own while `during`
   * runs, to line up concurrent requests deterministically; commits after.
   * `untilBlocked(n)` resolves once n sessions wait, directly or in a chain, on this lock.
   */
  async function withRowLocked<T>(
    org: TestOrg,
    table: string,
    key: string,
    during: (untilBlocked: (count: number) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const { db } = harness().services;
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const locked = await runner.query(`SELECT id FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key = $3 FOR UPDATE`, [
        org.organizationId,
        table,
        key,
      ]);
      expect(locked).toHaveLength(1);
      const [{ pid }] = await runner.query(`SELECT pg_backend_pid() AS pid`);
      const blockedSessions = async () => {
        const [{ n }] = await db.query(
          `WITH RECURSIVE blocked(pid) AS (
             SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
             UNION SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY(pg_blocking_pids(a.pid)))
           SELECT count(*)::int AS n FROM blocked`,
          [pid],
        );
        return n as number;
      };
      const untilBlocked = async (count: number) => {
        await waitFor(async () => (await blockedSessions()) >= count, { timeoutMs: 10_000, intervalMs: 20, what: `${count} sessions blocked on the lock` });
      };
      return await during(untilBlocked);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
  }

  async function expectNothingStored(org: TestOrg) {
    expect(await tablesOf(org)).toEqual({ total: 0, data: [] });
    expect(await dbRows(org)).toEqual([]);
  }

  return {
    owner,
    insert,
    seed,
    put,
    read,
    keysOf,
    filtered,
    getRecord,
    tablesOf,
    everythingOf,
    dbRows,
    dbRow,
    expire,
    withRowLocked,
    expectNothingStored,
  };
}
