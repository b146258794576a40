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
 *   async   POST /w/@org/async: core.http to the stub; 202 at once; then the backlog drains; beside
 *           accepted/s, the rate runs finished at (first request → last run completed, aim 0.9 of accepted)
 *   verified  the sync webhook behind a GitHub signature check and deduplication by X-GitHub-Delivery
 *             (a new delivery id each request), beside the plain sync row: the cost of verified ingress
 *   duplicates the same delivery sent again and again, async and sync: answered without a start
 *   overload  core.set + core.return at BENCH_OVERLOAD_CONNECTIONS callers: 200s a second, p50/p90/p99
 *             of every answer and of the 200s, answers shed (503/429, with Retry-After?), and every run
 *             answered 200 completed
 * The same with the API and the worker in two processes (no eager start: answers by update).
 * Scale-out: two API processes and two workers on one dev server, both APIs driven at once (half the
 * callers each): sync, async, and one delivery sent to both APIs at once (exactly one run).
 * Tracing: the sync webhook on two one-process services sharing a dev server, one exporting every trace
 * (sample rate 1) to a local Jaeger, the other with tracing off, in alternating rounds (aim: traced ≥ 0.9
 * of untraced runs a second).
 *
 * Every row of a workflow also prints the CPU milliseconds per completed run of each process over the
 * row's window (/proc): the service's processes, the Temporal server, PostgreSQL; for the baselines the
 * Temporal server and this process (which is client and worker there).
 *
 * Knobs: BENCH_CONNECTIONS (10), BENCH_SECONDS (20), BENCH_OVERLOAD_CONNECTIONS (100),
 * EMBEDDED_TEMPORAL_JOURNAL (wal), BENCH_SETTINGS (rollback,wal,wal-normal,memory),
 * SERVICE_NODE_ARGS (node flags for the service), BENCH_PARTS (baselines,one-process,two-processes,scale-out,tracing). Results: bench-results/webhook-<time>.json.
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
import { startJaeger } from '../test/otlp-receiver';
import { startTemporalDevServer, type SqliteJournal, type TemporalDevServerHandle } from '../src/infra/temporal-dev-server';
import { addCpu, childProcessPid, cpuPerRun, cpuSince, formatCpu, postgresCpuMs, processCpuMs, type CpuMeters, type CpuPerRun } from './lib/cpu';
import { saveResults } from './lib/results';
import { admin, startService, type RunningService } from './lib/service';
import { doneUpdate } from './workflows/empty';
import { fmt, percentile, percentiles, sustained } from './lib/stats';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const OVERLOAD_CONNECTIONS = Number(process.env.BENCH_OVERLOAD_CONNECTIONS ?? 100);
const JOURNAL = (process.env.EMBEDDED_TEMPORAL_JOURNAL ?? 'wal') as SqliteJournal;
type Setting = SqliteJournal | 'memory';
const SETTINGS = (process.env.BENCH_SETTINGS ?? 'rollback,wal,wal-normal,memory').split(',') as Setting[];
/** Which sections run: a before/after pair of one lever needs only the rows it moves, on a machine where a full run takes a quarter of an hour. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'baselines,one-process,two-processes,scale-out,tracing').split(','));

/** Answers that shed load on purpose (admission control's 503, rate limits' 429): reported apart, never counted as errors. */
const SHED = new Set([503, 429]);
/** A backlog that has not drained in this long is stuck, not slow. */
const DRAIN_LIMIT_MS = 10 * 60_000;
/** The webhooks' request body. */
const BODY = JSON.stringify({ q: 'bench' });

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  /** Failed answers (non-2xx other than shed ones), connection errors and timeouts. */
  errors: number;
  /** 503 and 429 answers. */
  shed?: number;
  /** CPU per completed run (or per answer) of each process, over the row's window. */
  cpu?: CpuPerRun;
}

/** Rounds of plain and verified sync calls, taken in turn. */
const ALTERNATIONS = 4;
/** Each round's length: a quarter of a row, but at least 2 s (a short smoke run's 0.75 s rounds can end before a busy machine answers once). */
const ROUND_SECONDS = Math.max(SECONDS / ALTERNATIONS, 2);

/** Rounds as one row: requests over the total time; p50 the rounds' median, p99 their worst; CPU over all rounds' runs. */
function combine(rounds: Figures[]): Figures {
  const requests = rounds.reduce((n, r) => n + r.requests, 0);
  const p50s = rounds.map((r) => r.p50).sort((x, y) => x - y);
  const cpus = rounds.map((r) => r.cpu).filter((c): c is CpuPerRun => c !== undefined);
  return {
    perSecond: requests / (rounds.length * ROUND_SECONDS),
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...rounds.map((r) => r.p99)),
    requests,
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    shed: rounds.reduce((n, r) => n + (r.shed ?? 0), 0),
    cpu: cpus.length
      ? cpuPerRun(
          cpus.reduce((sum, c) => addCpu(sum, c.usedMs), {}),
          cpus.reduce((n, c) => n + c.count, 0),
          cpus[0].per,
        )
      : undefined,
  };
}

