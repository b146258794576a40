/**
 * `npm run bench:webhook`: webhook round trips, each beside its baselines
 * measured in the same run, at fixed concurrency for a fixed duration.
 *
 *   stub alone         the local HTTP stub the workflows call, over HTTP
 *   bare Temporal      start-and-await of an empty workflow (client in this process)
 *   bare update-with-start  the same for a workflow answering its update at once: the floor of a sync webhook
 *   sync webhook       POST /w/@org/sync: core.http to the stub, then core.return
 *   async webhook      POST /w/@org/async: core.http to the stub; 202 at once
 *
 * Aim: the synchronous webhook's p50 within 2x of the bare Temporal round trip.
 * Knobs: BENCH_CONNECTIONS (8), BENCH_SECONDS (10). Results: bench-results/webhook-<time>.json.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { admin, startService } from './lib/service';
import { doneUpdate } from './workflows/empty';
import { fmt, percentile, sustained } from './lib/stats';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/** A local service answering every request with a small JSON document, as a vendor API would. */
async function startStub(): Promise<{ url: string; port: number; close(): void }> {
  const body = JSON.stringify({ ok: true, items: [{ id: 1, name: 'first' }] });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => server.close() };
}

async function cannon(url: string, options: { method?: 'GET' | 'POST'; body?: string; expect: number }): Promise<Figures> {
  const result = await autocannon({
    url,
    method: options.method ?? 'GET',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'content-type': 'application/json' },
    body: options.body,
    expectBody: undefined,
  });
  const wrong = result.non2xx + result.errors + result.timeouts;
  if (result.statusCodeStats && !result.statusCodeStats[String(options.expect) as '200']) throw new Error(`${url}: no ${options.expect} answers`);
  return { perSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, errors: wrong };
}

/** Both bare baselines: start-and-await of an empty workflow, and update-with-start of one that answers at once. */
async function bareTemporal(address: string): Promise<{ startAndAwait: Figures; updateWithStart: Figures }> {
  const taskQueue = `bench-empty-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./workflows/empty') });
  const clientConnection = await Connection.connect({ address });
  const client = new Client({ connection: clientConnection });
  const running = worker.run();
  try {
    // Warm up the worker's cache and the connection.
    for (let i = 0; i < 20; i++) await client.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `warm-${randomUUID()}` });
    const measure = async (op: () => Promise<unknown>): Promise<Figures> => {
      let errors = 0;
      const run = await sustained(CONNECTIONS, SECONDS, () =>
        op().then(
          () => undefined,
          () => void errors++,
        ),
      );
      return { perSecond: run.perSecond, p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99), requests: run.count, errors };
    };
    return {
      startAndAwait: await measure(() => client.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `empty-${randomUUID()}` })),
      updateWithStart: await measure(() =>
        client.workflow.executeUpdateWithStart(doneUpdate, {
          startWorkflowOperation: new WithStartWorkflowOperation('answeringWorkflow', {
            taskQueue,
            workflowId: `answer-${randomUUID()}`,
            workflowIdConflictPolicy: 'FAIL',
          }),
        }),
      ),
    };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await clientConnection.close();
  }
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755);
  const stub = await startStub();
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), port: await freePort(), database: 'flowbase_bench', persistent: true });
  const temporalPort = await freePort();
  const env = {
    DATABASE_URL: pg.url,
    DATA_DIR: dir,
    MASTER_KEY: randomBytes(32).toString('base64'),
    PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_PORT: String(temporalPort),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    HTTP_OUTBOUND_ALLOW: `127.0.0.1:${stub.port}`,
    LOG_LEVEL: 'warn',
    // The service is measured, not its rate limits: far above what this machine can start.
    WEBHOOK_RATE_PER_TRIGGER: '100000',
    WEBHOOK_BURST_PER_TRIGGER: '100000',
    WEBHOOK_RATE_PER_ORGANIZATION: '100000',
    WEBHOOK_BURST_PER_ORGANIZATION: '100000',
  };
  const service = await startService(env, path.join(dir, 'service.log'), 'all');
  const results: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, cpus: os.cpus().length };
  try {
    const org = await admin(env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const auth = { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' };
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${service.baseUrl}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<{ id: string }>;
    };
    const fetchStep = { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/items`, searchParams: { q: '{{ initial.q }}' } } };
    const sync = await post('/workflows', {
      name: 'bench-sync',
      steps: [
        fetchStep,
        { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { name: '{{ fetch.body.items[0].name }}' } } } },
      ],
    });
    const asyncWf = await post('/workflows', { name: 'bench-async', steps: [fetchStep] });
    await post(`/workflows/${sync.id}/triggers`, { name: 'sync', method: 'POST' });
    await post(`/workflows/${asyncWf.id}/triggers`, { name: 'async', method: 'POST' });
    const hook = (name: string) => `${service.baseUrl}/w/@${org.organizationSuid}/${name}`;
    const body = JSON.stringify({ q: 'bench' });

    console.log(`Webhook benchmark: ${CONNECTIONS} concurrent callers, ${SECONDS} s each, ${os.cpus().length} CPUs, everything on this machine\n`);
    // Warm-up: the worker bundles and caches on first use.
    for (let i = 0; i < 20; i++) await fetch(hook('sync'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    const bare = await bareTemporal(`127.0.0.1:${temporalPort}`);
    const figures = {
      stub: await cannon(`${stub.url}/items?q=bench`, { expect: 200 }),
      bareTemporal: bare.startAndAwait,
      bareUpdateWithStart: bare.updateWithStart,
      syncWebhook: await cannon(hook('sync'), { method: 'POST', body, expect: 200 }),
      asyncWebhook: await cannon(hook('async'), { method: 'POST', body, expect: 202 }),
    };
    const row = (label: string, f: Figures) =>
      console.log(
        `  ${label.padEnd(22)} ${fmt.int(f.perSecond).padStart(7)} req/s   p50 ${fmt.ms(f.p50).padStart(9)}   p99 ${fmt.ms(f.p99).padStart(9)}   ${f.errors ? `${f.errors} errors` : ''}`,
      );
    console.log('Baselines');
    row('stub alone (HTTP)', figures.stub);
    row('bare Temporal', figures.bareTemporal);
    row('bare update-with-start', figures.bareUpdateWithStart);
    console.log('Webhooks');
    row('sync (http + return)', figures.syncWebhook);
    row('async (202)', figures.asyncWebhook);
    const ratio = figures.syncWebhook.p50 / figures.bareTemporal.p50;
    console.log(`\n  sync p50 / bare Temporal p50   ${fmt.ratio(ratio)}   (aim: at most 2.00)`);
    Object.assign(results, figures, { syncToBareTemporalP50: ratio });

    fs.mkdirSync('bench-results', { recursive: true });
    const out = path.join('bench-results', `webhook-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, JSON.stringify(results, null, 2));
    console.log(`\nResults written to ${out}`);
  } finally {
    await service.stop();
    await pg.stop();
    stub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
