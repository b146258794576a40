import { Runtime } from '@temporalio/worker';

/**
 * Has the Temporal SDK's core serve its own Prometheus metrics (task slots, poll and schedule-to-start latencies,
 * sticky cache, activity and workflow task outcomes) at http://host:port/metrics. Core runs that server itself, in
 * Rust: its figures cannot join prom-client's registry, hence a port of its own (TEMPORAL_METRICS_PORT).
 * Must run before the process's first NativeConnection: the runtime is installed once, by whoever comes first.
 */
export function installTemporalMetrics(host: string, port: number): void {
  Runtime.install({
    telemetryOptions: { metrics: { prometheus: { bindAddress: `${host}:${port}`, countersTotalSuffix: true, useSecondsForDurations: true } } },
  });
}