const rows: Array<{ label: string; figures: Figures; note?: string; details?: string[] }> = [];
function row(label: string, figures: Figures, note = '') {
  rows.push({ label, figures, note });
  const f = figures;
  console.log(
    `  ${label.padEnd(56)} ${fmt.int(f.perSecond).padStart(5)} req/s   p50 ${fmt.ms(f.p50).padStart(9)}   p99 ${fmt.ms(f.p99).padStart(9)}${f.errors ? `   ${f.errors} errors` : ''}${f.shed ? `   ${f.shed} shed (503/429)` : ''}${note ? `   ${note}` : ''}`,
  );
  if (f.cpu) console.log(`    ${formatCpu(f.cpu)}`);
}

/** A further line under the last row, kept with it in the results. */
function detail(text: string) {
  const last = rows[rows.length - 1];
  (last.details ??= []).push(text);
  console.log(`    ${text}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  /** Meters read before and after: the figures then carry the CPU per `expect` answer (for a sync webhook, per run), or per answer. */
  cpu?: { meters: CpuMeters; per?: CpuPerRun['per'] };
  /** Keep each answer's latency by status, and count shed answers carrying Retry-After (autocannon's own percentiles cover 2xx answers only). */
  samples?: boolean;
}

interface CannonRun {
  figures: Figures;
  /** Answers with the `expect` status. */
  expected: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** With `samples`: each answer's latency (ms) by status. */
  latencies: Record<string, number[]>;
  /** With `samples`: shed answers (503, 429) that carried Retry-After. */
  retryAfter: number;
}

/** What a run's CPU is divided by: the `expect` answers (a sync webhook's completed runs), or every answer when CPU is per answer. */
const cpuCount = (statuses: Record<string, number>, options: CannonOptions) =>
  options.cpu?.per === 'answer' ? Object.values(statuses).reduce((a, b) => a + b, 0) : (statuses[options.expect] ?? 0);

const shedCount = (statuses: Record<string, number>) => Object.entries(statuses).reduce((n, [s, c]) => n + (SHED.has(Number(s)) ? c : 0), 0);

async function cannon(url: string, options: CannonOptions): Promise<CannonRun> {
  const latencies: Record<string, number[]> = {};
  let retryAfter = 0;
  const request: Record<string, unknown> = {};
  if (options.perRequest) {
    request.setupRequest = (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, ...options.perRequest!() } });
  }
  if (options.samples) {
    request.onResponse = (status: number, _body: unknown, _context: unknown, headers: Record<string, unknown> = {}) => {
      if (SHED.has(status) && Object.keys(headers).some((h) => h.toLowerCase() === 'retry-after')) retryAfter++;
    };
  }
  const used = options.cpu && cpuSince(options.cpu.meters);
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: options.method ?? 'GET',
        connections: options.connections ?? CONNECTIONS,
        duration: options.seconds ?? SECONDS,
        headers: { 'content-type': 'application/json', ...options.headers },
        body: options.body,
        ...(Object.keys(request).length ? { requests: [request] } : {}),
      } as autocannon.Options,
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    if (options.samples) instance.on('response', (_client, status, _bytes, ms) => (latencies[status] ??= []).push(ms));
  });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([s, v]) => [s, (v as { count: number }).count]));
  const expected = statuses[options.expect] ?? 0;
  if (expected === 0) throw new Error(`${url}: no ${options.expect} answers (${JSON.stringify(statuses)})`);
  const shed = shedCount(statuses);
  const figures: Figures = {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    // non2xx includes the shed answers, which are the service working as meant; autocannon's errors already include its timeouts.
    errors: result.non2xx - shed + result.errors,
    shed,
    cpu: used && cpuPerRun(used(), cpuCount(statuses, options), options.cpu!.per),
  };
  return { figures, expected, statuses, latencies, retryAfter };
}

/**
 * `options` against several URLs at once (one per API process), the connections split between them, as
 * one run: answers, requests and rates summed; p50 and p99 from the latencies of every 2xx answer of all
 * the runs together (what autocannon's own percentiles cover, but exact over the union rather than the
 * worse of the runs, which would overstate the tail of the whole). CPU over the whole, per `expect` answer.
 */
async function cannonAll(urls: string[], options: CannonOptions): Promise<CannonRun> {
  const total = options.connections ?? CONNECTIONS;
  const used = options.cpu && cpuSince(options.cpu.meters);
  const share = (i: number) => Math.max(1, Math.floor(total / urls.length) + (i < total % urls.length ? 1 : 0));
  const runs = await Promise.all(urls.map((url, i) => cannon(url, { ...options, cpu: undefined, samples: true, connections: share(i) })));
  const statuses: Record<string, number> = {};
  const latencies: Record<string, number[]> = {};
  for (const run of runs) {
    for (const [s, n] of Object.entries(run.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
    for (const [s, l] of Object.entries(run.latencies)) latencies[s] = [...(latencies[s] ?? []), ...l];
  }
  const [p50, p99] = percentiles(
    Object.entries(latencies).flatMap(([s, l]) => (s.startsWith('2') ? l : [])),
    [50, 99],
  );
  const sum = (pick: (r: CannonRun) => number) => runs.reduce((n, r) => n + pick(r), 0);
  const expected = sum((r) => r.expected);
  const figures: Figures = {
    perSecond: sum((r) => r.figures.perSecond),
    p50,
    p99,
    requests: sum((r) => r.figures.requests),
    errors: sum((r) => r.figures.errors),
    shed: sum((r) => r.figures.shed ?? 0),
    cpu: used && cpuPerRun(used(), cpuCount(statuses, options), options.cpu!.per),
  };
  return { figures, expected, statuses, latencies, retryAfter: sum((r) => r.retryAfter) };
}

async function measure(concurrency: number, op: () => Promise<unknown>, meters?: CpuMeters): Promise<Figures> {
  let errors = 0;
  const used = meters && cpuSince(meters);
  const run = await sustained(concurrency, SECONDS, () =>
    op().then(
      () => undefined,
      () => void errors++,
    ),
  );
  return {
    perSecond: run.perSecond,
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    requests: run.count,
    errors,
    cpu: used && cpuPerRun(used(), run.count - errors),
  };
}

async function devServer(setting: Setting, dir: string): Promise<TemporalDevServerHandle> {
  const file = setting === 'memory' ? {} : { dbFile: path.join(dir, `temporal-${setting}-${randomUUID()}.sqlite`), journal: setting };
  return startTemporalDevServer({ port: await freePort(), uiPort: await freePort(), ...file });
}

/** The CPU meter of a dev server the benchmark started (a shared one has no pid to read). */
function serverCpu(server: TemporalDevServerHandle): () => number {
  const pid = server.pid;
  if (pid === undefined) throw new Error(`the dev server at ${server.address} is shared, not the benchmark's: its CPU cannot be told apart`);
  return () => processCpuMs(pid);
}

/** The bare baselines on a dev server of their own with `setting`. */
async function bareTemporal(setting: Setting, dir: string, extra: boolean): Promise<void> {
  const server = await devServer(setting, dir);
  // Client and worker both run in this process: their CPU is one figure.
  const meters: CpuMeters = { 'bench process (client+worker)': () => processCpuMs(process.pid), temporal: serverCpu(server) };
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
    row(`start-and-await, ${name}`, await measure(CONNECTIONS, () => plain.workflow.execute('emptyWorkflow', { taskQueue, workflowId: randomUUID() }), meters));
    const eagerly = () => eager.workflow.execute('emptyWorkflow', { taskQueue, workflowId: randomUUID(), requestEagerStart: true });
    row(`eager start-and-await, ${name}`, await measure(CONNECTIONS, eagerly, meters));
    if (!extra) return;
    row(`eager start-and-await, ${name}, 1 caller`, await measure(1, eagerly, meters));
    row(
      `update-with-start, ${name}`,
      await measure(
        CONNECTIONS,
        () =>
          plain.workflow.executeUpdateWithStart(doneUpdate, {
            startWorkflowOperation: new WithStartWorkflowOperation('answeringWorkflow', {
              taskQueue,
              workflowId: randomUUID(),
              workflowIdConflictPolicy: 'FAIL',
            }),
          }),
        meters,
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

interface BenchWorkflows {
  /** The URL of webhook `name` on the API at `baseUrl`. */
  url(baseUrl: string, name: string): string;
  syncId: string;
  asyncId: string;
  overloadId: string;
  /** X-Hub-Signature-256 of BODY for the GitHub-verified triggers. */
  signature: Record<string, string>;
}

/**
 * A new organization with the benchmark's workflows and their triggers, created through the API at
 * `baseUrl`: sync (core.http, core.return), async (core.http) and overload (core.set, core.return), and
 * GitHub-verified, deduplicated triggers on the first two (verified, sync-dup, async-dup).
 */
async function benchWorkflows(label: string, baseUrl: string, env: Record<string, string>, stubUrl: string): Promise<BenchWorkflows> {
  const org = await admin(env, ['create-org', '--name', `Bench ${label}`, '--email', `bench-${randomUUID()}@example.test`]);
  const auth = { Authorization: `Bearer ${org.token}`, 'Content-Type': 'application/json' };
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
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
  // No I/O in the overload workflow: what is measured is how the service copes with more callers than it can start, not the stub.
  const overload = await post('/workflows', {
    name: 'bench-overload',
    steps: [
      { stepId: 'values', stepType: 'core.set', input: { values: { q: '{{ initial.q }}', source: 'bench' } } },
      { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { q: '{{ values.q }}' } } } },
    ],
  });
  await post(`/workflows/${sync.id}/triggers`, { name: 'sync', method: 'POST' });
  await post(`/workflows/${asyncWf.id}/triggers`, { name: 'async', method: 'POST' });
  await post(`/workflows/${overload.id}/triggers`, { name: 'overload', method: 'POST' });
  const secret = 'bench-signing-secret';
  const github = { verification: { scheme: 'github' }, signingSecret: secret };
  await post(`/workflows/${sync.id}/triggers`, { name: 'verified', method: 'POST', ...github });
  await post(`/workflows/${sync.id}/triggers`, { name: 'sync-dup', method: 'POST', ...github });
  await post(`/workflows/${asyncWf.id}/triggers`, { name: 'async-dup', method: 'POST', ...github });
  return {
    url: (base, name) => `${base}/w/@${org.organizationSuid}/${name}`,
    syncId: sync.id,
    asyncId: asyncWf.id,
    overloadId: overload.id,
    signature: { 'X-Hub-Signature-256': 'sha256=' + createHmac('sha256', secret).update(BODY).digest('hex') },
  };
}

/** Calls `url` `times` times one after another: the worker bundles and caches on first use. */
async function warmUp(url: string, times = 30) {
  for (let i = 0; i < times; i++) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    await res.arrayBuffer();
  }
}

/** Runs of `workflowId` by status. */
async function statusCounts(pool: Pool, workflowId: string): Promise<Record<string, number>> {
  const result = await pool.query(`SELECT status, count(*)::int AS n FROM executions WHERE workflow_id = $1 GROUP BY status`, [workflowId]);
  return Object.fromEntries(result.rows.map((r: { status: string; n: number }) => [r.status, r.n]));
}

/** What changed between two `statusCounts`: the runs of a row, once none is running. */
function countsSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([status, n]) => [status, n - (before[status] ?? 0)] as const)
      .filter(([, n]) => n !== 0),
  );
}

