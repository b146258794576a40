import type { DataSource } from 'typeorm';
import type { Config } from '../config/config';

/** The two bounds of the service's own statements (config.database). */
export type DatabaseTimeouts = Pick<Config['database'], 'statementTimeoutMs' | 'longStatementTimeoutMs'>;

/**
 * A transaction idle this long is stuck: the code between its statements
 * takes milliseconds. PostgreSQL then closes the connection, which frees its
 * locks. Imports, which wait for the upload between statements, lift it.
 */
export const IDLE_IN_TRANSACTION_MS = 60_000;

/** Anything that runs SQL on one connection: a pg client, a TypeORM EntityManager or QueryRunner. */
interface Queryable {
  query(sql: string, params: unknown[]): Promise<unknown>;
}

/*
 * Kept beside each DataSource rather than passed to every repository: the
 * repositories are built in several places (the API's services, the worker's
 * activities), and all of them already receive the DataSource.
 */
const longTimeouts = new WeakMap<DataSource, number>();

/** Records the long bound of a DataSource's statements; createDataSource calls it. */
export function rememberLongTimeout(db: DataSource, timeouts: DatabaseTimeouts): void {
  longTimeouts.set(db, timeouts.longStatementTimeoutMs);
}

/**
 * Lifts the statement timeout to the long bound for the rest of the current
 * transaction only (`set_config(…, true)` is SET LOCAL): the connection goes
 * back to the pool with its default whatever happens. Call it first inside a
 * transaction whose statements legitimately run long (building a serving
 * relation, an import, a table delete that waits for one). `waitsForUpload`
 * also lifts the idle-in-transaction bound to the long one, for a transaction
 * that waits on its caller between statements. A DataSource built without
 * timeouts has none to lift.
 */
export async function allowLongStatements(db: DataSource, on: Queryable, options: { waitsForUpload?: boolean } = {}): Promise<void> {
  const ms = longTimeouts.get(db);
  if (ms === undefined) return;
  const idle = options.waitsForUpload ? ms : IDLE_IN_TRANSACTION_MS;
  await on.query("SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true)", [String(ms), String(idle)]);
}
