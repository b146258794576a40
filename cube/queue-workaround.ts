import { QueryQueue } from '@cubejs-backend/query-orchestrator';

type ProcessQuery = (queryKeyHashed: string, queueId: unknown) => Promise<void>;
const PATCHED = Symbol('uniqueProcessingAttempts');

/**
 * Cube 0.35's in-memory queue (LocalQueueDriver) uses a query's queue id as
 * the id of every attempt to process it. Two reconciliations racing for the
 * same query (two queries queued at the same moment do that) start two
 * attempts with one id; the attempt that finds the query already locked then
 * frees the lock by that id, which is the running attempt's. The running
 * attempt's result is thrown away as "orphaned", and its callers are told
 * "Continue wait" until they give up: a query that waited a moment (on a lock,
 * a busy pool) could hang for minutes. Without a queue id the queue takes the
 * driver's processing counter, unique per attempt, so each attempt frees only
 * its own lock; the query's queue id is read back from its definition as before.
 */
export function applyCubeQueueWorkaround(): void {
  const proto = QueryQueue.prototype as unknown as { processQuery: ProcessQuery; [PATCHED]?: true };
  if (proto[PATCHED]) return;
  const processQuery = proto.processQuery;
  proto.processQuery = function (this: unknown, queryKeyHashed: string) {
    return processQuery.call(this, queryKeyHashed, null);
  };
  proto[PATCHED] = true;
}