const statusText = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([status, n]) => `${fmt.int(n)} ${status}`)
    .join(', ') || 'none';

/** `1,311 × 202` or `1,127 × 200, 3 × 202`. */
const answersText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, n]) => `${fmt.int(n)} × ${status}`)
    .join(', ');

/** Waits until no run of `workflowId` is running; answers how long that took and when the last run finished (epoch ms). */
async function drain(pool: Pool, workflowId: string): Promise<{ ms: number; lastFinishedAt: number }> {
  const started = Date.now();
  const running = async () =>
    Number((await pool.query(`SELECT count(*) AS n FROM executions WHERE workflow_id = $1 AND status = 'running'`, [workflowId])).rows[0].n);
  while ((await running()) > 0) {
    if (Date.now() - started > DRAIN_LIMIT_MS) throw new Error(`runs of workflow ${workflowId} still running after ${fmt.s(DRAIN_LIMIT_MS)}`);
    await sleep(100);
  }
  const last = (await pool.query(`SELECT max(finished_at) AS at FROM executions WHERE workflow_id = $1`, [workflowId])).rows[0].at as Date | null;
  return { ms: Date.now() - started, lastFinishedAt: last?.getTime() ?? Date.now() };
}

/**
 * The async webhook at `urls` (several: driven at once), then its backlog drained. Accepted/s counts the
 * 202s; the finish rate the runs completed (the backlog included) over the time from the first request to
 * the last run's end: the rate the service really gets through runs. CPU over the same span, per completed run.
 */
