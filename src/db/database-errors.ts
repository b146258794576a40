import { QueryFailedError } from 'typeorm';

/** PostgreSQL's message when it cancels a statement at its statement_timeout (Cube passes it on as text). */
export const STATEMENT_TIMEOUT_MESSAGE = /canceling statement due to statement timeout/;

/**
 * True when `err` is PostgreSQL cancelling a statement at its
 * statement_timeout (query_canceled, 57014, with that reason), whether it
 * arrives from TypeORM or straight from pg.
 */
export function isStatementTimeout(err: unknown): boolean {
  const pg = (err instanceof QueryFailedError ? err.driverError : err) as { code?: string; message?: string } | undefined;
  return pg?.code === '57014' && STATEMENT_TIMEOUT_MESSAGE.test(pg.message ?? '');
}

/**
 * True when PostgreSQL refused text it cannot hold: a NUL byte in text
 * (character_not_in_repertoire, 22021) or a \u0000 escape in jsonb
 * (untranslatable_character, 22P05).
 */
export function isUnstorableText(err: unknown): boolean {
  const pg = (err instanceof QueryFailedError ? err.driverError : err) as { code?: string } | undefined;
  return pg?.code === '22021' || pg?.code === '22P05';
}

/** PostgreSQL's deadlock_detected: it aborted this transaction to break a deadlock with another one. */
export const DEADLOCK_DETECTED = '40P01';

/** True when `err` is PostgreSQL aborting the transaction to break a deadlock (40P01), from TypeORM or straight from pg. */
export function isDeadlock(err: unknown): boolean {
  const pg = (err instanceof QueryFailedError ? err.driverError : err) as { code?: string } | undefined;
  return pg?.code === DEADLOCK_DETECTED;
}
