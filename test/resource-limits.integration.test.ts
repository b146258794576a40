import net from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { Client } from 'pg';
import type request from 'supertest';
import { allowLongStatements } from '../src/db/statement-timeouts';
import { as, expectError, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, waitFor } from './factories';

/**
 * Resource limits: statement timeouts, the export pool and its stalled-reader
 * cut-off, and fairness between organizations in analytics. Three instances
 * of the app over the same database, each with the limits one group of tests
 * needs; the data is shared.
 */
let h: Harness; // a short service timeout, a small analytics pool and queue; exports never cut off
let hCut: Harness; // exports cut off quickly
let hSlow: Harness; // analytics statements cancelled quickly
let watcher: Client; // the test's own connection, to read pg_stat_activity

beforeAll(async () => {
  h = await startHarness({
    configure: (c) => {
      c.database.statementTimeoutMs = 2000;
      c.analytics.poolSize = 3;
      c.analytics.exportPoolSize = 2;
      c.analytics.maxQueuedPerOrganization = 2;
      c.analytics.exportIdleTimeoutMs = 10 * 60_000;
    },
  });
  hCut = await startHarness({ configure: (c) => (c.analytics.exportIdleTimeoutMs = 3000) });
  hSlow = await startHarness({ configure: (c) => (c.analytics.statementTimeoutMs = 1000) });
  watcher = new Client({ connectionString: process.env.DATABASE_URL });
  await watcher.connect();
}, 120_000);

afterAll(async () => {
  await watcher?.end();
  for (const x of [h, hCut, hSlow]) await x?.close();
});

const FIELDS = {
  city: { type: 'string', label: 'City' },
  n: { type: 'number', label: 'N' },
  at: { type: 'date', label: 'At', timeDimension: true },
};

/** Polls until `check` holds; a deadline only so that a broken promise fails the test instead of hanging it. */
const until = (check: () => boolean | Promise<boolean>, what: string) => waitFor(check, { timeoutMs: 45_000, intervalMs: 50, what });

/** A request started now, whose settling can be observed. */
function started(req: PromiseLike<request.Response>) {
  const t = { settled: false, response: Promise.resolve(req).finally(() => (t.settled = true)) };
  return t;
}

/** A data source over a new table of `rows` records, imported as CSV; returns its Cube name. */
async function source(org: TestOrg, table: string, rows: number, city: (i: number) => string): Promise<string> {
  const lines = ['key,city,n,at'];
  for (let i = 0; i < rows; i++) lines.push(`k${i},${city(i)},${i % 100},2026-01-01T00:00:00Z`);
  const imported = await as(h.app, org.ownerToken).post(`/data-stores/tables/${table}/import`).set('Content-Type', 'text/csv').send(lines.join('\n'));
  expect({ status: imported.status, body: imported.body }).toEqual({ status: 200, body: expect.objectContaining({ records: rows }) });
  const created = await as(h.app, org.ownerToken)
    .post('/dashboards/data-sources')
    .send({ name: table, dataStoreTableName: table, recordSchema: { name: table, fields: FIELDS } });
  expect({ status: created.status, body: created.body }).toEqual({ status: 201, body: expect.anything() });
  return created.body.servingRelation;
}

/** Holds an exclusive lock on a serving relation, so every query over it waits, until the returned function is called. */
async function lockRelation(relation: string): Promise<() => Promise<void>> {
  const locker = new Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query(`LOCK TABLE analytics."${relation}" IN ACCESS EXCLUSIVE MODE`);
  return async () => {
    await locker.query('COMMIT');
    await locker.end();
  };
}

/** Backends of one pool (by application name) whose statement names the relation, with what they wait on. */
async function backends(applicationName: string, relation: string): Promise<Array<{ pid: number; wait_event: string | null; wait_event_type: string | null }>> {
  const { rows } = await watcher.query(
    `SELECT pid, wait_event, wait_event_type FROM pg_stat_activity
     WHERE application_name = $1 AND state = 'active' AND position($2 in query) > 0`,
    [applicationName, relation],
  );
  return rows;
}

