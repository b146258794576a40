import { QueryFailedError } from 'typeorm';

/** True when `err` is PostgreSQL's unique violation on the named constraint. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === constraint;
}

/** Runs `write`; PostgreSQL's unique violation on `constraint` surfaces as `replacement()` instead. */
export async function onUniqueViolation<T>(constraint: string, replacement: () => Error, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, constraint)) throw replacement();
    throw err;
  }
}
