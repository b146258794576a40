import { CubeQueryError } from '../../cube/semantic-layer';
import type { Config } from '../config/config';
import { AppError, TooManyRequestsError } from '../errors/errors';
import { STATEMENT_TIMEOUT_MESSAGE } from '../db/database-errors';
import type { AnalyticsQuery } from './analytics.schemas';
import { FairScheduler } from '../lib/fair-scheduler';
import { watchAnalyticsQueues } from '../observability/metrics';
import { type PlaceInRequest, refusedByCube } from './refused-query';

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
  const slots = {
    // All but one connection: another organization always finds one free.
    queries: new FairScheduler({
      concurrency: limits.poolSize,
      perKey: Math.max(1, limits.poolSize - 1),
      maxWaitingPerKey: limits.maxQueuedPerOrganization,
      whenFull,
    }),
    exports: new FairScheduler({ concurrency: limits.exportPoolSize, perKey: 1, maxWaitingPerKey: limits.maxQueuedPerOrganization, whenFull }),
  };
  watchAnalyticsQueues(slots);
  return slots;
}

function queryTimedOut(): AppError {
  return new AppError(
    504,
    'query_timeout',
    'The query ran past the analytics time limit and was cancelled; narrow it (a shorter date range, more filters, fewer dimensions)',
  );
}

/** What a failed Cube call was asked: the caller's query (to name the member Cube names) and where it is in the request. */
export interface Asked {
  query?: AnalyticsQuery;
  at: PlaceInRequest;
}

/**
 * What a failure of Cube means for the caller, decided here for every
 * caller: a query Cube refused (while reading it or building its SQL,
 * CubeQueryError.refused) is the caller's to fix, 400 `invalid_query`; a
 * statement timeout is 504 `query_timeout`; anything else (the database
 * failed or is gone, Cube itself broke, this service's own defect) is ours
 * and goes on unchanged, to the error middleware's logged 500.
 */
export function cubeFailure(err: unknown, asked: Asked): never {
  if (!(err instanceof CubeQueryError)) throw err;
  if (err.refused) throw refusedByCube(err.message, asked.query, asked.at);
  // The database's errors come from Cube as 400s: the timeout is told apart by PostgreSQL's message.
  if (STATEMENT_TIMEOUT_MESSAGE.test(err.message)) throw queryTimedOut();
  throw err;
}
