import { ApplicationFailure } from '@temporalio/common';
import { AppError } from '../src/errors/errors';

/**
 * A client error of the application (an AppError with a 4xx status) as a
 * non-retryable failure carrying its code and field details: retrying bad
 * input would only fail again. Anything else is undefined, for the caller to
 * treat as transient. `mask` rewrites what the failure carries (a step masks
 * its secrets); no input value is echoed either way.
 */
export function businessFailure(err: unknown, mask: <T>(value: T) => T = (value) => value): ApplicationFailure | undefined {
  if (!(err instanceof AppError) || err.status >= 500) return undefined;
  return ApplicationFailure.create({
    message: mask(err.message),
    type: err.code,
    nonRetryable: true,
    details: err.details ? [mask(err.details)] : undefined,
  });
}
