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