const alive = async (pid: number) => (await watcher.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 1;

describe('statement timeouts of the service pool', () => {
  test('a statement past the timeout is cancelled; a long transaction lifts it for itself only', async () => {
    const db = h.services.db;
    await expect(db.query('SELECT pg_sleep(30)')).rejects.toMatchObject({ code: '57014' });
    expect(await db.query('SHOW idle_in_transaction_session_timeout')).toEqual([{ idle_in_transaction_session_timeout: '1min' }]);

    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await allowLongStatements(runner.manager);
      await runner.query('SELECT pg_sleep(2.5)');
      expect(await runner.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '30min' }]);
      await runner.commitTransaction();
      // The same connection, back to the pool's bound.
      expect(await runner.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '2s' }]);
    } finally {
      await runner.release();
    }
  });

  test('an API request whose statement runs past the timeout answers 504 query_timeout, and the pool is not held', async () => {
    const org = await createTestOrg(h.services);
    const env = await as(h.app, org.ownerToken)
      .post('/environments')
      .send({ name: 'locked', variables: { K: 'v' } });
    // Another connection holds the environment's row: the variable write waits on it until its statement is cancelled.
    const locker = new Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM environments WHERE id = $1 FOR UPDATE', [env.body.id]);
      const res = await as(h.app, org.ownerToken).put(`/environments/${env.body.id}/variables/K`).send({ value: 'w' });
      expectError(res, 504, 'query_timeout');
      expect(res.body.error.message).not.toMatch(/environments|SELECT/);
      expect((await as(h.app, org.ownerToken).get(`/environments/${env.body.id}`)).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect((await as(h.app, org.ownerToken).get(`/environments/${env.body.id}/variables`)).body.variables).toEqual({ K: 'v' });
  });
});

describe('analytics fairness between organizations', () => {
  let a: TestOrg;
  let b: TestOrg;
  let dsA: string;
  let dsB: string;
  const query = (app: Harness['app'], org: TestOrg, ds: string, limit: number) =>
    as(app, org.ownerToken)
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [`${ds}.count`], dimensions: [`${ds}.city`], limit } });
  const stats = (org: TestOrg) => h.services.analytics.slots.queries.stats(org.organizationId);

  beforeAll(async () => {
    [a, b] = [await createTestOrg(h.services), await createTestOrg(h.services)];
    dsA = await source(a, 'fair_a', 10, (i) => `a${i % 3}`);
    dsB = await source(b, 'fair_b', 10, (i) => `b${i % 3}`);
  });

  /** Four queries of `a` that cannot finish while its relation is locked: two run (its share of three connections), two wait. */
  async function saturate(limits: number[]) {
    const pending = limits.map((limit) => started(query(h.app, a, dsA, limit)));
    await until(() => stats(a).running === 2 && stats(a).waiting === 2, "a's share is taken and two wait");
    await until(
      async () => (await backends('flowbase-analytics', dsA)).filter((x) => x.wait_event_type === 'Lock').length === 2,
      "a's two queries wait on the lock",
    );
    return pending;
  }

  test("one organization's blocked queries do not hold up another's", async () => {
    const unlock = await lockRelation(dsA);
    let pending: Array<ReturnType<typeof started>>;
    try {
      pending = await saturate([1, 2, 3, 4]);
      // Bounded only so that a regression fails here instead of hanging with the lock held.
      const res = await query(h.app, b, dsB, 10).timeout(30_000);
      expect(res.status).toBe(201);
      expect(res.body.data).toHaveLength(3);
      // b ran while every query of a was still stuck, and a never had more than its share on the database.
      expect(pending.map((p) => p.settled)).toEqual([false, false, false, false]);
      expect((await backends('flowbase-analytics', dsA)).length).toBe(2);
    } finally {
      await unlock();
    }
    const answers = await Promise.all(pending.map((p) => p.response));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201]);
  });

  test('past the waiting limit, an organization gets 429 analytics_busy with Retry-After; others do not', async () => {
    const unlock = await lockRelation(dsA);
    let pending: Array<ReturnType<typeof started>>;
    try {
      pending = await saturate([5, 6, 7, 8]);
      const refused = await query(h.app, a, dsA, 9);
      expectError(refused, 429, 'analytics_busy');
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      // The source's id is its relation's name without the prefix, with dashes.
      const distinct = await as(h.app, a.ownerToken)
        .post('/dashboards/analytics/distinct-values')
        .send({ dataSourceId: dsA.slice(3).replace(/_/g, '-'), dimension: 'city' });
      expectError(distinct, 429, 'analytics_busy');
      expect((await query(h.app, b, dsB, 11)).status).toBe(201);
    } finally {
      await unlock();
    }
    expect((await Promise.all(pending.map((p) => p.response))).map((r) => r.status)).toEqual([201, 201, 201, 201]);
  });
});

describe('statement timeout of analytics', () => {
  test('a query or export past the analytics timeout answers 504 query_timeout', async () => {
    const org = await createTestOrg(h.services);
    const ds = await source(org, 'slow', 10, (i) => `c${i}`);
    const unlock = await lockRelation(ds);
    try {
      const res = await as(hSlow.app, org.ownerToken)
        .post('/dashboards/analytics/query')
        .send({ query: { measures: [`${ds}.count`] } });
      expectError(res, 504, 'query_timeout');
      const csv = await as(hSlow.app, org.ownerToken)
        .post('/dashboards/analytics/export-csv')
        .send({ title: 'slow', query: { dimensions: [`${ds}.city`] } });
      expectError(csv, 504, 'query_timeout');
      expect(await backends('flowbase-analytics', ds)).toEqual([]);
      expect(await backends('flowbase-export', ds)).toEqual([]);
    } finally {
      await unlock();
    }
  });
});

