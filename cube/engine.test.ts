import { createLogger } from '../src/logging/logger';
import { CubeEngine, CubeQueryError, modelVersion } from './engine';
import type { DataSource } from '../src/data-sources/data-source.entity';

const context = { organizationId: 'org', modelVersion: 'v1' };

function engineWith(answers: Array<unknown | Error>) {
  const engine = new CubeEngine({ databaseUrl: 'postgres://unused@127.0.0.1:1/none', poolSize: 1, logger: createLogger('silent'), loadSources: async () => [] });
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

describe('modelVersion', () => {
  it('changes when a source changes, is added or removed', () => {
    const s = (id: string, at: number) => ({ id, updatedAt: new Date(at) }) as DataSource;
    const base = modelVersion([s('a', 1), s('b', 2)]);
    expect(modelVersion([s('a', 1), s('b', 2)])).toBe(base);
    expect(modelVersion([s('a', 1), s('b', 3)])).not.toBe(base);
    expect(modelVersion([s('a', 1)])).not.toBe(base);
    expect(modelVersion([s('a', 1), s('b', 2), s('c', 0)])).not.toBe(base);
  });
});
