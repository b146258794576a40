// First: tracing instruments http and pg as they load (nothing is loaded when OTEL_* settings are unset).
import { tracing } from './observability/tracing-start';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { type Config, ConfigError, loadConfig } from './config/config';
import { type Backends, startBackends } from './infra/bootstrap';
import { describePortHolder, portInUseMessage } from './infra/embedded-ports';
import { canListen } from './infra/free-port';
import { StartupError } from './infra/startup-error';
import { createLogger, type Logger } from './logging/logger';
import type { LocalWorker } from './executions/local-replies';
import { checkSearchAttributes, SearchAttributesMissingError } from './temporal/search-attribute-check';

type Mode = 'all' | 'api' | 'worker';

/** `tsx src/main.ts [all|api|worker]` (built: `node dist/src/main.js …`): the API, the Temporal worker, or both in one process. */
async function main(mode: Mode): Promise<void> {
  const loaded = loadConfig();
  const logger = createLogger(loaded.logLevel);
  // The API's port, like the embedded servers' (startBackends), is checked before anything starts.
  const { port, host } = loaded.http;
  if (mode !== 'worker' && port !== 0 && !(await canListen(port, host))) {
    throw new StartupError(portInUseMessage(port, 'PORT', 'API', describePortHolder(port)));
  }
  const metrics = loaded.metrics;
  const runsWorker = mode !== 'api' && loaded.runWorker;
  for (const [setting, what, metricsPort] of [
    ['METRICS_PORT', 'metrics endpoint', metrics.port],
    ['TEMPORAL_METRICS_PORT', 'Temporal worker metrics', runsWorker ? metrics.temporalPort : undefined],
  ] as const) {
    if (metricsPort && !(await canListen(metricsPort, metrics.host))) {
      throw new StartupError(portInUseMessage(metricsPort, setting, what, describePortHolder(metricsPort)));
    }
  }
  const backends = await startBackends(loaded, logger);
  // Unless TEMPORAL_UI_URL names one, executions link to the embedded dev server's UI, on the port this DATA_DIR gave it.
  const config = { ...loaded, temporal: { ...loaded.temporal, uiUrl: loaded.temporal.uiUrl ?? backends.temporalUiUrl } };
  const shutdownSteps: Array<() => Promise<void>> = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const step of shutdownSteps) await step().catch((err) => logger.warn({ err: String(err) }, 'shutdown step failed'));
    await backends.close();
    process.exit(0);
  };
  // From here on, while the worker and the API still load too: the embedded servers would outlive this process.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    await serve(mode, config, logger, backends, shutdownSteps);
  } catch (err) {
    // A start stopped half way fails as it stops: nothing to say.
    if (stopping) return;
    // A start that failed half way leaves nothing running behind it (the embedded servers above all).
    for (const step of shutdownSteps) await step().catch(() => undefined);
    await backends.close();
    throw err;
  }
}

/** Starts the worker and the API the mode asks for, pushing how to stop each onto `shutdownSteps`. */
async function serve(mode: Mode, config: Config, logger: Logger, backends: Backends, shutdownSteps: Array<() => Promise<void>>): Promise<void> {
  // Before anything polls or starts runs: a run or schedule setting an attribute its namespace lacks is refused.
  await checkSearchAttributes(backends.temporalAddress, config.temporal.namespace, logger);
  // One endpoint per process, whichever halves it runs: each process is scraped for its own figures.
  if (config.metrics.port !== undefined) {
    const { startMetricsServer, stopMetricsServer } = await import('./observability/metrics-server.js');
    const metricsServer = await startMetricsServer(config.metrics.port, config.metrics.host);
    shutdownSteps.push(() => stopMetricsServer(metricsServer));
    logger.info({ metrics: `http://${config.metrics.host}:${config.metrics.port}/metrics` }, 'metrics endpoint listening');
  }
  // Each half's modules are loaded once the ports and the data directory are settled (a refused start need not wait
  // seconds of loading), and only by the processes that run it. import() of the CommonJS modules: `.js`, Node's ESM
  // resolution, which tsx maps to the sources.

  // The worker first: the API beside it starts webhook runs on it (eager start) and takes their replies from it.
  let local: LocalWorker | undefined;
  if (mode !== 'api' && config.runWorker) {
    const [{ createActivityDeps }, { Client }, { createWorker }, { ensureRetentionSchedule }] = await Promise.all([
      import('./app/activity-deps.js'),
      import('@temporalio/client'),
      import('./temporal/worker.js'),
      import('./executions/retention-schedule.js'),
    ]);
    if (config.metrics.temporalPort !== undefined) {
      const { installTemporalMetrics } = await import('./observability/temporal-metrics.js');
      installTemporalMetrics(config.metrics.host, config.metrics.temporalPort);
      logger.info({ temporalMetrics: `http://${config.metrics.host}:${config.metrics.temporalPort}/metrics` }, 'Temporal worker metrics listening');
    }
    const deps = createActivityDeps({ db: backends.db, logger, keyring: backends.keyring, config });
    const { worker, connection, replies } = await createWorker({
      address: backends.temporalAddress,
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      deps,
      workflowBundlePath: config.temporal.workflowBundle,
      tracing,
    });
    const running = worker.run();
    logger.info({ taskQueue: config.temporal.taskQueue }, 'Temporal worker running');
    await ensureRetentionSchedule(new Client({ connection, namespace: config.temporal.namespace }), config.temporal.taskQueue, {
      intervalMinutes: config.retention.pruneIntervalMinutes,
      batchSize: config.retention.batchSize,
    });
    if (mode === 'all') {
      const { clientInterceptors } = await import('./observability/temporal-tracing.js');
      local = { client: new Client({ connection, namespace: config.temporal.namespace, interceptors: clientInterceptors(tracing) }), replies };
    }
    shutdownSteps.push(async () => {
      worker.shutdown();
      await running;
      await connection.close();
      await deps.close();
    });
  }

  if (mode !== 'worker') {
    const [{ createApp }, { createServices }, { connectTemporal }] = await Promise.all([
      import('./app/app.js'),
      import('./app/services.js'),
      import('./temporal/client.js'),
    ]);
    const temporal = await connectTemporal(backends.temporalAddress, config.temporal.namespace, tracing);
    const services = createServices({ config, logger, db: backends.db, keyring: backends.keyring, temporal });
    const app = createApp(services);
    if (local) {
      const detach = services.runs.attachWorker(local);
      shutdownSteps.unshift(async () => detach());
    }
    services.recordPurger.start();
    services.feedSyncReconciler.start();
    services.principalCache.start();
    // Cube loads on first use (seconds); an API loads it before it listens, so no caller's first query waits for it.
    await services.cube.preload();
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.listen(config.http.port, config.http.host, (err?: Error) => {
        if (!err) return resolve(s);
        // Taken since the check at start.
        const busy = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
        reject(busy ? new StartupError(portInUseMessage(config.http.port, 'PORT', 'API', describePortHolder(config.http.port))) : err);
      });
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
  // Last: what the steps above still traced while stopping is exported too.
  const exporting = tracing;
  if (exporting) shutdownSteps.push(() => exporting.shutdown());
}

const mode = (process.argv[2] ?? 'all') as Mode;
if (!['all', 'api', 'worker'].includes(mode)) {
  console.error(`Unknown mode "${mode}": use all, api or worker`);
  process.exit(2);
}
main(mode).catch((err) => {
  if (err instanceof ConfigError || err instanceof SearchAttributesMissingError || err instanceof StartupError) {
    console.error(err.message);
    process.exit(78);
  }
  console.error(err);
  process.exit(1);
});
