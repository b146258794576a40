import type { EntityManager } from 'typeorm';
import type { Config } from '../config/config';

/** The two bounds of the service's own statements (config.database). */
export type DatabaseTimeouts = Pick<Config['database'], 'statementTimeoutMs' | 'longStatementTimeoutMs'>;

/**
 * A transaction idle this long is stuck: the code between its statements
 * takes milliseconds. PostgreSQL then closes the connection, which frees its
 * locks. Imports, which wait for the upload between statements, lift it.
 */
export const IDLE_IN_TRANSACTION_MS = 60_000;

/**
 * The session setting that carries the long bound on every connection of a
 * pool (createDataSource sets it at connect, beside statement_timeout). The
 * bound lives with the connection rather than in a lookup on this side: a
 * connection without it makes `current_setting` fail rather than lift nothing.
 */
export const LONG_STATEMENT_TIMEOUT_SETTING = 'flowbase.long_statement_timeout';

/** Thrown by allowLongStatements given a manager outside a transaction, where SET LOCAL would last one statement. */
export class NotInTransaction extends Error {
  override name = 'NotInTransaction';
}

/**
 * Lifts the statement timeout to the long bound for the rest of the
 * transaction of `manager` only (`set_config(…, true)` is SET LOCAL): the
 * connection goes back to the pool with its default whatever happens. Call it
 * first inside a transaction whose statements legitimately run long (building
 * a serving relation, an import, a table delete that waits for one), with the
 * EntityManager of that transaction: every statement later run through it, or
 * through a repository built or called with it, gets the long bound. Throws
 * NotInTransaction given any other manager. `waitsForUpload` also lifts the
 * idle-in-transaction bound to the long one, for a transaction that waits on
 * its caller between statements.
 */
export async function allowLongStatements(manager: EntityManager, options: { waitsForUpload?: boolean } = {}): Promise<void> {
  if (!manager.queryRunner?.isTransactionActive)
    throw new NotInTransaction(
      'allowLongStatements needs the EntityManager of an open transaction: outside one, SET LOCAL would not outlast its own statement',
    );
  await manager.query(
    `SELECT set_config('statement_timeout', current_setting('${LONG_STATEMENT_TIMEOUT_SETTING}'), true),
            set_config('idle_in_transaction_session_timeout', CASE WHEN $1 THEN current_setting('${LONG_STATEMENT_TIMEOUT_SETTING}') ELSE $2 END, true)`,
    [options.waitsForUpload === true, String(IDLE_IN_TRANSACTION_MS)],
  );
}
