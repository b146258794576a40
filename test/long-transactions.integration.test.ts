import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import { allowLongStatements, NotInTransaction } from '../src/db/statement-timeouts';
import { dataStoresService } from '../src/data-stores/data-stores.service';
import { PackagesRepository } from '../src/packages/packages.repository';
import { WorkflowsRepository } from '../src/workflows/workflows.repository';
import { type Harness, startHarness } from './harness';
import { createTestOrg, seedRecords, sleep, type TestOrg, uniqueName, waitFor } from './factories';
import { workflowApi } from './workflow-api';

/**
 * The long statement bound of a transaction (src/db/statement-timeouts.ts)
 * reaches every statement run through its EntityManager, by each path a
 * package install takes: the manager itself, a repository built over it (an
 * EntityManager method, a prepared-statement write) and a repository's own
 * transaction, nested as a savepoint. Each statement is made to wait on a
 * row lock held by another connection for twice the short bound: it
 * completes only if the long bound is in force for it.
 */

const SHORT_MS = 500;
let h: Harness;
let watcher: Client; // the test's own connection, to see who waits on whom

beforeAll(async () => {
  h = await startHarness({
    configure: (c) => {
      c.database.statementTimeoutMs = SHORT_MS;
      c.database.longStatementTimeoutMs = 120_000;
    },
  });
  watcher = new Client({ connectionString: h.services.config.database.url });
  await watcher.connect();
}, 120_000);

afterAll(async () => {
  await watcher?.end();
  await h?.close();
});

const showTimeout = async (on: Pick<EntityManager, 'query'>) =>
  ((await on.query('SHOW statement_timeout')) as Array<{ statement_timeout: string }>)[0].statement_timeout;

/** One row, as a SELECT of it (locked FOR UPDATE by waitingOnLock). */
interface Row {
  sql: string;
  params: unknown[];
}

const recordRow = (org: TestOrg, table: string, key: string): Row => ({
  sql: 'SELECT 1 FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key = $3',
  params: [org.organizationId, table, key],
});

/**
 * Runs `statement` while another connection holds the lock of a row it
 * needs, released only once the statement has waited on it for twice the
 * short bound.
 */
async function waitingOnLock<T>(row: Row, statement: () => Promise<T>): Promise<T> {
  const blocker = new Client({ connectionString: h.services.config.database.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    const locked = await blocker.query(`${row.sql} FOR UPDATE`, row.params);
    expect(locked.rowCount).toBe(1);
    const [{ pid }] = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    let settled = false;
    const pending = statement().finally(() => (settled = true));
    pending.catch(() => undefined); // awaited below
    await waitFor(async () => settled || (await watcher.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid])).rowCount === 1, {
      what: 'the statement waiting on the lock',
    });
    if (!settled) await sleep(SHORT_MS * 2);
    await blocker.query('ROLLBACK');
    return await pending;
  } finally {
    await blocker.end();
  }
}

describe('a long transaction', () => {
  test('every statement through its EntityManager, by each path an install takes, runs under the long bound; outside it the short one is back', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('t');
    await seedRecords(h.app, org, table, { a: { n: 1 }, b: { n: 1 }, c: { n: 1 } });
    const workflow = await workflowApi(h.app, org).createWorkflow([{ stepId: 'a', stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }]);
    const renamed = uniqueName('wf');

    // The install's own transaction: PackagesRepository.transaction takes the lock and calls allowLongStatements.
    await new PackagesRepository(h.services.db.manager).transaction(org.organizationId, async (manager) => {
      expect(await showTimeout(manager)).toBe('2min');

      // The manager itself (manager.query).
      await waitingOnLock(recordRow(org, table, 'a'), () =>
        manager.query(`UPDATE data_store_records SET value = '{"n": 2}' WHERE organization_id = $1 AND table_name = $2 AND key = 'a'`, [
          org.organizationId,
          table,
        ]),
      );

      // A repository built over the manager: an EntityManager method (manager.update).
      await waitingOnLock({ sql: 'SELECT 1 FROM workflows WHERE organization_id = $1 AND id = $2', params: [org.organizationId, workflow.id] }, () =>
        new WorkflowsRepository(manager).update(org.organizationId, workflow.id, { name: renamed }),
      );

      // A repository built over the manager: the data store write, run prepared on the pool outside a transaction.
      const stores = dataStoresService(manager);
      const upserted = await waitingOnLock(recordRow(org, table, 'b'), () => stores.upsert(org.organizationId, table, [{ key: 'b', value: { n: 2 } }]));
      expect(upserted).toMatchObject({ created: 0, updated: 1 });

      // A repository's own transaction, nested in this one as a savepoint.
      const patched = await waitingOnLock(recordRow(org, table, 'c'), () => stores.patch(org.organizationId, table, 'c', { value: { n: 2 } }));
      expect(patched.value).toEqual({ n: 2 });

      expect(await showTimeout(manager)).toBe('2min');
    });

    // Everything committed together, and the pool's connections are back to the short bound.
    expect(await showTimeout(h.services.db)).toBe(`${SHORT_MS}ms`);
    const values: Array<{ key: string; value: unknown }> = await h.services.db.query(
      `SELECT key, value FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key <> '__meta__' ORDER BY key`,
      [org.organizationId, table],
    );
    expect(values).toEqual(['a', 'b', 'c'].map((key) => ({ key, value: { n: 2 } })));
    expect((await h.services.workflows.get(org.organizationId, workflow.id)).workflow.name).toBe(renamed);
  });

  test('without allowLongStatements the same wait is cancelled at the short bound', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('t');
    await seedRecords(h.app, org, table, { a: { n: 1 } });
    const short = h.services.db.transaction((manager) =>
      waitingOnLock(recordRow(org, table, 'a'), () => dataStoresService(manager).upsert(org.organizationId, table, [{ key: 'a', value: { n: 2 } }])),
    );
    await expect(short).rejects.toMatchObject({ driverError: expect.objectContaining({ code: '57014' }) });
  });

  test('allowLongStatements refuses a manager outside a transaction rather than lifting nothing', async () => {
    await expect(allowLongStatements(h.services.db.manager)).rejects.toThrow(NotInTransaction);
    let finished: EntityManager | undefined;
    await h.services.db.transaction(async (manager) => {
      finished = manager;
    });
    await expect(allowLongStatements(finished!)).rejects.toThrow(NotInTransaction);
  });
});
