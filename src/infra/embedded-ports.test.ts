import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logging/logger';
import { embeddedPorts, PORTS_FILE, recordedPorts, recordPorts } from './embedded-ports';
import { freePort } from './free-port';
import { StartupError } from './startup-error';

let dataDir: string;
const warnings: unknown[][] = [];
const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
const servers: net.Server[] = [];

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-ports-'));
  warnings.length = 0;
});
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A port this test process listens on until the test ends. */
async function busyPort(): Promise<number> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const all = ['postgres', 'temporal', 'temporalUi'] as const;

test('recorded ports are used again, and the record read back', async () => {
  const recorded = { postgres: await freePort(), temporal: await freePort(), temporalUi: await freePort() };
  recordPorts(dataDir, recorded);
  expect(await embeddedPorts({ dataDir, explicit: {}, servers: [...all], logger })).toEqual(recorded);
  expect(recordedPorts(dataDir)).toEqual(recorded);
  expect(warnings).toEqual([]);
});

test('a recorded port another process took is replaced by a free one, recorded, with a warning', async () => {
  const taken = await busyPort();
  const temporalUi = await freePort();
  recordPorts(dataDir, { temporal: taken, temporalUi });
  const ports = await embeddedPorts({ dataDir, explicit: {}, servers: ['temporal', 'temporalUi'], logger });
  expect(ports.temporalUi).toBe(temporalUi);
  expect(ports.temporal).not.toBe(taken);
  expect(recordedPorts(dataDir)).toEqual(ports);
  expect(warnings).toEqual([
    [
      { port: taken, newPort: ports.temporal, heldBy: expect.stringMatching(new RegExp(`^process ${process.pid} `)), file: expect.any(String) },
      expect.stringContaining('in use'),
    ],
  ]);
});

test('an explicit port in use stops the start: the port, its setting and what holds it; nothing is recorded', async () => {
  const taken = await busyPort();
  const error = await embeddedPorts({ dataDir, explicit: { postgres: taken }, servers: ['postgres'], logger }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(StartupError);
  expect((error as Error).message).toMatch(
    new RegExp(
      `^Port ${taken} \\(EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL\\) is in use by process ${process.pid} \\(.+\\)\\. Set EMBEDDED_POSTGRES_PORT to a free port`,
    ),
  );
  expect(fs.existsSync(path.join(dataDir, PORTS_FILE))).toBe(false);
});

test('an explicit port wins over the recorded one and is recorded; two servers on one port are refused', async () => {
  recordPorts(dataDir, { postgres: await freePort() });
  const explicit = await freePort();
  expect(await embeddedPorts({ dataDir, explicit: { postgres: explicit }, servers: ['postgres'], logger })).toEqual({ postgres: explicit });
  expect(recordedPorts(dataDir)).toEqual({ postgres: explicit });
  await expect(embeddedPorts({ dataDir, explicit: { temporal: explicit, temporalUi: explicit }, servers: ['temporal', 'temporalUi'], logger })).rejects.toThrow(
    `Port ${explicit} (EMBEDDED_TEMPORAL_UI_PORT, the embedded Temporal dev server's Web UI) is in use by EMBEDDED_TEMPORAL_PORT too.`,
  );
});

test('without a record, each server gets its own port, kept in the record; an unreadable record counts as none', async () => {
  fs.writeFileSync(path.join(dataDir, PORTS_FILE), '{"postgres": "5433", "temporal": 70000');
  expect(recordedPorts(dataDir)).toEqual({});
  const ports = await embeddedPorts({ dataDir, explicit: {}, servers: [...all], logger });
  expect(new Set(Object.values(ports)).size).toBe(3);
  expect(recordedPorts(dataDir)).toEqual(ports);
});
