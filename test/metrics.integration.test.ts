import fs from 'node:fs';
import request from 'supertest';
import { freePort } from '../src/infra/free-port';
import { eventually, type TestOrg } from './factories';
import { type Harness, quietTemporalRuntime } from './harness';
import { startHttpStub, sendJson, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type WorkflowApi } from './workflow-api';
import { serviceEntry, startServiceProcess, type ServiceProcess } from './worker-process';

/**
 * The Prometheus endpoint (METRICS_PORT): a known load through the real app and worker (three webhook calls, one
 * refused 401; one run completed, one failed) moves the counters by exactly that much; no label value is an id or a
 * secret. A worker process started as `npm start -- worker` serves its own figures and the Temporal SDK's
 * (TEMPORAL_METRICS_PORT), and listens on no port at all when neither is set.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let stub: HttpStub;
let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let metricsPort: number;

beforeAll(async () => {
  // The failed run is on purpose: the worker need not log it.
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub({ fallback: (_req, res) => sendJson(res, 200, { ok: true }) });
  metricsPort = await freePort();
  ({ h, org, a } = await startWorkflowHarness(stub, { configure: (config) => (config.metrics.port = metricsPort) }));
});

afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** One scrape: every sample as `name{labels}` → value, and the raw text. */
async function scrape(port: number): Promise<{ text: string; samples: Map<string, number> }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { text, samples };
}

