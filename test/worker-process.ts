import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A Temporal worker in a process of its own (`src/main.ts worker`), so a test can kill it with SIGKILL, as a crash would. */
export interface WorkerProcess {
  /** SIGKILL: no graceful shutdown, nothing reported to Temporal; in-flight activities are found dead by their heartbeat timeout. */
  kill(): Promise<void>;
  /** SIGTERM and wait: for the end of a test. */
  stop(): Promise<void>;
}

/** A process of the service (any mode), started by startServiceProcess. */
export interface ServiceProcess extends WorkerProcess {
  /** What it wrote so far, stdout and stderr (the last megabyte). */
  output(): string;
  /** Its exit code once it exited (null when a signal ended it). */
  exited: Promise<number | null>;
  pid?: number;
}

const ROOT = path.join(__dirname, '..');
const KEEP_OUTPUT = 1 << 20;

let distUpToDate: Promise<boolean> | undefined;

/**
 * The `node` arguments that run one of the service's entry points: the built
 * `dist/src/<entry>.js` when dist/ was built from the sources as they are now
 * (`npm test` builds it before Jest starts), else the sources through tsx, as
 * after an edit. Built, a process starts on about half the CPU: tsx resolves
 * and transforms at every start, and the suite starts some twenty processes.
 */
export async function serviceEntry(entry: 'main' | 'cli/admin'): Promise<string[]> {
  distUpToDate ??= new Promise((resolve) => execFile(process.execPath, ['scripts/build.mjs', '--check'], { cwd: ROOT }, (error) => resolve(error === null)));
  return (await distUpToDate) ? [`dist/src/${entry}.js`] : ['--import', 'tsx', `src/${entry}.ts`];
}

/**
 * Worker processes a test file starts and may kill, all stopped by `stopAll`
 * (afterAll): `start` gives each the task queue and settings (`env`, or what
 * `env()` answers once the suite's stubs are up).
 */
export function workerProcesses(taskQueue: () => string, env: () => Record<string, string> = () => ({})) {
  const started: WorkerProcess[] = [];
  return {
    async start(): Promise<WorkerProcess> {
      const worker = await startWorkerProcess(taskQueue(), env());
      started.push(worker);
      return worker;
    },
    async stopAll(): Promise<void> {
      for (const worker of started) await worker.stop();
    },
  };
}

/**
 * Starts `src/main.ts worker` (serviceEntry) on the suite's PostgreSQL and Temporal (the
 * environment global-setup exported) and the given task queue; resolves once
 * it logs that it polls. `env` adds settings (allow lists, LLM base URLs).
 */
export async function startWorkerProcess(taskQueue: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  return startServiceProcess([...(await serviceEntry('main')), 'worker'], {
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', RUN_WORKER: 'true', ...env },
    ready: 'Temporal worker running',
  });
}

/**
 * Starts `node <args>` in the checkout with exactly `env`, and resolves once it
 * writes `ready` (a log message) on stdout; fails with what it wrote if it
 * exits first or stays silent for `timeoutMs`.
 */
export async function startServiceProcess(args: string[], options: { env: NodeJS.ProcessEnv; ready: string; timeoutMs?: number }): Promise<ServiceProcess> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // Always drained, so a chatty process never blocks on a full pipe.
  const collect = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-KEEP_OUTPUT));
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitForLine(child, () => output, options.ready, options.timeoutMs ?? 90_000);
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM'), output: () => output, exited, pid: child.pid };
}

function waitForLine(child: ChildProcess, output: () => string, text: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      done();
      child.kill('SIGKILL');
      reject(new Error(`the process did not log "${text}" within ${timeoutMs} ms; it wrote:\n${output().slice(-4000)}`));
    }, timeoutMs);
    const onData = () => {
      if (!output().includes(text)) return;
      done();
      resolve();
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      reject(new Error(`the process exited (${code ?? signal}) before it was ready:\n${output().slice(-4000)}`));
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}
