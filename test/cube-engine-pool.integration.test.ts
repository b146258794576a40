import { CubeEngine } from '../cube/engine';
import { createLogger } from '../src/logging/logger';

// The engine's pool against the suite's PostgreSQL; its other tests, which need no database, are in cube/engine.test.ts.
describe("CubeEngine's pool", () => {
  it('runs every query under the analytics statement timeout', async () => {
    const engine = new CubeEngine({
      databaseUrl: process.env.DATABASE_URL!,
      poolSize: 1,
      statementTimeoutMs: 1234,
      logger: createLogger('silent'),
      loadSources: async () => [],
    });
    // The driver Cube is given: it sets its own session timeout before each query, so that is what is checked.
    type Driver = { query(sql: string, values: unknown[]): Promise<Array<Record<string, string>>> };
    const driver: Driver = await (engine as unknown as { core: { options: { driverFactory(): Promise<Driver> } } }).core.options.driverFactory();
    await expect(driver.query('SHOW statement_timeout', [])).resolves.toEqual([{ statement_timeout: '1234ms' }]);
    await expect(driver.query('SELECT pg_sleep(30)', [])).rejects.toThrow('canceling statement due to statement timeout');
    await engine.shutdown();
  });
});
