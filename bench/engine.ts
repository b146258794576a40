/**
 * `npm run bench:engine`: a `core.loop` of BENCH_ITEMS items (10,000) with a
 * cheap body (one `core.set`), at concurrency 1, 10 and 50, beside a bare
 * Temporal fan-out of the same shape (child batches of 3,000 items, local
 * activities that double a number) on the same Temporal server in the same
 * run. The service runs as `npm start` runs it (API and worker in one
 * process, embedded Temporal) on its own PostgreSQL.
 *
 * Each row prints items per second (from the run's start to its end), the
 * peak resident memory above its level before the row (the service's
 * process; the benchmark's own for the bare worker), and the history the run
 * left: events and bytes of the run and of its child batches together, and
 * the largest single history (what Temporal's per-run limits apply to).
 * Results: bench-results/engine-<time>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { saveResults } from './lib/results';
import { admin, apiCaller, benchServiceEnv, rssBytes, sampleRss, startService } from './lib/service';
import { fmt } from './lib/stats';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const CONCURRENCIES = (process.env.BENCH_CONCURRENCY ?? '1,10,50').split(',').map(Number);
/** The loop's batch for a one-step body: LOOP_BATCH_EVENTS (workflows/loops.ts) at 2 events per local activity. */
const BATCH = 3_000;

interface Row {
  label: string;
  itemsPerSecond: number;
  peakMemoryBytes: number;
  historyEvents: number;
  historyBytes: number;
  largestHistoryEvents: number;
}

const rows: Row[] = [];
function print(row: Row) {
  rows.push(row);
  console.log(
    `${row.label.padEnd(34)} ${fmt.int(row.itemsPerSecond).padStart(7)} items/s   +${fmt.mb(row.peakMemoryBytes).padStart(6)} peak   ` +
      `history ${fmt.int(row.historyEvents).padStart(6)} events, ${fmt.mb(row.historyBytes)} (largest run ${fmt.int(row.largestHistoryEvents)} events)`,
  );
}

/** The run's history and its children's: events, bytes, and the largest single history. */
async function historySize(client: Client, workflowId: string): Promise<Pick<Row, 'historyEvents' | 'historyBytes' | 'largestHistoryEvents'>> {
  const sizes: Array<{ events: number; bytes: number }> = [];
  const visit = async (id: string) => {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const events = history.events ?? [];
    sizes.push({ events: events.length, bytes: Buffer.byteLength(JSON.stringify(history)) });
    for (const e of events) {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) await visit(child);
    }
  };
  await visit(workflowId);
  return {
    historyEvents: sizes.reduce((n, s) => n + s.events, 0),
    historyBytes: sizes.reduce((n, s) => n + s.bytes, 0),
    largestHistoryEvents: Math.max(...sizes.map((s) => s.events)),
  };
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), port: await freePort(), database: 'flowbase_bench', persistent: true });
  const env = await benchServiceEnv(pg.url, dir);
  const service = await startService(env, path.join(dir, 'service.log'), 'all');
  const address = `127.0.0.1:${env.EMBEDDED_TEMPORAL_PORT}`;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    const org = await admin(env, ['create-org', '--name', 'Bench', '--email', 'bench@example.test']);
    const call = apiCaller(service.baseUrl, org.token);
    const items = Array.from({ length: ITEMS }, (_, i) => i);
    console.log(`Engine benchmark: a loop of ${fmt.int(ITEMS)} items, one core.set per item; ${os.cpus().length} CPUs, everything on this machine\n`);

    // Warm-up: the worker bundles and caches on first use.
    const warm = await call('POST', '/workflows', { name: 'bench-warm', steps: [loopStep(5)] });
    await runLoop(call, warm.id, [1, 2, 3, 4, 5]);

    for (const concurrency of CONCURRENCIES) {
      const wf = await call('POST', '/workflows', { name: `bench-loop-${concurrency}`, steps: [loopStep(concurrency)] });
      const before = rssBytes(service.pid);
      const rss = sampleRss(service.pid);
      const started = performance.now();
      const id = await runLoop(call, wf.id, items).catch((err: unknown) => {
        // The sampler reads the service's /proc entry: stopped first, so a failed run reports itself, not a missing process.
        try {
          rss.stop();
        } catch {
          // The service is gone; the run's error says why.
        }
        throw err;
      });
      const seconds = (performance.now() - started) / 1000;
      const { peak } = rss.stop();
      print({
        label: `service core.loop, concurrency ${concurrency}`,
        itemsPerSecond: ITEMS / seconds,
        peakMemoryBytes: Math.max(0, peak - before),
        ...(await historySize(client, id)),
      });
    }

    console.log('\nBaseline: bare Temporal, the same fan-out (child batches, local activities), same server');
    const native = await NativeConnection.connect({ address });
    const taskQueue = `bench-fan-out-${randomUUID()}`;
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      workflowsPath: require.resolve('./workflows/fan-out'),
      activities: { double: async (n: number) => n * 2 },
    });
    const running = worker.run();
    try {
      await client.workflow.execute('fanOut', { taskQueue, workflowId: `warm-${randomUUID()}`, args: [{ items: 100, concurrency: 10, batch: BATCH }] });
      for (const concurrency of CONCURRENCIES) {
        const before = rssBytes(process.pid);
        const rss = sampleRss(process.pid);
        const workflowId = `fan-out-${randomUUID()}`;
        const started = performance.now();
        await client.workflow.execute('fanOut', { taskQueue, workflowId, args: [{ items: ITEMS, concurrency, batch: BATCH }] });
        const seconds = (performance.now() - started) / 1000;
        const { peak } = rss.stop();
        print({
          label: `bare fan-out, concurrency ${concurrency}`,
          itemsPerSecond: ITEMS / seconds,
          peakMemoryBytes: Math.max(0, peak - before),
          ...(await historySize(client, workflowId)),
        });
      }
    } finally {
      worker.shutdown();
      await running;
      await native.close();
    }
    for (const concurrency of CONCURRENCIES) {
      const ours = rows.find((r) => r.label === `service core.loop, concurrency ${concurrency}`)!;
      const bare = rows.find((r) => r.label === `bare fan-out, concurrency ${concurrency}`)!;
      console.log(`concurrency ${concurrency}: the service runs ${fmt.ratio(ours.itemsPerSecond / bare.itemsPerSecond)}× the bare fan-out's items per second`);
    }
    console.log(`\nResults: ${saveResults('engine', { items: ITEMS, cpus: os.cpus().length, rows })}`);
  } finally {
    await connection.close();
    await service.stop();
    await pg.stop();
  }
}

function loopStep(concurrency: number) {
  return {
    stepId: 'each',
    stepType: 'core.loop',
    input: {
      items: '{{ initial.items }}',
      concurrency,
      steps: [{ stepId: 'double', stepType: 'core.set', input: { values: { n: '{{ item | times: 2 }}' } } }],
    },
  };
}

/** Starts a run of the loop and waits until it completed; answers its execution id. */
async function runLoop(call: (method: string, p: string, body?: unknown) => Promise<any>, workflowId: string, items: number[]): Promise<string> {
  const { executionId } = await call('POST', `/workflows/${workflowId}/runs`, { input: { items } });
  for (;;) {
    const { status } = await call('GET', `/executions/${executionId}`);
    if (status === 'completed') return executionId;
    if (status !== 'running') throw new Error(`the loop run ended ${status}: ${JSON.stringify((await call('GET', `/executions/${executionId}`)).error)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
