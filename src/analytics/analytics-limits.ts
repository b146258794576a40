import { CubeQueryError } from '../../cube/engine';
import type { Config } from '../config/config';
import { AppError, TooManyRequestsError, ValidationError } from '../errors/errors';
import { STATEMENT_TIMEOUT_MESSAGE } from '../db/database-errors';
import { FairScheduler } from './fair-scheduler';

/** What a refused caller is told to wait: about one of Cube's 5-second polls, long enough for a slot to free up. */
const RETRY_AFTER_SECONDS = 5;

/** The two queues analytics work goes through, each fair between organizations. */
export interface AnalyticsSlots {
  /** Cube's work (queries, distinct values, the SQL of exports), as many at once as Cube's pool has connections. */
  queries: FairScheduler;
  /** CSV exports on the export pool: one per organization at a time. */
  exports: FairScheduler;
}

export function analyticsSlots(limits: Config['analytics']): AnalyticsSlots {
  const whenFull = () =>
    new TooManyRequestsError('This organization has too many analytics requests waiting; try again shortly', 'analytics_busy', RETRY_AFTER_SECONDS);
  return {
    // All but one connection: another organization always finds one free.
    queries: new FairScheduler({
      concurrency: limits.poolSize,
      perKey: Math.max(1, limits.poolSize - 1),
      maxWaitingPerKey: limits.maxQueuedPerOrganization,
      whenFull,
    }),
    exports: new FairScheduler({ concurrency: limits.exportPoolSize, perKey: 1, maxWaitingPerKey: limits.maxQueuedPerOrganization, whenFull }),
  };
}

function queryTimedOut(): AppError {
  return new AppError(
    504,
    'query_timeout',
    'The query ran past the analytics time limit and was cancelled; narrow it (a shorter date range, more filters, fewer dimensions)',
  );
}

/**
 * What a failure of Cube means for the caller: its own 400s (a bad operator,
 * granularity or date range) and statement timeouts are the caller's to fix;
 * anything else is ours.
 */
export function cubeFailure(err: unknown): never {
  if (!(err instanceof CubeQueryError)) throw err;
  // Cube reports errors of the database as 400s too: the timeout is told apart by PostgreSQL's message.
  if (STATEMENT_TIMEOUT_MESSAGE.test(err.message)) throw queryTimedOut();
  if (err.status === 400) throw new ValidationError(`Invalid query: ${err.message}`, undefined, 'invalid_query');
  throw err;
}
