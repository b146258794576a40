import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/infra/embedded-postgres';
import { freePort } from '../../src/infra/free-port';
import { benchServiceEnv, startService, type RunningService } from './service';

/**
 * A benchmark's own PostgreSQL (embedded, in a temporary directory) and
 * service (`src/main.ts api`), with a small pg pool on the database for the
 * benchmark's direct work. Nothing is shared with `npm start`.
 */
export interface BenchStack {
  /** The temporary directory: PostgreSQL's data under `postgres/`, the service's log in `service.log`. */
  dir: string;
  /** PostgreSQL's data directory (its postmaster.pid names the server's process). */
  pgDir: string;
  databaseUrl: string;
  env: Record<string, string>;
  service: RunningService;
  pool: Pool;
  /** `http://127.0.0.1:<port><path>` of the service. */
  api(p: string): string;
  /** Runs `fn` first when the stack is cleaned up (clients of the benchmark's own, say). */
  onCleanup(fn: () => Promise<unknown>): void;
  /** Stops what the stack started, once; later calls answer the same promise. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the stack. SIGINT and SIGTERM clean it up and exit (130); a failed
 * start cleans up what had started. Call `cleanup()` in a `finally`.
 */
export async function startBenchStack(options: { poolMax?: number } = {}): Promise<BenchStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-bench-'));
  fs.chmodSync(dir, 0o755); // as root, PostgreSQL runs as the postgres user and must reach its directory
  const pgDir = path.join(dir, 'postgres');
  let pg: EmbeddedPostgresHandle | undefined;
  let service: RunningService | undefined;
  let pool: Pool | undefined;
  const hooks: Array<() => Promise<unknown>> = [];
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const hook of hooks) await hook().catch(() => undefined);
      await pool?.end().catch(() => undefined);
      if (service) {
        const running = service;
        // SIGTERM first; a service that has not exited after 30 s is killed (only the process this run started).
        await Promise.race([
          running.stop(),
          sleep(30_000).then(() => {
            try {
              process.kill(running.pid, 'SIGKILL');
            } catch {
              /* gone */
            }
          }),
        ]);
      }
      await pg?.stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping what the benchmark started`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    pg = await startEmbeddedPostgres({ dir: pgDir, port: await freePort(), database: 'flowbase_bench', persistent: true });
    const env = await benchServiceEnv(pg.url, dir);
    service = await startService(env, path.join(dir, 'service.log'));
    pool = new Pool({ connectionString: pg.url, max: options.poolMax ?? 4 });
    const baseUrl = service.baseUrl;
    return {
      dir,
      pgDir,
      databaseUrl: pg.url,
      env,
      service,
      pool,
      api: (p) => `${baseUrl}${p}`,
      onCleanup: (fn) => hooks.push(fn),
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
