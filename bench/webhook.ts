/**
 * `npm run bench:webhook`: webhook round trips, each beside bare-Temporal
 * baselines measured in the same run, at fixed concurrency for a fixed time.
 *
 * Baselines (an empty workflow, on a dev server of their own per setting):
 *   start-and-await        plain client: start, then wait for the result
 *   eager start-and-await  client on the worker's NativeConnection with requestEagerStart
 *   update-with-start      a workflow answering its update at once (the service's path without a local worker)
 *   ... for each dev-server setting: SQLite rollback journal (SQLite defaults), WAL, WAL with
 *   synchronous=normal, in memory.
 * The service, as `npm start` runs it (one process, embedded dev server on EMBEDDED_TEMPORAL_JOURNAL):
 *   sync    POST /w/@org/sync: core.http to a local stub, then core.return
 *   async   POST /w/@org/async: core.http to the stub; 202 at once; then the backlog drains
 *   verified  the sync webhook behind a GitHub signature check and deduplication by X-GitHub-Delivery
 *             (a new delivery id each request), beside the plain sync row: the cost of verified ingress
 *   duplicates the same delivery sent again and again, async and sync: answered without a start
 * The same with the API and the worker in two processes (no eager start: answers by update).
 *
 * Knobs: BENCH_CONNECTIONS (10), BENCH_SECONDS (20), EMBEDDED_TEMPORAL_JOURNAL (wal),
 * BENCH_SETTINGS (rollback,wal,wal-normal,memory). Results: bench-results/webhook-<time>.json.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Pool } from 'pg';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startEmbeddedPostgres } from '../src/infra/embedded-postgres';
import { freePort } from '../src/infra/free-port';
import { startTemporalDevServer, type SqliteJournal, type TemporalDevServerHandle } from '../src/infra/temporal-dev-server';
import { saveResults } from './lib/results';
import { admin, startService, type RunningService } from './lib/service';
import { doneUpdate } from './workflows/empty';
import { fmt, percentile, sustained } from './lib/stats';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const JOURNAL = (process.env.EMBEDDED_TEMPORAL_JOURNAL ?? 'wal') as SqliteJournal;
type Setting = SqliteJournal | 'memory';
const SETTINGS = (process.env.BENCH_SETTINGS ?? 'rollback,wal,wal-normal,memory').split(',') as Setting[];

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/** Rounds of plain and verified sync calls, taken in turn. */
const ALTERNATIONS = 4;

/** Rounds as one row: requests over the total time; p50 the rounds' median, p99 their worst. */
function combine(rounds: Figures[]): Figures {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const p50s = rounds.map((r) => r.p50).sort((x, y) => x - y);
  return {
    perSecond: requests / SECONDS,
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...rounds.map((r) => r.p99)),
    requests,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

const rows: Array<{ label: string; figures: Figures; note?: string }> = [];
function row(label: string, figures: Figures, note = '') {
  rows.push({ label, figures, note });
  const f = figures;
  console.log(
    `  ${label.padEnd(44)} ${fmt.int(f.perSecond).padStart(5)} req/s   p50 ${fmt.ms(f.p50).padStart(9)}   p99 ${fmt.ms(f.p99).padStart(9)}${f.errors ? `   ${f.errors} errors` : ''}${note ? `   ${note}` : ''}`,
  );
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

interface CannonOptions {
  method?: 'GET' | 'POST';
  body?: string;
  expect: number;
  connections?: number;
  headers?: Record<string, string>;
  /** Headers of each request afresh (a new delivery id each). */
  perRequest?: () => Record<string, string>;
  seconds?: number;
}

async function cannon(url: string, options: CannonOptions) {
  const result = await autocannon({
    url,
    method: options.method ?? 'GET',
    connections: options.connections ?? CONNECTIONS,
    duration: options.seconds ?? SECONDS,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    ...(options.perRequest
      ? {
          requests: [
            {
              setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, ...options.perRequest!() } }),
            },
          ],
        }
      : {}),
  } as autocannon.Options);
  const expected = result.statusCodeStats?.[String(options.expect) as '200']?.count ?? 0;
  if (expected === 0) throw new Error(`${url}: no ${options.expect} answers`);
  const figures: Figures = {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.non2xx + result.errors + result.timeouts,
  };
  return { figures, expected };
}