/** Every label value of the scrape. */
function labelValues(text: string): string[] {
  return [...text.matchAll(/[a-z_]+="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
}

const SERIES = {
  syncOk: 'flowbase_webhook_answers_total{status_class="2xx",mode="sync"}',
  asyncOk: 'flowbase_webhook_answers_total{status_class="2xx",mode="async"}',
  refused: 'flowbase_webhook_answers_total{status_class="4xx",mode="unknown"}',
  admitted: 'flowbase_webhook_admission_wait_seconds_count{outcome="admitted"}',
  started: 'flowbase_runs_started_total{mode="webhook"}',
  completed: 'flowbase_runs_ended_total{mode="webhook",status="completed"}',
  failed: 'flowbase_runs_ended_total{mode="webhook",status="failed"}',
  returnSteps: 'flowbase_step_duration_seconds_count{step_type="core.return",status="completed"}',
  failedHttpSteps: 'flowbase_step_duration_seconds_count{step_type="core.http",status="failed"}',
} as const;

describe('the metrics endpoint of the API and worker', () => {
  test('a known load moves the counters by what it did', async () => {
    const sync = await a.createHook([returnStep('answer', { ok: true })]);
    const failing = await a.createHook([httpStep('call', { url: `${stub.url}/status/400`, timeoutMs: 10_000 })]);
    const guarded = await a.createHook([returnStep('answer', { ok: true })], { authentication: true });
    const before = (await scrape(metricsPort)).samples;
    const delta = (now: Map<string, number>, series: string) => (now.get(series) ?? 0) - (before.get(series) ?? 0);

    const answered = await request(h.app).post(sync.path).send({});
    expect(answered.status).toBe(200);
    const accepted = await request(h.app).post(failing.path).send({});
    expect(accepted.status).toBe(202);
    expect((await request(h.app).post(guarded.path).send({})).status).toBe(401);
    await a.awaitEnd(answered.headers['x-execution-id']);
    expect((await a.awaitEnd(accepted.body.executionId)).status).toBe('failed');

    // The runs' ends are counted by the worker's activities, which may finish a moment after the record reads ended.
    const after = await eventually(
      async () => (await scrape(metricsPort)).samples,
      (now) => delta(now, SERIES.completed) >= 1 && delta(now, SERIES.failed) >= 1,
    );
    expect(Object.fromEntries(Object.entries(SERIES).map(([name, series]) => [name, delta(after, series)]))).toEqual({
      syncOk: 1,
      asyncOk: 1,
      refused: 1,
      admitted: 2,
      started: 2,
      completed: 1,
      failed: 1,
      returnSteps: 1,
      failedHttpSteps: expect.any(Number),
    });
    expect(delta(after, SERIES.failedHttpSteps)).toBeGreaterThanOrEqual(1);
  });

  test('process, pool and gate figures are there; no label value is an id, a token or a secret', async () => {
    const guarded = await a.createHook([returnStep('answer', { ok: true })], { authentication: true });
    expect((await request(h.app).post(guarded.path).set('Authorization', `Bearer ${guarded.trigger.secret}`).send({})).status).toBe(200);
    const { text, samples } = await scrape(metricsPort);

    for (const name of [
      'flowbase_process_cpu_seconds_total',
      'flowbase_process_resident_memory_bytes',
      'flowbase_nodejs_eventloop_lag_p99_seconds',
      'flowbase_nodejs_heap_size_used_bytes',
      'flowbase_db_pool_waiting',
      'flowbase_webhook_runs_in_flight',
    ]) {
      expect(samples.has(name)).toBe(true);
    }
    expect(samples.get('flowbase_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(0);
    expect(samples.get('flowbase_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(samples.get('flowbase_analytics_queue{queue="queries",state="waiting"}')).toBe(0);
    expect(samples.get('flowbase_pdf_renders{state="rendering"}')).toBe(0);

    const values = labelValues(text);
    expect(values.length).toBeGreaterThan(0);
    const secrets = [org.ownerToken, guarded.trigger.secret!, org.organizationSuid, guarded.trigger.name, guarded.workflow.id].filter(Boolean);
    expect(values.filter((v) => UUID.test(v) || secrets.some((s) => v.includes(s)))).toEqual([]);
  });

  test('anything but GET /metrics is 404', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});

/** The TCP ports a process listens on, from /proc (Linux): its sockets' inodes among the listening ones. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set(
    fs
      .readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode): inode is string => inode !== undefined),
  );
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl, local address, remote address, state (0A: LISTEN), …, inode (10th).
      if (fields[3] === '0A' && inodes.has(fields[9])) ports.push(parseInt(fields[1].split(':')[1], 16));
    }
  }
  return ports;
}

/** `src/main.ts worker` with these settings, as test/worker-process.ts starts it, keeping its pid and output. */
async function startWorker(env: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess([...(await serviceEntry('main')), 'worker'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: `metrics-${Date.now()}`, LOG_LEVEL: 'info', RUN_WORKER: 'true', ...env },
    ready: 'Temporal worker running',
  });
}

describe('a worker process (src/main.ts worker)', () => {
  const workers: ServiceProcess[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  test("serves its own metrics on METRICS_PORT and the Temporal SDK's on TEMPORAL_METRICS_PORT", async () => {
    const [port, temporalPort] = [await freePort(), await freePort()];
    const worker = await startWorker({ METRICS_PORT: String(port), TEMPORAL_METRICS_PORT: String(temporalPort) });
    workers.push(worker);
    expect(listeningPorts(worker.pid!).sort()).toEqual([port, temporalPort].sort());

    const own = await scrape(port);
    expect(own.samples.has('flowbase_process_cpu_seconds_total')).toBe(true);
    expect(own.samples.has('flowbase_db_pool_waiting')).toBe(true);
    // Core exports once its worker has polled; the slot gauges are there from the first poll.
    await eventually(
      async () => (await scrape(temporalPort)).text,
      (text) => /^temporal_worker_task_slots_available\{/m.test(text),
    );
  });

  test('listens on no port at all when METRICS_PORT and TEMPORAL_METRICS_PORT are unset', async () => {
    const worker = await startWorker({ METRICS_PORT: '', TEMPORAL_METRICS_PORT: '' });
    workers.push(worker);
    expect(listeningPorts(worker.pid!)).toEqual([]);
    expect(worker.output()).not.toContain('metrics endpoint listening');
  });
});
