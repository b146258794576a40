import { QueryQueue } from '@cubejs-backend/query-orchestrator';
import { applyCubeQueueWorkaround } from './queue-workaround';

/**
 * A queue whose every process message is sent twice at once, as two racing
 * reconciliations send it, and whose query waits on a gate (a lock, a busy
 * database) so the second attempt arrives while the first one runs.
 */
function racingQueue() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const queue: any = new QueryQueue(`race-${Math.random().toString(36).slice(2)}`, {
    queryHandlers: {
      query: async (query: { value: number }) => {
        await gate;
        return query.value;
      },
    },
    cacheAndQueueDriver: 'memory',
    concurrency: 2,
    continueWaitTimeout: 2,
    logger: () => undefined,
    sendProcessMessageFn: (key: string, queueId: unknown) => {
      void queue.processQuery(key, queueId);
      void queue.processQuery(key, queueId);
    },
  } as never);
  return { queue, open };
}

test('a query two attempts process at once answers its caller (the losing attempt leaves the running lock alone)', async () => {
  applyCubeQueueWorkaround();
  const { queue, open } = racingQueue();
  // Two queries queued together; the first queue id Cube hands out is 0, so the second is the one whose id collided.
  const first = queue.executeInQueue('query', ['SELECT 1', []], { value: 1 }, 0);
  const second = queue.executeInQueue('query', ['SELECT 2', []], { value: 2 }, 0);
  setTimeout(open, 200);
  // Cube answers "Continue wait" after continueWaitTimeout when the result is lost; it must not be.
  await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
});