async function measure(concurrency: number, op: () => Promise<unknown>): Promise<Figures> {
  let errors = 0;
  const run = await sustained(concurrency, SECONDS, () =>
    op().then(
      () => undefined,
      () => void errors++,
    ),
  );
  return { perSecond: run.perSecond, p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99), requests: run.count, errors };
}

async function devServer(setting: Setting, dir: string): Promise<TemporalDevServerHandle> {
  const file = setting === 'memory' ? {} : { dbFile: path.join(dir, `temporal-${setting}-${randomUUID()}.sqlite`), journal: setting };
  return startTemporalDevServer({ port: await freePort(), uiPort: await freePort(), ...file });
}

/** The bare baselines on a dev server of their own with `setting`. */
async function bareTemporal(setting: Setting, dir: string, extra: boolean): Promise<void> {
  const server = await devServer(setting, dir);
  const taskQueue = `bench-empty-${randomUUID()}`;
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({ connection, taskQueue, workflowsPath: require.resolve('./workflows/empty') });
  const plainConnection = await Connection.connect({ address: server.address });
  const plain = new Client({ connection: plainConnection });
  const eager = new Client({ connection });
  const running = worker.run();
  try {
    for (let i = 0; i < 20; i++) await plain.workflow.execute('emptyWorkflow', { taskQueue, workflowId: `warm-${randomUUID()}` });
    const name = setting === 'memory' ? 'in memory' : `${setting} file`;
    row(`start-and-await, ${name}`, await measure(CONNECTIONS, () => plain.workflow.execute('emptyWorkflow', { taskQueue, workflowId: randomUUID() })));
    const eagerly = () => eager.workflow.execute('emptyWorkflow', { taskQueue, workflowId: randomUUID(), requestEagerStart: true });
    row(`eager start-and-await, ${name}`, await measure(CONNECTIONS, eagerly));
    if (!extra) return;
    row(`eager start-and-await, ${name}, 1 caller`, await measure(1, eagerly));
    row(
      `update-with-start, ${name}`,
      await measure(CONNECTIONS, () =>
        plain.workflow.executeUpdateWithStart(doneUpdate, {
          startWorkflowOperation: new WithStartWorkflowOperation('answeringWorkflow', {
            taskQueue,
            workflowId: randomUUID(),
            workflowIdConflictPolicy: 'FAIL',
          }),
        }),
      ),
    );
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
    await plainConnection.close();
    await server.stop();
  }
}

