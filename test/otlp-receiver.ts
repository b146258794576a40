import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, portInUse } from '../src/infra/free-port';
import { flattenSpans, type ExportedSpan } from './otlp-spans';

export type { ExportedSpan } from './otlp-spans';

/**
 * A real OpenTelemetry receiver for the tests and benchmarks: Jaeger's all-in-one (v2, an OpenTelemetry Collector
 * with Jaeger's storage and query), built from tools/jaeger by `node scripts/run.mjs test|setup|bench`, with
 * in-memory storage, on free loopback ports. Spans go in over OTLP/HTTP (protobuf or JSON) and come back out of
 * Jaeger's /api/v3 query API.
 */
export interface Jaeger {
  /** The OTLP/HTTP base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add /v1/traces). */
  otlpEndpoint: string;
  /** The OTLP/HTTP traces URL itself, for an exporter's `url` option or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  tracesUrl: string;
  /** The query API's base URL (/api/v3/...). */
  queryUrl: string;
  /** Its process id: a benchmark counts the receiver's CPU beside the service's. */
  pid: number;
  /** The spans stored for the trace so far (none when Jaeger has none yet). `traceId` in hex. */
  trace(traceId: string): Promise<ExportedSpan[]>;
  /**
   * Polls `trace` until `predicate` holds (exporters batch, so spans arrive late) and `exportedText` has the spans
   * too, or fails after `timeoutMs` naming what came (default 20 s: a batch processor waits up to 5 s to export).
   */
  waitForTrace(traceId: string, predicate: (spans: ExportedSpan[]) => boolean, timeoutMs?: number): Promise<ExportedSpan[]>;
  /** Every stored span whose resource has this service.name (from the traces started in the last day). */
  allSpans(serviceName: string): Promise<ExportedSpan[]>;
  /**
   * Everything Jaeger received, as its debug exporter printed it (every span with every attribute, resource
   * attribute and event, e.g. `-> http.route: Str(/v1/workflows)`): what a test searches for secrets. Complete for
   * every span a finished `waitForTrace` returned, and for every export request that was answered.
   */
  exportedText(): string;
  /** Stops Jaeger and removes its configuration. */
  close(): Promise<void>;
}

export interface JaegerOptions {
  /**
   * Keep the debug exporter's output for `exportedText` (default true). A benchmark that sends many spans sets it to
   * false: Jaeger then neither formats nor prints them, and this process keeps none of it.
   */
  recordExported?: boolean;
  /** Traces kept in memory before the oldest go (default 100,000). */
  maxTraces?: number;
  /** Milliseconds to wait for Jaeger to listen (default 30 s: a cold start of the binary takes about one). */
  startTimeoutMs?: number;
}

const ROOT = path.join(__dirname, '..');

/** The binary `node scripts/run.mjs test|setup|bench` built for the version tools/jaeger/go.mod names, or JAEGER_PATH. */
export function jaegerPath(): string {
  if (process.env.JAEGER_PATH) return process.env.JAEGER_PATH;
  const goMod = fs.readFileSync(path.join(ROOT, 'tools/jaeger/go.mod'), 'utf8');
  const version = /^\s*github\.com\/jaegertracing\/jaeger (v\S+)/m.exec(goMod)?.[1];
  const bin = path.join(ROOT, `.tools/jaeger-${version}/jaeger`);
  if (!fs.existsSync(bin)) {
    throw new Error(
      `Jaeger ${version} is not built (${bin}): run \`node scripts/run.mjs setup\` (npm test builds it too), or set JAEGER_PATH to a Jaeger v2 binary.`,
    );
  }
  return bin;
}

/**
 * Jaeger's configuration (JSON is YAML): OTLP/HTTP in, the in-memory store and, when recorded, the debug exporter out.
 * The debug exporter prints with a logger of its own (stdout, every message: the collector's logger samples repeated
 * ones away under load) and without its default queue, so it has printed a batch before the receiver answers the
 * export request.
 */
