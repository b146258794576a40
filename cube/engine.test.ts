import { createLogger } from '../src/logging/logger';
import { FairScheduler } from '../src/lib/fair-scheduler';
import { CubeEngine } from './engine';
import { CubeQueryError } from './query-refusals';

const context = { organizationId: 'org', modelVersion: 'v1' };

/** An engine whose database is never reached: tests replace what it would ask. */
const offlineEngine = () =>
  new CubeEngine({
    databaseUrl: 'postgres://unused@127.0.0.1:1/none',
    poolSize: 1,
    statementTimeoutMs: 60_000,
    logger: createLogger('silent'),
    loadSources: async () => [],
  });

function engineWith(answers: Array<unknown | Error>) {
  const engine = offlineEngine();
  const calls: unknown[] = [];
  // The gateway is replaced: these tests are about what the engine does with its answers.
  (engine as unknown as { call: (...args: unknown[]) => Promise<unknown> }).call = async (...args: unknown[]) => {
    calls.push(args);
    const next = answers.shift();
    if (next instanceof Error) throw next;
    return next;
  };
  return { engine, calls };
}

describe('CubeEngine.load', () => {
  it("asks again while Cube answers 'Continue wait', then returns the answer without its renewQuery flag", async () => {
    const wait = () => new CubeQueryError('Continue wait', 200);
    const { engine, calls } = engineWith([wait(), wait(), { data: [{ 'ds.count': '1' }], query: { measures: ['ds.count'], renewQuery: true } }]);
    await expect(engine.load(context, { measures: ['ds.count'] })).resolves.toEqual({ data: [{ 'ds.count': '1' }], query: { measures: ['ds.count'] } });
    expect(calls).toHaveLength(3);
    await engine.shutdown();
  });

  it('fails at once on any other error', async () => {
    const { engine, calls } = engineWith([new CubeQueryError("'nope' not found for path 'ds.nope'", 400)]);
    await expect(engine.load(context, { measures: ['ds.nope'] })).rejects.toMatchObject({ status: 400 });
    expect(calls).toHaveLength(1);
    await engine.shutdown();
  });
});

describe('CubeEngine.load under a scheduler', () => {
  it("keeps the caller's slot through every 'Continue wait' until the answer", async () => {
    const { engine } = engineWith([]);
    const pending: Array<(answer: unknown) => void> = [];
    (engine as unknown as { call: () => Promise<unknown> }).call = () => new Promise((resolve) => pending.push(resolve));
    const flush = () => new Promise((resolve) => setImmediate(resolve));
    const slots = new FairScheduler({ concurrency: 1, perKey: 1, maxWaitingPerKey: 1, whenFull: () => new Error('full') });
    const first = slots.run('a', () => engine.load(context, { measures: ['ds.count'] }));
    let secondRan = false;
    const second = slots.run('b', async () => (secondRan = true));
    for (let i = 0; i < 2; i++) {
      await flush();
      pending.shift()!(Promise.reject(new CubeQueryError('Continue wait', 200)));
      await flush();
      expect(secondRan).toBe(false);
    }
    await flush();
    pending.shift()!({ data: [], query: {} });
    await expect(first).resolves.toEqual({ data: [], query: {} });
    await second;
    expect(secondRan).toBe(true);
    await engine.shutdown();
  });
});

describe('CubeEngine: what a failure answered by the gateway says', () => {
  /** An engine whose gateway answers every load with `answer` and `status`, as Cube's handleError does. */
  function answering(answer: Record<string, unknown>, status: number) {
    const engine = offlineEngine();
    const gateway = (engine as unknown as { gateway: Record<string, (request: { res: (a: unknown, m: unknown) => void }) => Promise<void>> }).gateway;
    gateway.load = async ({ res }) => res(answer, { status });
    return engine;
  }

  it('a UserError (Cube refused the query) is a refusal; a database error answered as 400 is not', async () => {
    const refusedEngine = answering({ type: 'UserError', error: "Can't parse date: 'whenever'" }, 400);
    await expect(refusedEngine.load(context, {})).rejects.toMatchObject({ refused: true, status: 400, message: "Can't parse date: 'whenever'" });
    const downEngine = answering({ error: 'Error: connect ECONNREFUSED 127.0.0.1:5432' }, 400);
    await expect(downEngine.load(context, {})).rejects.toMatchObject({ refused: false, status: 400, message: 'connect ECONNREFUSED 127.0.0.1:5432' });
    await Promise.all([refusedEngine.shutdown(), downEngine.shutdown()]);
  });
});