async function asyncRow(label: string, urls: string[], pool: Pool, workflowId: string, meters: CpuMeters) {
  const before = await statusCounts(pool, workflowId);
  const used = cpuSince(meters);
  const firstRequestAt = Date.now();
  const run = await cannonAll(urls, { method: 'POST', body: BODY, expect: 202 });
  const drained = await drain(pool, workflowId);
  const counts = countsSince(before, await statusCounts(pool, workflowId));
  const [completed, failed] = [counts.completed ?? 0, counts.failed ?? 0];
  // Every run the API accepted (202s inside the window, and those answered just after it) must complete.
  const accepted = run.expected;
  run.figures.cpu = cpuPerRun(used(), completed);
  const finishSpanMs = drained.lastFinishedAt - firstRequestAt;
  const finishedPerSecond = completed / (finishSpanMs / 1000);
  const acceptedPerSecond = accepted / SECONDS;
  row(`async (202), ${label}`, run.figures, `backlog drained in ${fmt.s(drained.ms)}; ${fmt.int(completed)} runs completed, ${failed} failed`);
  detail(
    `accepted ${fmt.int(acceptedPerSecond)}/s, finished ${fmt.int(finishedPerSecond)}/s (first request → last run completed, ${fmt.s(finishSpanMs)}): ${fmt.ratio(finishedPerSecond / acceptedPerSecond)} (aim 0.9)`,
  );
  if (failed > 0 || completed < accepted) throw new Error(`${accepted} runs accepted, ${completed} completed, ${failed} failed`);
  return {
    async: run.figures,
    asyncAccepted: accepted,
    asyncCompleted: completed,
    asyncDrainMs: drained.ms,
    asyncAcceptedPerSecond: acceptedPerSecond,
    asyncFinishedPerSecond: finishedPerSecond,
    asyncFinishedRatio: finishedPerSecond / acceptedPerSecond,
  };
}

/**
 * OVERLOAD_CONNECTIONS callers on a cheap synchronous webhook, far more than the service starts at once:
 * the 200s a second, how the latency spreads (every answer, and the 200s alone), what was shed (503, 429;
 * with Retry-After?), and, once nothing runs, that every run answered 200 completed.
 */
