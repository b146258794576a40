import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's one Prometheus registry and every metric Flowbase defines. Labels take values from small fixed sets
 * (a status class, a mode, a step type, a provider): never an id, a name an organization chose, or a secret, so a
 * series count stays bounded however many organizations, workflows and runs there are.
 */
export const registry = new Registry();

let defaultsCollected = false;
/**
 * Process and runtime figures (CPU, memory, GC, event-loop lag, handles), prefixed so they do not clash with others'.
 * Started with the endpoint, not on import: a process nobody scrapes (a CLI command, a test) runs no monitors.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry, prefix: 'flowbase_' });
}

/** LLM tokens used, counted by the LLM activities as each provider answers. */
export const llmTokens = new Counter({
  name: 'flowbase_llm_tokens_total',
  help: 'LLM tokens used, by provider, model and direction (input or output)',
  labelNames: ['provider', 'model', 'direction'] as const,
  registers: [registry],
});

/** Status classes, so a label never holds a status code a caller could vary without bound. */
export function statusClass(status: number): '2xx' | '3xx' | '4xx' | '5xx' | 'other' {
  if (status >= 200 && status < 600) return `${Math.floor(status / 100)}xx` as '2xx' | '3xx' | '4xx' | '5xx';
  return 'other';
}

/**
 * Webhook calls answered, by status class and mode: `sync` (the caller waits for a return step's answer), `async`
 * (202 once the run is started), `unknown` (refused before the trigger was known: 404, 401, 405, 429…).
 */
export const webhookAnswers = new Counter({
  name: 'flowbase_webhook_answers_total',
  help: 'Webhook calls answered, by status class and mode (sync, async, unknown when refused before the trigger was known)',
  labelNames: ['status_class', 'mode'] as const,
  registers: [registry],
});

/** How long webhook calls waited for room among the runs in flight (WEBHOOK_RUNS_IN_FLIGHT); `shed` ones were answered 503. */
export const webhookAdmissionWait = new Histogram({
  name: 'flowbase_webhook_admission_wait_seconds',
  help: 'Time webhook calls waited for admission, by outcome (admitted, or shed: answered 503 overloaded)',
  labelNames: ['outcome'] as const,
  buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
  registers: [registry],
});

/** Webhook runs holding an admission slot now, of WEBHOOK_RUNS_IN_FLIGHT. */
export const webhookRunsInFlight = new Gauge({
  name: 'flowbase_webhook_runs_in_flight',
  help: 'Webhook runs holding an admission slot in this API process (at most WEBHOOK_RUNS_IN_FLIGHT)',
  registers: [registry],
});

/** A label value from a fixed vocabulary, else `other`: a value outside it (a new or unexpected one) cannot add series. */
export function bounded<T extends string>(value: string, vocabulary: readonly T[]): T | 'other' {
  return (vocabulary as readonly string[]).includes(value) ? (value as T) : 'other';
}

/** Runs whose execution record was written, by how they started (an ExecutionMode: webhook, api, schedule…). */
export const runsStarted = new Counter({
  name: 'flowbase_runs_started_total',
  help: 'Runs started (execution record written), by mode: webhook, api, test, rerun, schedule, agent, workflow, error, replay',
  labelNames: ['mode'] as const,
  registers: [registry],
});

/** Runs that ended, counted once, by the statement that closed their execution record. */
export const runsEnded = new Counter({
  name: 'flowbase_runs_ended_total',
  help: 'Runs ended, by mode and final status (completed, failed, cancelled)',
  labelNames: ['mode', 'status'] as const,
  registers: [registry],
});

/** Each recorded step attempt's time, by step type (STEP_TYPES) and status. */
export const stepDuration = new Histogram({
  name: 'flowbase_step_duration_seconds',
  help: 'Duration of recorded step attempts, by step type and status (completed, failed)',
  labelNames: ['step_type', 'status'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

/** What a pg Pool tells of itself. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The database pools watched: each reads its pool, or undefined once it is closed (then it is dropped). */
const pools = new Set<() => PoolCounts | undefined>();

/** Adds a pool to flowbase_db_pool_*; read at every scrape, so nothing is counted on the query path. */
export function watchDatabasePool(read: () => PoolCounts | undefined): void {
  pools.add(read);
}

function poolTotals(): PoolCounts {
  const totals = { totalCount: 0, idleCount: 0, waitingCount: 0 };
  for (const read of pools) {
    const counts = read();
    if (!counts) {
      pools.delete(read);
      continue;
    }
    totals.totalCount += counts.totalCount;
    totals.idleCount += counts.idleCount;
    totals.waitingCount += counts.waitingCount;
  }
  return totals;
}

/** The service's database connections, in use (checked out) or idle. */
export const dbPoolConnections = new Gauge({
  name: 'flowbase_db_pool_connections',
  help: "The service pool's PostgreSQL connections, by state (in_use, idle)",
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const { totalCount, idleCount } = poolTotals();
    this.set({ state: 'in_use' }, totalCount - idleCount);
    this.set({ state: 'idle' }, idleCount);
  },
});

/** Queries waiting for a connection: above zero for long, the pool is the bottleneck. */
export const dbPoolWaiting = new Gauge({
  name: 'flowbase_db_pool_waiting',
  help: "Queries waiting for one of the service pool's PostgreSQL connections",
  registers: [registry],
  collect() {
    this.set(poolTotals().waitingCount);
  },
});

/** PDF renders (the export and the dashboard report) running and waiting for one of the process's render slots. */
export const pdfRenders = new Gauge({
  name: 'flowbase_pdf_renders',
  help: 'PDF renders in this process, by state: rendering (holding one of the render slots) or waiting for one',
  labelNames: ['state'] as const,
  registers: [registry],
});
pdfRenders.set({ state: 'rendering' }, 0);
pdfRenders.set({ state: 'waiting' }, 0);

/** A queue that tells how many of its tasks run and wait (src/lib/fair-scheduler.ts). */
interface CountedQueue {
  totals(): { running: number; waiting: number };
}

/** The analytics queues of the process's services, held weakly: a services object dropped (tests) leaves the sum. */
const analyticsQueues = new Set<WeakRef<{ queries: CountedQueue; exports: CountedQueue }>>();

/** Adds an API's analytics queues (in front of Cube and of the CSV export pool) to flowbase_analytics_queue. */
export function watchAnalyticsQueues(queues: { queries: CountedQueue; exports: CountedQueue }): void {
  analyticsQueues.add(new WeakRef(queues));
}

/**
 * Analytics work running and waiting: `queries` is the queue in front of Cube (its own queue runs as many queries as
 * its pool has connections, so this is where they wait), `exports` the CSV exports' queue.
 */
export const analyticsQueue = new Gauge({
  name: 'flowbase_analytics_queue',
  help: 'Analytics work in this API process, by queue (queries: in front of Cube; exports: CSV exports) and state (running, waiting)',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  collect() {
    const sums = { queries: { running: 0, waiting: 0 }, exports: { running: 0, waiting: 0 } };
    for (const ref of analyticsQueues) {
      const queues = ref.deref();
      if (!queues) {
        analyticsQueues.delete(ref);
        continue;
      }
      for (const queue of ['queries', 'exports'] as const) {
        const { running, waiting } = queues[queue].totals();
        sums[queue].running += running;
        sums[queue].waiting += waiting;
      }
    }
    for (const queue of ['queries', 'exports'] as const) {
      this.set({ queue, state: 'running' }, sums[queue].running);
      this.set({ queue, state: 'waiting' }, sums[queue].waiting);
    }
  },
});
