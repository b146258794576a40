import { freePort } from '../../src/infra/free-port';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

export interface RunningService {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `src/main.ts <mode>` as its own process (so its memory can be measured alone) and waits for /healthz,
 * or for a worker (which serves no HTTP) until it logs that it runs.
 */
export async function startService(env: Record<string, string>, logFile: string, mode: 'api' | 'all' | 'worker' = 'api'): Promise<RunningService> {
  const log = fs.openSync(logFile, 'a');
  // SERVICE_NODE_ARGS: extra node flags for the service, say `--cpu-prof --cpu-prof-dir=/tmp/profiles` to see where its time goes.
  const nodeArgs = process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts', mode], {
    cwd: root,
    env: { ...process.env, ...env, ...(mode === 'worker' ? { LOG_LEVEL: 'info' } : {}) },
    stdio: ['ignore', log, log],
  });
  const baseUrl = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}; see ${logFile}`);
    const ok =
      mode === 'worker'
        ? fs.readFileSync(logFile, 'utf8').includes('Temporal worker running')
        : await fetch(`${baseUrl}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`service did not become healthy; see ${logFile}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    baseUrl,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        // Stopped already (or exited on its own): there is no exit left to wait for.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Runs an admin command with the same environment and returns its JSON output. */
export function admin(env: Record<string, string>, args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`admin ${args[0]} exited with ${code}`))));
  });
}

/** Resident memory of a process, from /proc (Linux). */
export function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

/** Samples a process's RSS every `everyMs` until stopped; returns the peak in each quarter of the sampled time. */
export function sampleRss(pid: number, everyMs = 50): { stop(): { peak: number; quarters: number[] } } {
  const samples: number[] = [rssBytes(pid)];
  const timer = setInterval(() => samples.push(rssBytes(pid)), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      samples.push(rssBytes(pid));
      const quarter = Math.ceil(samples.length / 4);
      const quarters = [0, 1, 2, 3].map((q) => Math.max(...samples.slice(q * quarter, (q + 1) * quarter), 0));
      return { peak: Math.max(...samples), quarters };
    },
  };
}

/** The environment of a benchmark's own service: its PostgreSQL, a fresh master key, free ports, quiet logs. */
export async function benchServiceEnv(databaseUrl: string, dataDir: string): Promise<Record<string, string>> {
  return {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    MASTER_KEY: randomBytes(32).toString('base64'),
    PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
}

/** A JSON caller of a benchmark's service as one organization's token: the answer's body, or an error naming the call. */
export function apiCaller(baseUrl: string, token: string) {
  return async (method: string, p: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${baseUrl}${p}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
}
