import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** A Temporal worker in a process of its own (`src/main.ts worker`), so a test can kill it with SIGKILL, as a crash would. */
export interface WorkerProcess {
  /** SIGKILL: no graceful shutdown, nothing reported to Temporal; in-flight activities are found dead by their heartbeat timeout. */
  kill(): Promise<void>;
  /** SIGTERM and wait: for the end of a test. */
  stop(): Promise<void>;
}

const ROOT = path.join(__dirname, '..');

/**
 * Starts `tsx src/main.ts worker` on the suite's PostgreSQL and Temporal (the
 * environment global-setup exported) and the given task queue; resolves once
 * it logs that it polls. `env` adds settings (allow lists, LLM base URLs).
 */
export async function startWorkerProcess(taskQueue: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', RUN_WORKER: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForLine(child, 'Temporal worker running', 90_000);
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}

function waitForLine(child: ChildProcess, text: string, timeoutMs: number): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the worker process did not log "${text}" within ${timeoutMs} ms; it wrote:\n${output.slice(-4000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (!output.includes(text)) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      // Keep draining, so a chatty worker never blocks on a full pipe.
      child.stdout?.resume();
      resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the worker process exited (${code ?? signal}) before it was ready:\n${output.slice(-4000)}`));
    });
  });
}
