import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * CPU time of the benchmark's own processes, from /proc (Linux): where the
 * time of a run goes between the service and PostgreSQL, and how many cores
 * they kept busy together.
 */

let ticksPerSecond: number | undefined;
function hz(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime, stime, cutime, cstime and the parent pid of a process, or undefined once it is gone. */
function stat(pid: number): { self: number; children: number; ppid: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces: fields are counted after its closing one.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (i: number) => Number(fields[i - 3]);
  return { ppid: n(4), self: n(14) + n(15), children: n(16) + n(17) };
}

/** CPU milliseconds a process has used (its own threads, not its children). */
export function processCpuMs(pid: number): number {
  return ((stat(pid)?.self ?? 0) / hz()) * 1000;
}

/**
 * CPU milliseconds PostgreSQL has used: the postmaster named by `<dataDir>/postmaster.pid`,
 * every live child (backends, parallel workers, background processes) and the
 * children it has reaped (parallel workers come and go: their time moves to the
 * postmaster's cutime when they exit, so the total only grows).
 */
export function postgresCpuMs(dataDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let ticks = 0;
  const own = stat(postmaster);
  if (own) ticks += own.self + own.children;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(Number(entry));
    if (s && s.ppid === postmaster) ticks += s.self;
  }
  return (ticks / hz()) * 1000;
}

/**
 * The pid of a child of `parent` whose command line contains `name`, or
 * undefined: the Temporal dev server the service (`src/main.ts all`) starts
 * as its own child, whose pid the service does not tell.
 */
export function childProcessPid(parent: number, name: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || stat(Number(entry))?.ppid !== parent) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes(name)) return Number(entry);
  }
  return undefined;
}

/** What a row measures: the CPU milliseconds each named process (or group of processes) has used so far. */
export type CpuMeters = Record<string, () => number>;
/** CPU milliseconds by the names of a `CpuMeters`. */
export type CpuMs = Record<string, number>;

/** Reads every meter now; the function answers what each used since. */
export function cpuSince(meters: CpuMeters): () => CpuMs {
  const before = Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]));
  return () => Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read() - before[name]]));
}

export function addCpu(a: CpuMs, b: CpuMs): CpuMs {
  const sum = { ...a };
  for (const [name, ms] of Object.entries(b)) sum[name] = (sum[name] ?? 0) + ms;
  return sum;
}

export interface CpuPerRun {
  /** What the CPU is divided by: completed runs, or answers where no run starts (duplicates of a delivery). */
  per: 'run' | 'answer';
  count: number;
  /** CPU used in the window, by process. */
  usedMs: CpuMs;
  /** The same per run (or answer), by process, and summed. */
  perRunMs: CpuMs;
  totalPerRunMs: number;
}

export function cpuPerRun(usedMs: CpuMs, count: number, per: CpuPerRun['per'] = 'run'): CpuPerRun {
  const perRunMs = Object.fromEntries(Object.entries(usedMs).map(([name, ms]) => [name, count > 0 ? ms / count : NaN]));
  const totalPerRunMs = Object.values(perRunMs).reduce((a, b) => a + b, 0);
  return { per, count, usedMs, perRunMs, totalPerRunMs };
}

/** `cpu/run: service 17.1 ms, temporal 12.3 ms, postgres 3.0 ms (32.4 ms)`. */
export function formatCpu(cpu: CpuPerRun): string {
  const parts = Object.entries(cpu.perRunMs).map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`);
  return `cpu/${cpu.per}: ${parts.join(', ')} (${cpu.totalPerRunMs.toFixed(1)} ms)`;
}
