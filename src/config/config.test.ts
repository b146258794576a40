import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  test('embedded mode needs no variables', () => {
    const config = loadConfig({});
    expect(config.database.url).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
    expect(config.http.port).toBe(3000);
  });

  test("embedded ports: only those set are in the configuration; the others are the data directory's own", () => {
    expect(loadConfig({}).embeddedPorts).toEqual({});
    expect(loadConfig({ EMBEDDED_POSTGRES_PORT: '15433', EMBEDDED_TEMPORAL_UI_PORT: '18233' }).embeddedPorts).toEqual({ postgres: 15433, temporalUi: 18233 });
    expect(() => loadConfig({ EMBEDDED_TEMPORAL_PORT: '70000' })).toThrow(/EMBEDDED_TEMPORAL_PORT/);
  });

  test('metrics: off unless METRICS_PORT is set, on 127.0.0.1 unless METRICS_HOST says otherwise', () => {
    expect(loadConfig({}).metrics).toEqual({ host: '127.0.0.1', port: undefined, temporalPort: undefined });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0', TEMPORAL_METRICS_PORT: '9465' }).metrics).toEqual({
      host: '0.0.0.0',
      port: 9464,
      temporalPort: 9465,
    });
    expect(() => loadConfig({ METRICS_PORT: 'metrics' })).toThrow(/METRICS_PORT/);
  });

  test('names every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', TEMPORAL_ADDRESS: 'nohost', MASTER_KEY: 'short' });
      throw new Error('should have failed');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const paths = (err as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(paths.sort()).toEqual(['DATABASE_URL', 'MASTER_KEY', 'PORT', 'TEMPORAL_ADDRESS']);
      expect((err as Error).message).toContain('Invalid configuration');
    }
  });

  test('production requires real servers and a master key', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL.*\n.*TEMPORAL_ADDRESS.*\n.*MASTER_KEY/);
  });

  test('accepts a full external configuration', () => {
    const key = Buffer.alloc(32, 1).toString('base64');
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://u:p@db:5432/flowbase',
      TEMPORAL_ADDRESS: 'temporal:7233',
      MASTER_KEY: key,
      MASTER_KEY_PREVIOUS: `${Buffer.alloc(32, 2).toString('base64')}, ${Buffer.alloc(32, 3).toString('base64')}`,
    });
    expect(config.database.url).toBe('postgres://u:p@db:5432/flowbase');
    expect(config.crypto.previousMasterKeys).toHaveLength(2);
  });

  test('data store settings: import limit in bytes, purge interval in seconds', () => {
    expect(loadConfig({}).dataStores).toEqual({ importLimitBytes: 1024 ** 3, purgeIntervalSeconds: 60 });
    expect(loadConfig({ DATA_STORE_IMPORT_LIMIT: '512mb', DATA_STORE_PURGE_INTERVAL_SECONDS: '5' }).dataStores).toEqual({
      importLimitBytes: 512 * 1024 ** 2,
      purgeIntervalSeconds: 5,
    });
    expect(() => loadConfig({ DATA_STORE_IMPORT_LIMIT: 'lots', DATA_STORE_PURGE_INTERVAL_SECONDS: '0' })).toThrow(
      /DATA_STORE_IMPORT_LIMIT.*\n.*DATA_STORE_PURGE_INTERVAL_SECONDS/,
    );
  });

  test("the Temporal Web UI executions link to: the one given, else none yet (the embedded dev server's is known once its port is)", () => {
    expect(loadConfig({}).temporal.uiUrl).toBeUndefined();
    expect(loadConfig({ EMBEDDED_TEMPORAL_UI_PORT: '18233' }).temporal.uiUrl).toBeUndefined();
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }).temporal.uiUrl).toBeUndefined();
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_UI_URL: 'https://temporal.example.com/ui/' }).temporal.uiUrl).toBe(
      'https://temporal.example.com/ui',
    );
    expect(() => loadConfig({ TEMPORAL_UI_URL: 'javascript:alert(1)' })).toThrow(/TEMPORAL_UI_URL/);
    // In production the UI shows every organization's runs: executions link to one only when an operator names it (docs/operations.md).
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://u:p@db/f',
      TEMPORAL_ADDRESS: 'temporal:7233',
      MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
    };
    expect(loadConfig(production).temporal.uiUrl).toBeUndefined();
    expect(loadConfig({ ...production, EMBEDDED_TEMPORAL_UI_PORT: '8233' }).temporal.uiUrl).toBeUndefined();
  });
});
