import type { EntityManager, QueryRunner } from 'typeorm';
import { isDeadlock } from '../src/db/database-errors';
import { dataStoresService } from '../src/data-stores/data-stores.service';
import { ConflictError } from '../src/errors/errors';
import { PackagesRepository, UNIT_ATTEMPTS } from '../src/packages/packages.repository';
import { expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName, waitFor } from './factories';
import { footprint, install, packageDef, sourceDef, workflowDef } from './package-fixtures';

/**
 * Deadlocks inside a package install (docs/packages.md, "All or nothing"),
 * provoked on purpose with the real PostgreSQL: another transaction takes the
 * rows the install needs in the opposite order. PostgreSQL then aborts the
 * install's whole transaction, so no statement of it can be retried alone: the
 * unit runs again from the start (PackagesRepository.transaction), and after
 * UNIT_ATTEMPTS deadlocks it is 409 write_conflict with nothing written. No
 * statement is ever sent into the aborted transaction ("current transaction
 * is aborted").
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

const ABORTED = /current transaction is aborted/;

/** Another transaction on a connection of its own, with its backend's pid. */
async function otherTransaction(): Promise<{ runner: QueryRunner; pid: number }> {
  const runner = h.services.db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
  return { runner, pid };
}

/** Resolves once a backend (`waiter`, or any when null) waits on a lock `holder` holds. */
async function blockedBy(holder: number, waiter: number | null = null): Promise<void> {
  await waitFor(
    async () => {
      const [{ blocked }] = await h.services.db.query(
        `SELECT count(*) > 0 AS blocked FROM pg_stat_activity WHERE ($2::int IS NULL OR pid = $2) AND $1::int = ANY(pg_blocking_pids(pid))`,
        [holder, waiter],
      );
      return blocked;
    },
    { intervalMs: 10, timeoutMs: 20_000, what: `a backend waiting on ${holder}` },
  );
}

const value = (n: number) => ({ n });
/** The table's records, read on the pool. */
const recordsOf = async (org: TestOrg, table: string): Promise<Array<{ key: string; value: { n: number } }>> =>
  h.services.db.query(`SELECT key, value FROM data_store_records WHERE organization_id = $1 AND table_name = $2 AND key <> '__meta__' ORDER BY key`, [
    org.organizationId,
    table,
  ]);

test('an install that deadlocks with another transaction runs again from the start and is installed once', async () => {
  const org = await createTestOrg(h.services);
  const [first, second] = [uniqueName('first'), uniqueName('second')];
  // The install registers `first`, then `second` (its sources in order); the other transaction `second`, then `first`.
  const pkg = packageDef('tables-kit', '1.0.0', {
    dataSources: [sourceDef('First', first), sourceDef('Second', second)],
    workflows: [workflowDef('wf')],
  });
  const other = await otherTransaction();
  const otherStores = dataStoresService(other.runner.manager);
  await otherStores.createTable(org.organizationId, second);

  const installing = install(h.app, org, pkg).then((res) => res);
  await blockedBy(other.pid); // the install holds `first` and waits for `second`
  // Now `first` closes the cycle. The install waited first, so PostgreSQL's check finds the deadlock there and aborts the install,
  // which lets this insert of `first` through: it could not have been made while the install's `first` stood.
  await expect(otherStores.createTable(org.organizationId, first)).resolves.toEqual(expect.objectContaining({ tableName: first }));
  await other.runner.rollbackTransaction();
  await other.runner.release();

  const res = await installing;
  expectStatus(res, 201);
  expect(res.body.createdTables).toEqual([first, second]);
  expect(res.body.package.dataSources.map((s: { name: string }) => s.name)).toEqual(['First', 'Second']);
  expect(await footprint(h.services.db, org)).toEqual({
    packages: 1,
    items: 3,
    workflows: 1,
    versions: 1,
    sources: 2,
    dashboards: 0,
    widgets: 0,
    tables: 2,
    orphan_relations: 0,
  });
});

describe('a data store upsert in the install transaction', () => {
  /**
   * Runs the install's unit of work (PackagesRepository.transaction) with the
   * data store service the install scope builds over its transaction, upserting
   * `a` then `b`. On the attempts `deadlocked` names, another transaction holds
   * `b` and then asks for `a`. Answers the work's result, or throws what the
   * unit threw; `seen` collects what the upserts threw on each attempt.
   */
  async function unit(org: TestOrg, table: string, deadlocked: (attempt: number) => boolean) {
    // The table exists beforehand: the two transactions then meet on the records `a` and `b` only, not on its __meta__ row.
    await dataStoresService(h.services.db.manager).createTable(org.organizationId, table);
    const seen: unknown[] = [];
    let attempts = 0;
    const work = async (m: EntityManager) => {
      attempts += 1;
      const stores = dataStoresService(m);
      const other = deadlocked(attempts) ? await otherTransaction() : null;
      try {
        if (other) await dataStoresService(other.runner.manager).upsert(org.organizationId, table, [{ key: 'b', value: value(-1) }]);
        await stores.upsert(org.organizationId, table, [{ key: 'a', value: value(attempts) }]);
        const [{ pid }] = await m.query('SELECT pg_backend_pid() AS pid');
        // The other transaction asks for `a` once this one waits for its `b`, then gives up its own (rolled back).
        const closing = other
          ? blockedBy(other.pid, pid)
              .then(() => dataStoresService(other.runner.manager).upsert(org.organizationId, table, [{ key: 'a', value: value(-1) }]))
              .finally(async () => {
                await other.runner.rollbackTransaction();
                await other.runner.release();
              })
          : null;
        try {
          await stores.upsert(org.organizationId, table, [{ key: 'b', value: value(attempts) }]);
        } finally {
          await closing;
        }
        return attempts;
      } catch (err) {
        seen.push(err);
        throw err;
      } finally {
        if (other && !other.runner.isReleased) {
          await other.runner.rollbackTransaction().catch(() => undefined);
          await other.runner.release();
        }
      }
    };
    const outcome = await new PackagesRepository(h.services.db.manager).transaction(org.organizationId, work).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return { ...outcome, seen, attempts };
  }

  test('is not retried inside the aborted transaction: the deadlock goes up as it is, and the whole unit runs again', async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('deadlocked');
    const run = await unit(org, table, (attempt) => attempt === 1);

    expect(run.seen).toHaveLength(1);
    expect(String(run.seen[0])).not.toMatch(ABORTED);
    expect(isDeadlock(run.seen[0])).toBe(true);
    expect(run).toEqual(expect.objectContaining({ result: 2, attempts: 2 }));
    // Written once, by the attempt that committed.
    expect(await recordsOf(org, table)).toEqual([
      { key: 'a', value: value(2) },
      { key: 'b', value: value(2) },
    ]);
  });

  test(`deadlocking on all ${UNIT_ATTEMPTS} attempts: 409 write_conflict, and nothing written`, async () => {
    const org = await createTestOrg(h.services);
    const table = uniqueName('deadlocked');
    const run = await unit(org, table, () => true);

    expect(run.attempts).toBe(UNIT_ATTEMPTS);
    expect(run.seen).toHaveLength(UNIT_ATTEMPTS);
    for (const err of run.seen) {
      expect(String(err)).not.toMatch(ABORTED);
      expect(isDeadlock(err)).toBe(true);
    }
    expect('error' in run && run.error).toBeInstanceOf(ConflictError);
    expect('error' in run && run.error).toEqual(expect.objectContaining({ status: 409, code: 'write_conflict' }));
    expect(await recordsOf(org, table)).toEqual([]);
  });
});