function config(ports: { otlp: number; http: number; grpc: number }, options: JaegerOptions) {
  const record = options.recordExported ?? true;
  return {
    service: {
      extensions: ['jaeger_storage', 'jaeger_query'],
      pipelines: { traces: { receivers: ['otlp'], exporters: ['jaeger_storage_exporter', ...(record ? ['debug'] : [])] } },
      telemetry: { logs: { level: 'warn' }, metrics: { level: 'none' } },
    },
    extensions: {
      // enable_tracing off: Jaeger would trace its own queries to OTEL_EXPORTER_OTLP_ENDPOINT or localhost:4317, and wait
      // 10 s at shutdown for an export nobody receives.
      jaeger_query: {
        enable_tracing: false,
        storage: { traces: 'memstore' },
        http: { endpoint: `127.0.0.1:${ports.http}` },
        grpc: { endpoint: `127.0.0.1:${ports.grpc}` },
      },
      jaeger_storage: { backends: { memstore: { memory: { max_traces: options.maxTraces ?? 100_000 } } } },
    },
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${ports.otlp}` } } } },
    exporters: {
      jaeger_storage_exporter: { trace_storage: 'memstore' },
      ...(record ? { debug: { verbosity: 'detailed', use_internal_logger: false, sending_queue: { enabled: false } } } : {}),
    },
  };
}

/** Starts Jaeger; a port taken between freePort and Jaeger's listen (another test file's server) costs one more try. */
export async function startJaeger(options: JaegerOptions = {}): Promise<Jaeger> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt < 3 && /address already in use/.test(String(error))) continue;
      throw error;
    }
  }
}

async function startOnce(options: JaegerOptions): Promise<Jaeger> {
  const bin = jaegerPath();
  const ports = { otlp: await freePort(), http: await freePort(), grpc: await freePort() };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-jaeger-'));
  const configFile = path.join(dir, 'config.yaml');
  fs.writeFileSync(configFile, JSON.stringify(config(ports, options), null, 2));
  const record = options.recordExported ?? true;

  // Without the OTEL_* settings a test may have set for the service: they are not Jaeger's.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const child = spawn(bin, ['--config', configFile], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // Both always drained, so Jaeger never blocks on a full pipe. stdout is the debug exporter's (kept whole: it is
  // what a test searches); stderr is Jaeger's own log, warnings and errors only (the last 64 KB, for a failed start).
  let exported = '';
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    if (record) exported += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log = (log + chunk).slice(-(1 << 16))));
  // 'close', not 'exit': it also comes after a failed spawn (no binary there), and once the output is all read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  child.once('error', (error) => (log += `\n${error.message}`));

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  const queryUrl = `http://127.0.0.1:${ports.http}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  // Both servers listening, and the query API answering (its storage is attached by then).
  while (!(
    (await portInUse(ports.otlp)) &&
    (await portInUse(ports.http)) &&
    (await fetch(`${queryUrl}/api/v3/services`).then(
      (r) => r.ok,
      () => false,
    ))
  )) {
    if (exitedEarly || Date.now() > deadline) {
      await close();
      throw new Error(`Jaeger ${exitedEarly ? 'exited' : `did not listen within ${options.startTimeoutMs ?? 30_000} ms`}; it wrote:\n${log.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const get = async (url: string): Promise<ExportedSpan[]> => {
    const response = await fetch(url);
    // "No traces found" is a 404.
    if (response.status === 404) return [];
    const body: any = await response.json().catch(() => undefined);
    if (!response.ok) throw new Error(`Jaeger answered ${response.status} to ${url}: ${JSON.stringify(body)}`);
    return flattenSpans(body?.result);
  };
  const trace = (traceId: string) => get(`${queryUrl}/api/v3/traces/${traceId.toLowerCase()}`);

  return {
    otlpEndpoint: `http://127.0.0.1:${ports.otlp}`,
    tracesUrl: `http://127.0.0.1:${ports.otlp}/v1/traces`,
    queryUrl,
    pid: child.pid!,
    trace,
    async waitForTrace(traceId, predicate, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const spans = await trace(traceId);
        // The debug exporter printed a batch before the store had it, or just after: its lines may still be in the pipe.
        if (predicate(spans) && (!record || spans.every((span) => new RegExp(`^ {4}ID +: ${span.spanId}$`, 'm').test(exported)))) return spans;
        if (Date.now() > until) {
          const seen = spans.map((span) => span.name).join(', ') || 'no span';
          throw new Error(`Trace ${traceId} did not become as expected within ${timeoutMs} ms; Jaeger has ${seen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async allSpans(serviceName) {
      const now = Date.now();
      const query = new URLSearchParams({
        'query.service_name': serviceName,
        'query.start_time_min': new Date(now - 86_400_000).toISOString(),
        'query.start_time_max': new Date(now + 60_000).toISOString(),
        // How many traces to return, at most max_traces. v1.75 calls it num_traces and ignores search_depth.
        'query.num_traces': String(options.maxTraces ?? 100_000),
      });
      const spans = await get(`${queryUrl}/api/v3/traces?${query}`);
      // The search answers whole traces, with the spans of the other services that took part.
      return spans.filter((span) => span.resource['service.name'] === serviceName);
    },
    exportedText() {
      if (!record) throw new Error('This Jaeger was started with recordExported: false: it kept no debug output.');
      return exported;
    },
    close,
  };
}
