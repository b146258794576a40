import { QueryFailedError } from 'typeorm';
import { DuplicateNameError } from '../errors/errors';

/** True when `err` is PostgreSQL's unique violation on the named constraint. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && driverError.constraint === constraint;
}

/** True when `err` is PostgreSQL's check violation on the named constraint. */
export function isCheckViolation(err: unknown, constraint: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string; constraint?: string };
  return driverError.code === '23514' && driverError.constraint === constraint;
}

/**
 * Guards writes to a table whose names are unique per organization under the index `constraint`.
 * The index, not a lookup beforehand, decides when two requests race for one name: the loser's
 * write fails and surfaces as DuplicateNameError. Pass the name the write stores; undefined means
 * the write leaves the name as it is, which cannot collide, so nothing is translated.
 */
export function uniqueNameIndex(constraint: string, resource: string) {
  return async <T>(name: string | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (err) {
      if (name !== undefined && isUniqueViolation(err, constraint)) throw new DuplicateNameError(resource, name);
      throw err;
    }
  };
}
