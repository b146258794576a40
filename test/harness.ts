import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../src/app/app';
import { createServices, type Services } from '../src/app/services';
import { createActivityDeps } from '../src/app/activity-deps';
import { type Config, loadConfig } from '../src/config/config';
import { Client } from '@temporalio/client';
import { MasterKeyring } from '../src/crypto/master-keyring';
import { openDatabase } from '../src/db/data-source';
import { createLogger, type Logger } from '../src/logging/logger';
import { startMetricsServer, stopMetricsServer } from '../src/observability/metrics-server';
import { connectTemporal } from '../src/temporal/client';
import type { TestOrg } from './factories';

export interface Harness {
  services: Services;
  app: Express;
  /**
   * Runs a Temporal worker on this harness's own task queue (so files never
   * run each other's workflows), with step settings overridden as given.
   * Activities log through `options.logger` when given (a test reading the
   * logs), else the harness's silent one. Stopped by close(), or earlier by the returned stop().
   * As `npm start` runs them, the app starts webhook runs eagerly on this worker and takes their
   * replies from it; `local: false` makes it a worker of another process (runs through the task queue).
   */
  startWorker(steps?: Partial<Config['steps']>, options?: { logger?: Logger; local?: boolean }): Promise<{ stop(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The real app on the suite's PostgreSQL and Temporal, as one test file's own
 * instance. `isolatedDatabase` gives the file a database of its own (migrated
 * fresh), for tests that change state every organization shares.
 */
export async function startHarness(options: { isolatedDatabase?: boolean; configure?: (config: Config) => void } = {}): Promise<Harness> {
  const config = loadConfig();
  config.temporal.taskQueue = `test-${randomBytes(6).toString('hex')}`;
  options.configure?.(config);
  const logger = createLogger('silent');
  let url = config.database.url!;
  if (options.isolatedDatabase) {
    const name = `isolated_${randomBytes(6).toString('hex')}`;
    const admin = await openDatabase(url, { poolSize: 1, timeouts: config.database });
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.destroy();
    url = url.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
  }
  const db = await openDatabase(url, { poolSize: 5, timeouts: config.database });
  const temporal = await connectTemporal(config.temporal.address!, config.temporal.namespace);
  const keyring = new MasterKeyring(config.crypto.masterKey!);
  const services = createServices({ config, logger, db, keyring, temporal });
  services.principalCache.start();
  // As src/main.ts does: the process's metrics endpoint, when the configuration names a port (METRICS_PORT).
  const metrics = config.metrics.port === undefined ? undefined : await startMetricsServer(config.metrics.port, config.metrics.host);
  const workers = new Set<() => Promise<void>>();
  return {
    services,
    app: createApp(services),
    startWorker: async (steps = {}, options = {}) => {
      // The worker SDK and the activities (about 500 modules: rxjs, memfs, the AI SDKs) load with a file's first
      // worker: some 40 of the integration files never start one, and Jest loads every module afresh for each file.
      const { createWorker } = await import('../src/temporal/worker.js');
      await installTemporalRuntime();
      const deps = createActivityDeps({ db, logger: options.logger ?? logger, keyring, config: { ...config, steps: { ...config.steps, ...steps } } });
      const { worker, connection, replies } = await createWorker({
        address: config.temporal.address!,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        deps,
        workflowBundlePath: config.temporal.workflowBundle,
      });
      const running = worker.run();
      const detach =
        options.local === false
          ? () => undefined
          : services.runs.attachWorker({ client: new Client({ connection, namespace: config.temporal.namespace }), replies });
      const stop = async () => {
        if (!workers.delete(stop)) return;
        detach();
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await connection.close();
        await deps.close();
      };
      workers.add(stop);
      return { stop };
    },
    close: async () => {
      for (const stop of [...workers]) await stop();
      if (metrics) await stopMetricsServer(metrics);
      await services.principalCache.close();
      await services.cube.shutdown();
      await services.csvExporter.close();
      await services.outboundHttp.close();
      await temporal.connection.close();
      await db.destroy();
    },
  };
}

/** The level of the worker's own logs, installed with the file's first worker (installTemporalRuntime). */
let runtimeLevel: 'WARN' | 'ERROR' | undefined;
/**
 * The worker's own logs at WARN (or the level given): its INFO lines about bundling and state drown the test output.
 * Once per process, the first call's level: a file expecting many failed runs calls it with ERROR before its first worker starts.
 */
export function quietTemporalRuntime(level: 'WARN' | 'ERROR' = 'WARN') {
  runtimeLevel ??= level;
}

/** One install per process, which workers started at once all wait for (none may start on the default runtime). */
let runtimeInstalled: Promise<void> | undefined;
function installTemporalRuntime(): Promise<void> {
  return (runtimeInstalled ??= import('@temporalio/worker').then(({ DefaultLogger, Runtime }) => {
    try {
      Runtime.install({ logger: new DefaultLogger(runtimeLevel ?? 'WARN') });
    } catch {
      // Already installed by the test file itself.
    }
  }));
}

/** supertest with a bearer token. */
export function as(app: Express, token: string) {
  const auth = (r: request.Test) => r.set('Authorization', `Bearer ${token}`);
  return {
    get: (url: string) => auth(request(app).get(url)),
    post: (url: string) => auth(request(app).post(url)),
    put: (url: string) => auth(request(app).put(url)),
    patch: (url: string) => auth(request(app).patch(url)),
    delete: (url: string) => auth(request(app).delete(url)),
  };
}

/** Asserts the status, showing the body when it is not the expected one. */
export function expectStatus(res: request.Response, status: number) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
}

/** Asserts the one error body shape, with the given status (and code, when given). */
export function expectError(res: request.Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code: code ?? expect.any(String), message: expect.any(String) }) });
}

/** Creates a connection as the organization's owner; fails the test unless it is 201. */
export async function createConnection(app: Express, org: TestOrg, body: Record<string, unknown>) {
  const res = await as(app, org.ownerToken).post('/connections').send(body);
  expect(res.status).toBe(201);
  return res.body as Record<string, any>;
}

/** The decrypted config of a connection, read as the owner. */
export async function connectionConfig(app: Express, org: TestOrg, id: string) {
  const res = await as(app, org.ownerToken).get(`/connections/${id}/config`);
  expect(res.status).toBe(200);
  return res.body as Record<string, unknown>;
}
