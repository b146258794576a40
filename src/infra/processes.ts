import fs from 'node:fs';
import path from 'node:path';

/**
 * What Linux's /proc tells about the processes on this machine: who listens
 * on a TCP port, and what a process is. Best effort, for messages only: where
 * /proc cannot be read (another system, another user's processes) the answer
 * is undefined and the caller says less.
 */
export interface ProcessInfo {
  pid: number;
  /** Its command line, one argument an element (empty when unreadable). */
  command: string[];
  /** Its parent's pid (1 or 0 once the parent has ended: the process was left running). */
  parentPid?: number;
  /** When the process is an embedded server of a Flowbase data directory: which, and that DATA_DIR. */
  embedded?: { server: 'postgres' | 'temporal'; dataDir: string };
}

/** The process listening on the TCP port (IPv4 or IPv6, any address); undefined when none is found. */
export function portHolder(port: number): ProcessInfo | undefined {
  const sockets = listeningSockets(port);
  if (sockets.size === 0) return undefined;
  for (const pid of pids()) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const inode = /^socket:\[(\d+)\]$/.exec(readlink(`/proc/${pid}/fd/${fd}`) ?? '')?.[1];
      if (inode && sockets.has(inode)) return processInfo(pid);
    }
  }
  return undefined;
}

/** A live process as /proc shows it; undefined when it has ended. */
export function processInfo(pid: number): ProcessInfo | undefined {
  if (!alive(pid)) return undefined;
  const command = read(`/proc/${pid}/cmdline`)?.split('\0').filter(Boolean) ?? [];
  const parentPid = Number(
    read(`/proc/${pid}/stat`)
      ?.replace(/^.*\) /s, '')
      .split(' ')[1],
  );
  return { pid, command, parentPid: Number.isInteger(parentPid) ? parentPid : undefined, embedded: embeddedServer(command) };
}

/** Whether a process with this pid exists (another user's included). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process in a sentence: what it is, its pid, and who started it when that is known. */
export function describeProcess(info: ProcessInfo): string {
  if (info.embedded) {
    const what = info.embedded.server === 'postgres' ? 'the embedded PostgreSQL' : 'the embedded Temporal dev server';
    return `${what} of the Flowbase instance with DATA_DIR=${info.embedded.dataDir} (pid ${info.pid})`;
  }
  const command = redacted(info.command)
    .map((arg) => (arg.includes(' ') ? JSON.stringify(arg) : arg))
    .join(' ');
  if (!command) return `process ${info.pid}`;
  return `process ${info.pid} (${command.length > 160 ? `${command.slice(0, 157)}...` : command})`;
}

/** What names a secret in a command line: `--password`, `DB_TOKEN=…`, `-secret-key`. */
const SECRET_NAME = /pass|secret|token|key|auth|credential/i;

/**
 * A command line as a message may show it (it goes to the terminal and the
 * log): the value of an argument named like a secret (`--password=x`, or
 * the argument after `--token`) and a URL's credentials are left out.
 */
function redacted(command: string[]): string[] {
  return command.map((arg, i) => {
    if (i > 0 && /^-/.test(command[i - 1]) && !command[i - 1].includes('=') && SECRET_NAME.test(command[i - 1])) return '***';
    const withoutCredentials = arg.replace(/(\w+:\/\/)[^/@\s]+@/g, '$1***@');
    const [name, value] = withoutCredentials.split(/=(.*)/s);
    return value !== undefined && SECRET_NAME.test(name) ? `${name}=***` : withoutCredentials;
  });
}

/** `postgres -D <DATA_DIR>/postgres …` or `temporal server start-dev … --db-filename <DATA_DIR>/temporal.sqlite`, as src/infra starts them. */
function embeddedServer(command: string[]): ProcessInfo['embedded'] {
  const after = (flag: string) => {
    const i = command.indexOf(flag);
    return i >= 0 ? command[i + 1] : undefined;
  };
  const pgData = path.basename(command[0] ?? '') === 'postgres' ? after('-D') : undefined;
  if (pgData && path.basename(pgData) === 'postgres') return { server: 'postgres', dataDir: path.dirname(pgData) };
  const sqlite = command.includes('start-dev') ? after('--db-filename') : undefined;
  if (sqlite && path.basename(sqlite) === 'temporal.sqlite') return { server: 'temporal', dataDir: path.dirname(sqlite) };
  return undefined;
}

/** Inodes of the sockets listening on the port, from /proc/net/tcp and tcp6 (state 0A: LISTEN). */
function listeningSockets(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of read(table)?.split('\n').slice(1) ?? []) {
      const columns = line.trim().split(/\s+/);
      if (columns[3] === '0A' && parseInt(columns[1]?.split(':')[1] ?? '', 16) === port) inodes.add(columns[9]);
    }
  }
  return inodes;
}

function pids(): number[] {
  try {
    return fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function readlink(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}