async function overloadRow(label: string, url: string, pool: Pool, workflowId: string, meters: CpuMeters) {
  await warmUp(url, 10);
  const before = await statusCounts(pool, workflowId);
  const used = cpuSince(meters);
  const run = await cannonAll([url], { method: 'POST', body: BODY, expect: 200, connections: OVERLOAD_CONNECTIONS });
  const drained = await drain(pool, workflowId);
  const counts = countsSince(before, await statusCounts(pool, workflowId));
  const ok = run.statuses['200'] ?? 0;
  const completed = counts.completed ?? 0;
  const all = percentiles(Object.values(run.latencies).flat(), [50, 90, 99]);
  const oks = percentiles(run.latencies['200'] ?? [], [50, 90, 99]);
  const figures: Figures = {
    perSecond: ok / SECONDS,
    p50: oks[0],
    p99: oks[2],
    requests: Object.values(run.statuses).reduce((a, b) => a + b, 0),
    errors: run.figures.errors,
    shed: run.figures.shed,
    cpu: cpuPerRun(used(), completed),
  };
  const [n503, n429] = [run.statuses['503'] ?? 0, run.statuses['429'] ?? 0];
  row(`overload: set + return, ${OVERLOAD_CONNECTIONS} callers, ${label}`, figures, `200s only; p90 ${fmt.ms(oks[1])}, p99/p50 ${fmt.ratio(oks[2] / oks[0])}`);
  detail(
    `every answer (${answersText(run.statuses)}): p50 ${fmt.ms(all[0])}, p90 ${fmt.ms(all[1])}, p99 ${fmt.ms(all[2])}, p99/p50 ${fmt.ratio(all[2] / all[0])}`,
  );
  detail(
    n503 + n429 ? `shed: ${fmt.int(n503)} × 503, ${fmt.int(n429)} × 429; Retry-After on ${fmt.int(run.retryAfter)} of them` : 'shed: none (no 503 or 429)',
  );
  detail(`runs after the drain (${fmt.s(drained.ms)}): ${statusText(counts)}; ${fmt.int(ok)} answered 200${completed >= ok ? ', every one completed' : ''}`);
  if (completed < ok) throw new Error(`overload: ${ok} runs answered 200, only ${completed} completed (${statusText(counts)})`);
  return {
    figures,
    statuses: run.statuses,
    allLatency: { p50: all[0], p90: all[1], p99: all[2] },
    okLatency: { p50: oks[0], p90: oks[1], p99: oks[2] },
    retryAfter: run.retryAfter,
    runs: counts,
    drainMs: drained.ms,
  };
}

/** The service's webhooks on one API (and its worker), the async backlog drained and counted. */
async function webhooks(label: string, service: RunningService, env: Record<string, string>, pool: Pool, stubUrl: string, meters: CpuMeters) {
  const wfs = await benchWorkflows(label, service.baseUrl, env, stubUrl);
  const hook = (name: string) => wfs.url(service.baseUrl, name);
  await warmUp(hook('sync'));
  const cpu = { meters };

  const syncRun = await cannon(hook('sync'), { method: 'POST', body: BODY, expect: 200, cpu });
  row(`sync (http + return), ${label}`, syncRun.figures);
  const oneCaller = await cannon(hook('sync'), { method: 'POST', body: BODY, expect: 200, connections: 1, cpu });
  row(`sync, 1 caller, ${label}`, oneCaller.figures);
  const verified = await verifiedRows(label, hook, wfs.signature, pool, meters);
  const asyncFigures = await asyncRow(label, [hook('async')], pool, wfs.asyncId, meters);
  const overload = await overloadRow(label, hook('overload'), pool, wfs.overloadId, meters);
  return { sync: syncRun.figures, ...verified, syncOneCaller: oneCaller.figures, ...asyncFigures, overload };
}

/**
 * Verified ingress beside the plain sync webhook, in alternating rounds: the
 * same workflow behind a GitHub signature and deduplication by
 * X-GitHub-Delivery, each request a new delivery; then one delivery sent
 * again and again (async and sync), which must start exactly one run each.
 */
