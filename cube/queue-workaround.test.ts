import { QueryQueue } from '@cubejs-backend/query-orchestrator';
import { applyCubeQueueWorkaround } from './queue-workaround';

type ProcessQuery = (queryKeyHashed: string, queueId: unknown) => Promise<void>;
/** Cube's own processQuery, read before anything in this file applies the workaround (importing it applies nothing). */
const cubeProcessQuery = (QueryQueue.prototype as unknown as { processQuery: ProcessQuery }).processQuery;

/**
 * A queue whose every process message is sent twice at once, as two racing
 * reconciliations send it, and whose queries wait on a gate (a lock, a busy
 * database) so the second attempt arrives while the first one runs. The gate
 * opens once both queries run and every message's losing attempt has
 * finished: the running attempts are the only ones left, each holding the
 * lock the losing attempt may have freed. `unpatched` gives the queue Cube's
 * own processQuery, whatever the prototype holds.
 */
function racingQueue({ unpatched = false } = {}) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let running = 0;
  const messages: Array<{ finished: number }> = [];
  const maybeOpen = () => {
    if (running >= 2 && messages.every((m) => m.finished >= 1)) open();
  };
  const queue: any = new QueryQueue(`race-${Math.random().toString(36).slice(2)}`, {
    queryHandlers: {
      query: async (query: { value: number }) => {
        running += 1;
        maybeOpen();
        await gate;
        return query.value;
      },
    },
    cacheAndQueueDriver: 'memory',
    concurrency: 2,
    continueWaitTimeout: 2,
    logger: () => undefined,
    sendProcessMessageFn: (key: string, queueId: unknown) => {
      const message = { finished: 0 };
      messages.push(message);
      for (let i = 0; i < 2; i++) {
        void queue.processQuery(key, queueId).finally(() => {
          message.finished += 1;
          maybeOpen();
        });
      }
    },
  } as never);
  if (unpatched) queue.processQuery = cubeProcessQuery;
  return queue;
}

/** Two queries queued together; the first queue id Cube hands out is 0 (falsy, so never used as an attempt id): the second's id is the one both its attempts share. */
const twoQueries = (queue: any) =>
  Promise.allSettled([queue.executeInQueue('query', ['SELECT 1', []], { value: 1 }, 0), queue.executeInQueue('query', ['SELECT 2', []], { value: 2 }, 0)]);

test("without the workaround, Cube's queue loses the answer of a query two attempts process at once: its caller is told to continue waiting", async () => {
  const [first, second] = await twoQueries(racingQueue({ unpatched: true }));
  expect(first).toEqual({ status: 'fulfilled', value: 1 });
  expect(second).toMatchObject({ status: 'rejected', reason: { message: 'Continue wait' } });
});

test('with the workaround, a query two attempts process at once answers its caller (the losing attempt leaves the running lock alone)', async () => {
  applyCubeQueueWorkaround();
  expect(await twoQueries(racingQueue())).toEqual([
    { status: 'fulfilled', value: 1 },
    { status: 'fulfilled', value: 2 },
  ]);
});
