/**
 * `node scripts/run.mjs bench outbound-timeouts`: how soon after its deadline
 * a `core.http` request gives up, in each phase a remote server can stall
 * (src/outbound/outbound-http.test.ts only checks that the step's own
 * deadline fired, with bounds a loaded machine keeps; this is the measurement).
 *
 *   1. A server that accepts the request and never answers (headers phase).
 *   2. A server that sends headers and part of a body, then stalls (body phase).
 *   3. A TLS server that accepts TCP and never completes the handshake (connect phase).
 *
 * Prints, per phase, the overshoot past the deadline (min, median, p95, max),
 * beside the baseline of the same run: how late a bare setTimeout of the same
 * length fires on this machine right now (no request can give up sooner).
 * Knobs: BENCH_RUNS (20), BENCH_TIMEOUT_MS (300). Results: bench-results/outbound-timeouts-<time>.json.
 */
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { createOutboundHttp, OutboundTimeout } from '../src/outbound/outbound-http';
import { fmt, percentile } from './lib/stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 300);

/** Listens on a free loopback port; returns the port. */
async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function main() {
  const stalling = http.createServer((req, res) => {
    if (req.url === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    }
    // '/hang': never answers.
  });
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => sockets.push(socket));
  const httpPort = await listen(stalling);
  const tlsPort = await listen(silent);
  const client = createOutboundHttp({ allowList: ['127.0.0.1'], maxResponseBytes: 16 * 1024, maxRedirects: 0 });

  const phases = [
    { name: 'no answer (headers)', url: `http://127.0.0.1:${httpPort}/hang` },
    { name: 'stalled body', url: `http://127.0.0.1:${httpPort}/slow-body` },
    { name: 'silent TLS handshake (connect)', url: `https://127.0.0.1:${tlsPort}/` },
  ];
  const results: Record<string, { overshootMs: number[] }> = {};
  const out = [`Outbound request deadline of ${TIMEOUT_MS} ms: time past it until OutboundTimeout, ${RUNS} runs each`];
  const row = (name: string, overshoot: number[]) => {
    const figures = [Math.min(...overshoot), percentile(overshoot, 50), percentile(overshoot, 95), Math.max(...overshoot)].map((n) => fmt.ms(n).padStart(9));
    out.push(`  ${name.padEnd(32)} min ${figures[0]}  median ${figures[1]}  p95 ${figures[2]}  max ${figures[3]}`);
  };
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS));
    baseline.push(performance.now() - started - TIMEOUT_MS);
  }
  results['baseline: bare setTimeout'] = { overshootMs: baseline };
  row('baseline: bare setTimeout', baseline);
  try {
    for (const phase of phases) {
      const overshoot: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const err = await client.request({ url: phase.url, method: 'GET', headers: {}, timeoutMs: TIMEOUT_MS }).catch((e: unknown) => e);
        if (!(err instanceof OutboundTimeout)) throw new Error(`${phase.name}: expected OutboundTimeout, got ${String(err)}`);
        overshoot.push(performance.now() - started - TIMEOUT_MS);
        // The silent server keeps each half-open connection; drop them so the next run connects afresh.
        sockets.splice(0).forEach((socket) => socket.destroy());
      }
      results[phase.name] = { overshootMs: overshoot };
      row(phase.name, overshoot);
    }
  } finally {
    await client.close();
    stalling.closeAllConnections();
    stalling.close();
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  }
  console.log(out.join('\n'));
  fs.mkdirSync('bench-results', { recursive: true });
  const file = path.join('bench-results', `outbound-timeouts-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ timeoutMs: TIMEOUT_MS, runs: RUNS, results }, null, 2));
  console.log(`Results: ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