async function verifiedRows(label: string, hook: (name: string) => string, signature: Record<string, string>, pool: Pool, meters: CpuMeters) {
  const cpu = { meters };
  // Plain and verified in alternating rounds: on a shared machine the load drifts within a minute, and a ratio of two rows measured a minute apart shows the drift.
  const rounds: Array<{ plain: Figures; verified: Figures }> = [];
  for (let i = 0; i < ALTERNATIONS; i++) {
    const seconds = ROUND_SECONDS;
    const plainRound = await cannon(hook('sync'), { method: 'POST', body: BODY, expect: 200, seconds, cpu });
    const verifiedRound = await cannon(hook('verified'), {
      method: 'POST',
      body: BODY,
      expect: 200,
      seconds,
      headers: signature,
      perRequest: () => ({ 'X-GitHub-Delivery': randomUUID() }),
      cpu,
    });
    rounds.push({ plain: plainRound.figures, verified: verifiedRound.figures });
  }
  const plainAlternating = combine(rounds.map((r) => r.plain));
  const verified = combine(rounds.map((r) => r.verified));
  const ratio = verified.perSecond / plainAlternating.perSecond;
  row(`sync, plain (alternating with the next), ${label}`, plainAlternating, `${ALTERNATIONS} rounds of ${ROUND_SECONDS} s`);
  row(`sync, verified + deduplicated, ${label}`, verified, `${ratio.toFixed(2)}x the plain rounds (aim 0.95)`);

  const duplicates: Record<string, Figures> = {};
  for (const [name, expect] of DUPLICATE_TRIGGERS) {
    const delivery = randomUUID();
    // No run starts for a duplicate: its CPU is per answer.
    const run = await cannon(hook(name), {
      method: 'POST',
      body: BODY,
      expect,
      headers: { ...signature, 'X-GitHub-Delivery': delivery },
      cpu: { meters, per: 'answer' },
    });
    const runs = (await runsByDelivery(pool, [delivery])).get(delivery) ?? 0;
    row(`duplicates of one delivery (${name.split('-')[0]}), ${label}`, run.figures, `answered ${answersText(run.statuses)}, ${runs} run started`);
    if (runs !== 1) throw new Error(`${name}: ${runs} runs for one delivery id`);
    duplicates[name] = run.figures;
  }
  return { plainAlternating, verified, verifiedRatio: ratio, duplicates };
}

/** The deduplicated triggers and the status each copy of a delivery is answered with. */
const DUPLICATE_TRIGGERS = [
  ['async-dup', 202],
  ['sync-dup', 200],
] as const;

/** Runs started by each delivery id. */
async function runsByDelivery(pool: Pool, deliveries: string[]): Promise<Map<string, number>> {
  const result = await pool.query(`SELECT delivery_id AS id, count(*)::int AS n FROM executions WHERE delivery_id = ANY($1) GROUP BY delivery_id`, [
    deliveries,
  ]);
  return new Map(result.rows.map((r: { id: string; n: number }) => [r.id, r.n]));
}

/** Fresh deliveries raced across the API processes, and how many copies of each every API gets at once. */
const RACING_DELIVERIES = 20;
const COPIES_PER_API = 4;

/**
 * Fresh deliveries, each sent COPIES_PER_API times to every URL at once (the first arrival of a delivery
 * is where two processes could both start it); fails unless each delivery started exactly one run and
 * every copy was answered `expect`, or 202 (a sync run that has not answered yet is reported to a
 * duplicate as accepted and running, not waited for), with at least one `expect`. Answers the statuses.
 */
async function raceDeliveries(urls: string[], expect: number, signature: Record<string, string>, pool: Pool): Promise<Record<string, number>> {
  const deliveries = Array.from({ length: RACING_DELIVERIES }, () => randomUUID());
  const tally: Record<string, number> = {};
  for (const delivery of deliveries) {
    const headers = { 'content-type': 'application/json', ...signature, 'X-GitHub-Delivery': delivery };
    const send = (url: string) => fetch(url, { method: 'POST', headers, body: BODY }).then(async (res) => (await res.arrayBuffer(), res.status));
    const statuses = await Promise.all(urls.flatMap((url) => Array.from({ length: COPIES_PER_API }, () => send(url))));
    if (statuses.some((s) => s !== expect && s !== 202) || !statuses.includes(expect)) {
      throw new Error(`delivery ${delivery} raced across the APIs: answered ${statuses.join(', ')}`);
    }
    for (const s of statuses) tally[s] = (tally[s] ?? 0) + 1;
  }
  const runs = await runsByDelivery(pool, deliveries);
  const wrong = deliveries.filter((d) => runs.get(d) !== 1);
  if (wrong.length) throw new Error(`${wrong.length} of ${deliveries.length} raced deliveries started ${wrong.map((d) => runs.get(d) ?? 0).join(', ')} runs`);
  return tally;
}

/**
 * One delivery sent again and again to every API process at once (half the callers each), async and
 * sync: exactly one run must start across the processes; then fresh deliveries raced across them.
 */
async function duplicatesAcross(label: string, urls: (name: string) => string[], signature: Record<string, string>, pool: Pool, meters: CpuMeters) {
  const duplicates: Record<string, Figures & { statuses: Record<string, number>; raced: Record<string, number> }> = {};
  for (const [name, expect] of DUPLICATE_TRIGGERS) {
    const delivery = randomUUID();
    const headers = { ...signature, 'X-GitHub-Delivery': delivery };
    const run = await cannonAll(urls(name), { method: 'POST', body: BODY, expect, headers, cpu: { meters, per: 'answer' } });
    const runs = (await runsByDelivery(pool, [delivery])).get(delivery) ?? 0;
    row(`duplicates of one delivery (${name.split('-')[0]}), both APIs, ${label}`, run.figures, `answered ${answersText(run.statuses)}, ${runs} run started`);
    if (runs !== 1) throw new Error(`${name}: ${runs} runs for one delivery id sent to ${urls(name).length} API processes`);
    const raced = await raceDeliveries(urls(name), expect, signature, pool);
    detail(`${RACING_DELIVERIES} fresh deliveries, each sent ${COPIES_PER_API} times to each API at once: 1 run started each; answered ${answersText(raced)}`);
    duplicates[name] = { ...run.figures, statuses: run.statuses, raced };
  }
  return duplicates;
}

