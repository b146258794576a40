import 'reflect-metadata';
import type { Server } from 'node:http';
import { createActivityDeps } from './app/activity-deps';
import { createApp } from './app/app';
import { createServices } from './app/services';
import { ConfigError, loadConfig } from './config/config';
import { startBackends } from './infra/bootstrap';
import { createLogger } from './logging/logger';
import { Client } from '@temporalio/client';
import { connectTemporal } from './temporal/client';
import type { LocalWorker } from './executions/run-starter';
import { createWorker } from './temporal/worker';
import { ensureRetentionSchedule } from './executions/retention-schedule';
import { checkSearchAttributes, SearchAttributesMissingError } from './temporal/search-attribute-check';

type Mode = 'all' | 'api' | 'worker';

/** `tsx src/main.ts [all|api|worker]` (built: `node dist/src/main.js …`): the API, the Temporal worker, or both in one process. */
async function main(mode: Mode): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const backends = await startBackends(config, logger);
  const shutdownSteps: Array<() => Promise<void>> = [];
  // Before anything polls or starts runs: a run or schedule setting an attribute its namespace lacks is refused.
  await checkSearchAttributes(backends.temporalAddress, config.temporal.namespace, logger).catch(async (err: unknown) => {
    await backends.close();
    throw err;
  });

  // The worker first: the API beside it starts webhook runs on it (eager start) and takes their replies from it.
  let local: LocalWorker | undefined;
  if (mode !== 'api' && config.runWorker) {
    const deps = createActivityDeps({ db: backends.db, logger, keyring: backends.keyring, config });
    const { worker, connection, replies } = await createWorker({
      address: backends.temporalAddress,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      deps,
    });
    const running = worker.run();
    logger.info({ taskQueue: config.temporal.taskQueue }, 'Temporal worker running');
    await ensureRetentionSchedule(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue, {
      intervalMinutes: config.retention.pruneIntervalMinutes,
      batchSize: config.retention.batchSize,
    });
    if (mode === 'all') local = { client: new Client({ connection, namespace: config.temporal.namespace }), replies };
    shutdownSteps.push(async () => {
      worker.shutdown();
      await running;
      await connection.close();
      await deps.close();
    });
  }

  if (mode !== 'worker') {
    const temporal = await connectTemporal(backends.temporalAddress, config.temporal.namespace);
    const services = createServices({ config, logger, db: backends.db, keyring: backends.keyring, temporal });
    const app = createApp(services);
    if (local) {
      const detach = services.runs.attachWorker(local);
      shutdownSteps.unshift(async () => detach());
    }
    services.recordPurger.start();
    services.feedSyncReconciler.start();
    services.principalCache.start();
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(config.http.port, config.http.host, () => resolve(s));
    });
    // Node cuts every request at 5 minutes by default; a large import may stream for longer.
    // A connection that stops sending for 2 minutes is still closed.
    server.requestTimeout = 0;
    server.setTimeout(120_000);
    const base = `http://${config.http.host}:${config.http.port}`;
    logger.info({ api: base, docs: `${base}/docs`, temporalUi: backends.temporalUiUrl }, 'API listening');
    shutdownSteps.push(
      () => new Promise<void>((r) => server.close(() => r())),
      () => services.recordPurger.stop(),
      () => services.feedSyncReconciler.stop(),
      () => services.principalCache.close(),
      () => services.cube.shutdown(),
      () => services.csvExporter.close(),
      () => services.outboundHttp.close(),
      () => temporal.connection.close(),
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const step of shutdownSteps) await step().catch((err) => logger.warn({ err: String(err) }, 'shutdown step failed'));
    await backends.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

const mode = (process.argv[2] ?? 'all') as Mode;
if (!['all', 'api', 'worker'].includes(mode)) {
  console.error(`Unknown mode "${mode}": use all, api or worker`);
  process.exit(2);
}
main(mode).catch((err) => {
  if (err instanceof ConfigError || err instanceof SearchAttributesMissingError) {
    console.error(err.message);
    process.exit(78);
  }
  console.error(err);
  process.exit(1);
});