/** The service's two webhooks, with the async backlog drained and counted. */
async function webhooks(label: string, service: RunningService, env: Record<string, string>, pool: Pool, stubUrl: string): Promise<Record<string, unknown>> {
  const org = await admin(env, ['create-org', '--name', `Bench ${label}`, '--email', `bench-${randomUUID()}@example.test`]);
  const auth = { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' };
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${service.baseUrl}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ id: string }>;
  };
  const fetchStep = { stepId: 'fetch', stepType: 'core.http', input: { url: `${stubUrl}/items`, searchParams: { q: '{{ initial.q }}' } } };
  const answer = {
    stepId: 'answer',
    stepType: 'core.return',
    input: { webhookResponse: { statusCode: 200, body: { name: '{{ fetch.body.items[0].name }}' } } },
  };
  const sync = await post('/workflows', { name: 'bench-sync', steps: [fetchStep, answer] });
  const asyncWf = await post('/workflows', { name: 'bench-async', steps: [fetchStep] });
  await post(`/workflows/${sync.id}/triggers`, { name: 'sync', method: 'POST' });
  await post(`/workflows/${asyncWf.id}/triggers`, { name: 'async', method: 'POST' });
  const hook = (name: string) => `${service.baseUrl}/w/@${org.organizationSuid}/${name}`;
  const body = JSON.stringify({ q: 'bench' });
  // Warm-up: the worker bundles and caches on first use.
  for (let i = 0; i < 30; i++) await fetch(hook('sync'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  const syncRun = await cannon(hook('sync'), { method: 'POST', body, expect: 200 });
  row(`sync (http + return), ${label}`, syncRun.figures);
  const oneCaller = await cannon(hook('sync'), { method: 'POST', body, expect: 200, connections: 1 });
  row(`sync, 1 caller, ${label}`, oneCaller.figures);
  const verified = await verifiedRows(label, hook, post, sync.id, asyncWf.id, body, pool);
  const asyncRun = await cannon(hook('async'), { method: 'POST', body, expect: 202 });
  // Every run the API accepted (202s inside the window, and those answered just after it) must complete.
  const accepted = asyncRun.expected;
  const started = Date.now();
  const count = async (status: string) =>
    Number((await pool.query(`SELECT count(*) AS n FROM executions WHERE workflow_id = $1 AND status = $2`, [asyncWf.id, status])).rows[0].n);
  while ((await count('running')) > 0) await new Promise((r) => setTimeout(r, 100));
  const drainMs = Date.now() - started;
  const [completed, failed] = [await count('completed'), await count('failed')];
  row(`async (202), ${label}`, asyncRun.figures, `backlog drained in ${fmt.s(drainMs)}; ${fmt.int(completed)} runs completed, ${failed} failed`);
  if (failed > 0 || completed < accepted) throw new Error(`${accepted} runs accepted, ${completed} completed, ${failed} failed`);
  return {
    sync: syncRun.figures,
    ...verified,
    syncOneCaller: oneCaller.figures,
    async: asyncRun.figures,
    asyncAccepted: accepted,
    asyncCompleted: completed,
    asyncDrainMs: drainMs,
  };
}

/**
 * Verified ingress beside the plain sync webhook, in alternating rounds: the
 * same workflow behind a GitHub signature and deduplication by
 * X-GitHub-Delivery, each request a new delivery; then one delivery sent
 * again and again (async and sync), which must start exactly one run each.
 */
async function verifiedRows(
  label: string,
  hook: (name: string) => string,
  post: (p: string, body: unknown) => Promise<{ id: string }>,
  syncWorkflowId: string,
  asyncWorkflowId: string,
  body: string,
  pool: Pool,
) {
  const secret = 'bench-signing-secret';
  const github = { verification: { scheme: 'github' }, signingSecret: secret };
  await post(`/workflows/${syncWorkflowId}/triggers`, { name: 'verified', method: 'POST', ...github });
  await post(`/workflows/${syncWorkflowId}/triggers`, { name: 'sync-dup', method: 'POST', ...github });
  await post(`/workflows/${asyncWorkflowId}/triggers`, { name: 'async-dup', method: 'POST', ...github });
  const signature = { 'X-Hub-Signature-256': 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') };
  // Plain and verified in alternating rounds: on a shared machine the load drifts within a minute, and a ratio of two rows measured a minute apart shows the drift.
  const rounds: Array<{ plain: Figures; verified: Figures }> = [];
  for (let i = 0; i < ALTERNATIONS; i++) {
    const seconds = SECONDS / ALTERNATIONS;
    const plainRound = await cannon(hook('sync'), { method: 'POST', body, expect: 200, seconds });
    const verifiedRound = await cannon(hook('verified'), {
      method: 'POST',
      body,
      expect: 200,
      seconds,
      headers: signature,
      perRequest: () => ({ 'X-GitHub-Delivery': randomUUID() }),
    });
    rounds.push({ plain: plainRound.figures, verified: verifiedRound.figures });
  }
  const plainAlternating = combine(rounds.map((r) => r.plain));
  const verified = combine(rounds.map((r) => r.verified));
  const ratio = verified.perSecond / plainAlternating.perSecond;
  row(`sync, plain (alternating with the next), ${label}`, plainAlternating, `${ALTERNATIONS} rounds of ${SECONDS / ALTERNATIONS} s`);
  row(`sync, verified + deduplicated, ${label}`, verified, `${ratio.toFixed(2)}x the plain rounds (aim 0.95)`);

  const duplicates: Record<string, Figures> = {};
  for (const [name, expect] of [
    ['async-dup', 202],
    ['sync-dup', 200],
  ] as const) {
    const delivery = randomUUID();
    const run = await cannon(hook(name), { method: 'POST', body, expect, headers: { ...signature, 'X-GitHub-Delivery': delivery } });
    const runs = Number((await pool.query(`SELECT count(*) AS n FROM executions WHERE delivery_id = $1`, [delivery])).rows[0].n);
    row(`duplicates of one delivery (${name.split('-')[0]}), ${label}`, run.figures, `${fmt.int(run.expected)} answered, ${runs} run started`);
    if (runs !== 1) throw new Error(`${name}: ${runs} runs for one delivery id`);
    duplicates[name] = run.figures;
  }
  return { plainAlternating, verified, verifiedRatio: ratio, duplicates };
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755);
  const stub = await startStub();
  const pg = await startEmbeddedPostgres({ dir: path.join(dir, 'postgres'), port: await freePort(), database: 'flowbase_bench', persistent: true });
  const pool = new Pool({ connectionString: pg.url, max: 2 });
  const services: RunningService[] = [];
  const servers: TemporalDevServerHandle[] = [];
  const baseEnv = {
    DATABASE_URL: pg.url,
    DATA_DIR: dir,
    MASTER_KEY: randomBytes(32).toString('base64'),
    HTTP_OUTBOUND_ALLOW: `127.0.0.1:${stub.port}`,
    LOG_LEVEL: 'warn',
    EMBEDDED_TEMPORAL_JOURNAL: JOURNAL,
    // The service is measured, not its rate limits: far above what this machine can start.
    WEBHOOK_RATE_PER_TRIGGER: '100000',
    WEBHOOK_BURST_PER_TRIGGER: '100000',
    WEBHOOK_RATE_PER_ORGANIZATION: '100000',
    WEBHOOK_BURST_PER_ORGANIZATION: '100000',
  };
  const results: Record<string, unknown> = { connections: CONNECTIONS, seconds: SECONDS, cpus: os.cpus().length, journal: JOURNAL };
  try {
    console.log(`Webhook benchmark: ${CONNECTIONS} concurrent callers, ${SECONDS} s a row, ${os.cpus().length} CPUs, everything on this machine\n`);
    console.log('Baselines: an empty workflow, bare Temporal');
    row('stub alone (HTTP)', (await cannon(`${stub.url}/items?q=bench`, { expect: 200 })).figures);
    for (const setting of SETTINGS) await bareTemporal(setting, dir, setting === JOURNAL);

    console.log(`\nThe service as npm start runs it (API and worker in one process, ${JOURNAL} dev server, eager start)`);
    const allEnv = {
      ...baseEnv,
      PORT: String(await freePort()),
      EMBEDDED_TEMPORAL_PORT: String(await freePort()),
      EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    };
    const all = await startService(allEnv, path.join(dir, 'service.log'), 'all');
    services.push(all);
    results.oneProcess = await webhooks('one process', all, allEnv, pool, stub.url);
    await all.stop();
    services.pop();

    console.log(`\nAPI and worker in two processes (${JOURNAL} dev server, no eager start: answers by update)`);
    const server = await devServer(JOURNAL, dir);
    servers.push(server);
    const splitEnv = { ...baseEnv, TEMPORAL_ADDRESS: server.address, PORT: String(await freePort()) };
    const worker = await startService(splitEnv, path.join(dir, 'worker.log'), 'worker');
    services.push(worker);
    const api = await startService(splitEnv, path.join(dir, 'api.log'), 'api');
    services.push(api);
    results.twoProcesses = await webhooks('two processes', api, splitEnv, pool, stub.url);

    results.rows = rows;
    console.log(`\nResults written to ${saveResults('webhook', results)}`);
  } finally {
    for (const s of services.reverse()) await s.stop();
    for (const s of servers) await s.stop();
    await pool.end();
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