describe('CSV exports', () => {
  let org: TestOrg;
  let other: TestOrg;
  let big: string;
  let small: string;
  const ROWS = 20_000;
  // About 1,030 bytes a row: some 20 MB of CSV, far more than the socket buffers between the service and a reader
  // (long rows rather than many: an import's cost goes by rows, an export's buffers by bytes).
  const city = (i: number) => `city-${String(i).padStart(6, '0')}-${'x'.repeat(1_010)}`;
  const bigExport = { title: 'big', query: { dimensions: [] as string[], measures: [] as string[], ungrouped: true } };

  beforeAll(async () => {
    org = await createTestOrg(h.services);
    other = await createTestOrg(h.services);
    big = await source(org, 'big', ROWS, city);
    small = await source(other, 'small', 5, (i) => `s${i}`);
    bigExport.query.dimensions = [`${big}.city`, `${big}.n`];
  }, 120_000);

  /** Sends the export request on a raw socket that then reads nothing. */
  async function stalledReader(server: Server, token: string): Promise<net.Socket> {
    const body = JSON.stringify(bigExport);
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(
      `POST /dashboards/analytics/export-csv HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    return socket;
  }

  async function stalledBackend(): Promise<number> {
    let pid = 0;
    await until(async () => {
      const stalled = (await backends('flowbase-export', big)).find((x) => x.wait_event === 'ClientWrite');
      pid = stalled?.pid ?? 0;
      return pid !== 0;
    }, 'the export blocks on its reader');
    return pid;
  }

  test('a stalled reader holds a connection of the export pool, not the API pool; other work goes on', async () => {
    const server = h.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const socket = await stalledReader(server, org.ownerToken);
    try {
      const pid = await stalledBackend();
      // More requests at once than the API pool has connections (5), each reading the database.
      const reads = await Promise.all(Array.from({ length: 12 }, () => as(h.app, org.ownerToken).get('/data-stores/tables')));
      expect(reads.map((r) => r.status)).toEqual(Array(12).fill(200));
      // Another organization's export runs on the export pool's other connection.
      const theirs = await as(h.app, other.ownerToken)
        .post('/dashboards/analytics/export-csv')
        .send({ title: 's', query: { dimensions: [`${small}.city`] } });
      expect(theirs.status).toBe(200);
      expect(theirs.text.trim().split('\n')).toHaveLength(6);
      // The organization's second export waits for its first.
      const second = started(
        as(h.app, org.ownerToken)
          .post('/dashboards/analytics/export-csv')
          .send({ title: 'b', query: { ...bigExport.query, limit: 3 } }),
      );
      await until(() => h.services.analytics.slots.exports.stats(org.organizationId).waiting === 1, 'the second export waits');
      expect(second.settled).toBe(false);
      expect(await alive(pid)).toBe(true);

      // The reader leaves: its query ends, and the waiting export runs.
      socket.destroy();
      await until(async () => !(await alive(pid)), 'the stalled export connection closes');
      const res = await second.response;
      expect(res.status).toBe(200);
      expect(res.text.trim().split('\n')).toHaveLength(4);
    } finally {
      socket.destroy();
      server.close();
    }
  });

  test('a reader that takes nothing for the idle timeout is cut off: its query ends, its response is destroyed', async () => {
    const server = hCut.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const socket = await stalledReader(server, org.ownerToken);
    try {
      const pid = await stalledBackend();
      const connections = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
      await until(async () => !(await alive(pid)) && (await connections()) === 0, 'the export is cut off');

      // What reached the reader is a cut response: a chunked body without its last chunk.
      const received: Buffer[] = [];
      socket.on('data', (d: Buffer) => received.push(d));
      await new Promise((resolve) => {
        socket.once('close', resolve);
        socket.on('error', () => undefined);
        socket.resume();
      });
      const text = Buffer.concat(received).toString('latin1');
      expect(text).toMatch(/^HTTP\/1\.1 200/);
      expect(text.endsWith('\r\n0\r\n\r\n')).toBe(false);

      // The organization's export turn is free again.
      const next = await as(hCut.app, org.ownerToken)
        .post('/dashboards/analytics/export-csv')
        .send({ title: 'b', query: { ...bigExport.query, limit: 3 } });
      expect(next.status).toBe(200);
      expect(next.text.trim().split('\n')).toHaveLength(4);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