/** CPU of several processes as one meter (both API processes, say). */
const cpuOf = (services: RunningService[]) => () => services.reduce((ms, s) => ms + processCpuMs(s.pid), 0);

/**
 * Two API processes and two workers against one dev server the benchmark starts and the same
 * PostgreSQL; both APIs driven at once with half the callers each.
 */
async function scaleOut(baseEnv: Record<string, string>, dir: string, pgDir: string, pool: Pool, stubUrl: string) {
  const label = 'scale-out';
  // A dev server of its own, fresh as the two-process rows' was when they started.
  const server = await devServer(JOURNAL, dir);
  const workers: RunningService[] = [];
  const apis: RunningService[] = [];
  try {
    const env = { ...baseEnv, TEMPORAL_ADDRESS: server.address };
    for (const n of [1, 2]) workers.push(await startService({ ...env, PORT: String(await freePort()) }, path.join(dir, `worker-${n}.log`), 'worker'));
    for (const n of [1, 2]) apis.push(await startService({ ...env, PORT: String(await freePort()) }, path.join(dir, `api-${n}.log`), 'api'));
    const meters: CpuMeters = { 'API ×2': cpuOf(apis), 'worker ×2': cpuOf(workers), temporal: serverCpu(server), postgres: () => postgresCpuMs(pgDir) };
    const wfs = await benchWorkflows(label, apis[0].baseUrl, env, stubUrl);
    const urls = (name: string) => apis.map((api) => wfs.url(api.baseUrl, name));
    for (const url of urls('sync')) await warmUp(url);

    const sync = await cannonAll(urls('sync'), { method: 'POST', body: BODY, expect: 200, cpu: { meters } });
    row(`sync (http + return), ${label}`, sync.figures, 'both APIs at once, half the callers each');
    const asyncFigures = await asyncRow(label, urls('async'), pool, wfs.asyncId, meters);
    const duplicates = await duplicatesAcross(label, urls, wfs.signature, pool, meters);
    return { sync: sync.figures, ...asyncFigures, duplicates };
  } finally {
    for (const s of [...apis, ...workers]) await s.stop();
    await server.stop();
  }
}

/**
 * The sync webhook with tracing off and on, in alternating rounds on two one-process services that share one dev
 * server (each with its own task queue): the traced one exports every span (OTEL_TRACES_SAMPLER=always_on) to a local
 * Jaeger. At the end one traced call's trace is read back, so the row cannot pass with nothing exported.
 */
