import fs from 'node:fs';
import path from 'node:path';
import { EMBEDDED_PORT_DEFAULTS, EMBEDDED_PORT_SETTINGS, type EmbeddedServer } from '../config/config';
import type { Logger } from '../logging/logger';
import { canListen, freePort } from './free-port';
import { describeProcess, portHolder, processInfo, type ProcessInfo } from './processes';
import { StartupError } from './startup-error';

/**
 * The ports of a data directory's embedded servers. A DATA_DIR keeps the
 * ports its servers took in this file: chosen at its first start (the
 * defaults when they are free, so a first instance keeps the README's URLs;
 * free ones otherwise, so a second instance with a DATA_DIR of its own starts
 * beside the first), and read again by every later start and by `npm run
 * admin`, which so reach this directory's servers and no other's.
 */
export const PORTS_FILE = 'embedded-ports.json';

export type EmbeddedPorts = Partial<Record<EmbeddedServer, number>>;

const SERVER_NAMES: Record<EmbeddedServer, string> = {
  postgres: 'embedded PostgreSQL',
  temporal: 'embedded Temporal dev server',
  temporalUi: "embedded Temporal dev server's Web UI",
};

/** The ports recorded in the data directory (none when it has no record yet, or an unreadable one). */
export function recordedPorts(dataDir: string): EmbeddedPorts {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dataDir, PORTS_FILE), 'utf8'));
  } catch {
    return {};
  }
  const ports: EmbeddedPorts = {};
  for (const server of Object.keys(SERVER_NAMES) as EmbeddedServer[]) {
    const port = (parsed as Record<string, unknown> | null)?.[server];
    if (Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535) ports[server] = port as number;
  }
  return ports;
}

/**
 * The ports `servers` listen on, each checked free before anything starts:
 * set explicitly (config.embeddedPorts), else recorded, else the default, and
 * when a recorded or default one is taken, a free one (a recorded one that
 * moved is logged). Records them in the data directory. Throws StartupError
 * when an explicit port is in use, saying by what, or when the server is this
 * data directory's own, already running.
 */
export async function embeddedPorts(options: { dataDir: string; explicit: EmbeddedPorts; servers: EmbeddedServer[]; logger: Logger }): Promise<EmbeddedPorts> {
  const recorded = recordedPorts(options.dataDir);
  const chosen: EmbeddedPorts = {};
  const taken = new Set<number>();
  for (const server of options.servers) {
    const explicit = options.explicit[server];
    const port = explicit ?? recorded[server] ?? EMBEDDED_PORT_DEFAULTS[server];
    if (!taken.has(port) && (await canListen(port))) {
      chosen[server] = port;
      taken.add(port);
      continue;
    }
    const holder = taken.has(port) ? undefined : portHolder(port);
    if (holder?.embedded && samePath(holder.embedded.dataDir, options.dataDir)) {
      throw new StartupError(alreadyRunningMessage(options.dataDir, [{ server: holder, port }]));
    }
    if (explicit !== undefined) {
      const user = taken.has(port) ? `${setting(serverWith(chosen, port)!)} too` : holder ? describeProcess(holder) : 'another process';
      throw new StartupError(
        portInUseMessage(port, setting(server), SERVER_NAMES[server], user, `or unset it to let each DATA_DIR take free ports of its own`),
      );
    }
    let other = await freePort();
    while (taken.has(other)) other = await freePort();
    if (recorded[server] !== undefined) {
      options.logger.warn(
        { port, heldBy: holder ? describeProcess(holder) : undefined, newPort: other, file: path.join(options.dataDir, PORTS_FILE) },
        `The ${SERVER_NAMES[server]}'s port recorded in DATA_DIR is in use: taking another`,
      );
    }
    chosen[server] = other;
    taken.add(other);
  }
  recordPorts(options.dataDir, { ...recorded, ...chosen });
  return chosen;
}

/** Writes the record whole (a reader never sees half of it). */
export function recordPorts(dataDir: string, ports: EmbeddedPorts): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, PORTS_FILE);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(ports, null, 2) + '\n');
  fs.renameSync(`${file}.tmp`, file);
}

/** "Port 5433 (EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL) is in use by …": which port, which setting moves it, what holds it. */
export function portInUseMessage(port: number, settingName: string, what: string, holder: string, alternative?: string): string {
  return `Port ${port} (${settingName}, the ${what}) is in use by ${holder}. Set ${settingName} to a free port${alternative ? `, ${alternative}` : ''}.`;
}

/** What holds a port, in words: the process when /proc tells, else "another process". */
export function describePortHolder(port: number): string {
  const holder = portHolder(port);
  return holder ? describeProcess(holder) : 'another process';
}

/** This data directory's embedded servers running already, each with its port: which, where, who started them, what to do. */
export function alreadyRunningMessage(dataDir: string, servers: Array<{ server: ProcessInfo; port: number }>): string {
  const names = servers.map(
    ({ server, port }) => `${server.embedded?.server === 'temporal' ? 'Temporal dev server' : 'PostgreSQL'} (pid ${server.pid}, port ${port})`,
  );
  const parentPid = servers[0].server.parentPid;
  const starter = parentPid && parentPid > 1 ? processInfo(parentPid) : undefined;
  const them = servers.length > 1 ? 'them' : 'it';
  return (
    `The embedded ${names.join(' and ')} of DATA_DIR=${dataDir} ${servers.length > 1 ? 'are' : 'is'} already running, ` +
    (starter
      ? `started by ${describeProcess(starter)}: another Flowbase instance uses this data directory. Stop it first, or give this instance a DATA_DIR of its own.`
      : `left running by a Flowbase process that has ended. Stop ${them} (kill ${servers.map(({ server }) => server.pid).join(' ')}), then start again.`)
  );
}

/** This data directory's embedded Temporal dev server, when it is running on the port recorded for it. */
export function runningTemporal(dataDir: string): { server: ProcessInfo; port: number } | undefined {
  const port = recordedPorts(dataDir).temporal;
  const server = port === undefined ? undefined : portHolder(port);
  return port !== undefined && server?.embedded?.server === 'temporal' && samePath(server.embedded.dataDir, dataDir) ? { server, port } : undefined;
}

const setting = (server: EmbeddedServer) => EMBEDDED_PORT_SETTINGS[server];
const serverWith = (ports: EmbeddedPorts, port: number) => (Object.keys(ports) as EmbeddedServer[]).find((s) => ports[s] === port);

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}
