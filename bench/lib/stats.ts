/** The p-th percentile (0–100) of `samples`, nearest-rank. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Several percentiles of `samples` at once (one sort), nearest-rank as `percentile`. */
export function percentiles(samples: number[], ps: number[]): number[] {
  const sorted = [...samples].sort((a, b) => a - b);
  return ps.map((p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]));
}

export const fmt = {
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`,
  mb: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`,
  s: (ms: number) => `${(ms / 1000).toFixed(1)} s`,
  ratio: (n: number) => n.toFixed(2),
};

/** Runs `op` from `concurrency` loops for `seconds`; returns operations per second and each latency in ms. */
export async function sustained(concurrency: number, seconds: number, op: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op(next++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - started;
  return { perSecond: (latencies.length / elapsed) * 1000, latencies, count: latencies.length };
}

/** Runs `op` `n` times one after another; returns each latency in ms. */
export async function sequential(n: number, op: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    latencies.push(performance.now() - t);
  }
  return latencies;
}

/** Text chunks of `header` then `line(i)` for i in [0, n), a thousand lines each: generated input for COPY and uploads. */
export async function* lines(n: number, header: string, line: (i: number) => string): AsyncGenerator<string> {
  let chunk = header;
  for (let i = 0; i < n; i++) {
    chunk += line(i);
    if (i % 1000 === 999) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}