async function tracingRows(baseEnv: Record<string, string>, dir: string, pgDir: string, stubUrl: string) {
  const label = 'tracing';
  const jaeger = await startJaeger({ recordExported: false });
  const server = await devServer(JOURNAL, dir);
  const services: RunningService[] = [];
  try {
    const env = { ...baseEnv, TEMPORAL_ADDRESS: server.address };
    const traceEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'flowbase-bench' };
    const plain = await startService({ ...env, PORT: String(await freePort()), TEMPORAL_TASK_QUEUE: 'bench-untraced' }, path.join(dir, 'untraced.log'), 'all');
    services.push(plain);
    const traced = await startService(
      { ...env, ...traceEnv, PORT: String(await freePort()), TEMPORAL_TASK_QUEUE: 'bench-traced' },
      path.join(dir, 'traced.log'),
      'all',
    );
    services.push(traced);
    // The receiver shares this machine's cores, so its CPU is counted in both rounds (in the untraced ones it idles).
    const meters = (service: RunningService): CpuMeters => ({
      service: () => processCpuMs(service.pid),
      temporal: serverCpu(server),
      postgres: () => postgresCpuMs(pgDir),
      jaeger: () => processCpuMs(jaeger.pid),
    });
    const hooks = await Promise.all(
      [plain, traced].map(async (service, i) => (await benchWorkflows(`${label} ${i}`, service.baseUrl, env, stubUrl)).url(service.baseUrl, 'sync')),
    );
    for (const hook of hooks) await warmUp(hook);
    const rounds: Array<{ off: Figures; on: Figures }> = [];
    for (let i = 0; i < ALTERNATIONS; i++) {
      const off = await cannon(hooks[0], { method: 'POST', body: BODY, expect: 200, seconds: ROUND_SECONDS, cpu: { meters: meters(plain) } });
      const on = await cannon(hooks[1], { method: 'POST', body: BODY, expect: 200, seconds: ROUND_SECONDS, cpu: { meters: meters(traced) } });
      rounds.push({ off: off.figures, on: on.figures });
    }
    const off = combine(rounds.map((r) => r.off));
    const on = combine(rounds.map((r) => r.on));
    const ratio = on.perSecond / off.perSecond;
    row(`sync (http + return), tracing off (alternating with the next)`, off, `${ALTERNATIONS} rounds of ${ROUND_SECONDS} s`);
    row(`sync (http + return), tracing on, every trace exported`, on, `${ratio.toFixed(2)}x the untraced rounds (aim 0.9)`);

    const answer = await fetch(hooks[1], { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    const traceId = /^00-([0-9a-f]{32})-/.exec(answer.headers.get('traceresponse') ?? '')?.[1];
    if (!traceId) throw new Error('the traced service answered without a traceresponse header');
    const spans = await jaeger.waitForTrace(traceId, (found) => found.some((span) => span.name === 'step core.return'));
    detail(`one traced call read back from Jaeger: ${spans.length} spans`);
    return { off, on, ratio, spansPerCall: spans.length };
  } finally {
    for (const service of services) await service.stop();
    await server.stop();
    await jaeger.close();
  }
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755);
  const stub = await startStub();
  // PostgreSQL's data directory itself (embedded-postgres's databaseDir: initdb --pgdata, postgres -D), where postmaster.pid is.
  const pgDir = path.join(dir, 'postgres');
  const pg = await startEmbeddedPostgres({ dir: pgDir, port: await freePort(), database: 'flowbase_bench', persistent: true });
  const pool = new Pool({ connectionString: pg.url, max: 2 });
  const services: RunningService[] = [];
  const servers: TemporalDevServerHandle[] = [];
  const postgres = () => postgresCpuMs(pgDir);
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
  const results: Record<string, unknown> = {
    connections: CONNECTIONS,
    overloadConnections: OVERLOAD_CONNECTIONS,
    seconds: SECONDS,
    cpus: os.cpus().length,
    journal: JOURNAL,
  };
  try {
    console.log(`Webhook benchmark: ${CONNECTIONS} concurrent callers, ${SECONDS} s a row, ${os.cpus().length} CPUs, everything on this machine\n`);
    console.log('Baselines: an empty workflow, bare Temporal');
    row('stub alone (HTTP)', (await cannon(`${stub.url}/items?q=bench`, { expect: 200 })).figures);
    if (PARTS.has('baselines')) for (const setting of SETTINGS) await bareTemporal(setting, dir, setting === JOURNAL);

    if (PARTS.has('one-process')) await oneProcess();
    if (PARTS.has('two-processes')) await twoProcesses();
    if (PARTS.has('scale-out')) {
      console.log(`\nScale-out: two API processes and two workers (${JOURNAL} dev server of their own, both APIs driven at once)`);
      results.scaleOut = await scaleOut(baseEnv, dir, pgDir, pool, stub.url);
    }

    if (PARTS.has('tracing')) {
      console.log(`\nTracing: one-process services on a ${JOURNAL} dev server of their own, tracing off and on in alternating rounds`);
      results.tracing = await tracingRows(baseEnv, dir, pgDir, stub.url);
    }

    results.rows = rows;
    console.log(`\nResults written to ${saveResults('webhook', results)}`);
  } finally {
    // stop() answers at once for what has stopped already.
    for (const s of services.reverse()) await s.stop();
    for (const s of servers) await s.stop();
    await pool.end();
    await pg.stop();
    stub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  async function oneProcess() {
    console.log(`\nThe service as npm start runs it (API and worker in one process, ${JOURNAL} dev server, eager start)`);
    const allEnv = {
      ...baseEnv,
      PORT: String(await freePort()),
      EMBEDDED_TEMPORAL_PORT: String(await freePort()),
      EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    };
    const all = await startService(allEnv, path.join(dir, 'service.log'), 'all');
    services.push(all);
    // The embedded dev server is the service's child; the service does not say its pid.
    const embeddedTemporal = childProcessPid(all.pid, 'temporal');
    if (embeddedTemporal === undefined) throw new Error(`no child process of the service (${all.pid}) whose command line names temporal`);
    const allMeters: CpuMeters = { service: () => processCpuMs(all.pid), temporal: () => processCpuMs(embeddedTemporal), postgres };
    results.oneProcess = await webhooks('one process', all, allEnv, pool, stub.url, allMeters);
    await all.stop();
  }

  async function twoProcesses() {
    console.log(`\nAPI and worker in two processes (${JOURNAL} dev server, no eager start: answers by update)`);
    const server = await devServer(JOURNAL, dir);
    servers.push(server);
    const splitEnv = { ...baseEnv, TEMPORAL_ADDRESS: server.address, PORT: String(await freePort()) };
    const worker = await startService(splitEnv, path.join(dir, 'worker.log'), 'worker');
    services.push(worker);
    const api = await startService(splitEnv, path.join(dir, 'api.log'), 'api');
    services.push(api);
    const splitMeters: CpuMeters = { api: () => processCpuMs(api.pid), worker: () => processCpuMs(worker.pid), temporal: serverCpu(server), postgres };
    results.twoProcesses = await webhooks('two processes', api, splitEnv, pool, stub.url, splitMeters);
    // Stopped before the scale-out: an idle worker would still poll and skew its CPU, and the machine has few cores.
    await api.stop();
    await worker.stop();
    await server.stop();
    servers.pop(); // a dev server killed by a signal has no exit code: stop() would wait for an exit that came already
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
