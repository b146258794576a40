import net from 'node:net';
import { describeProcess, portHolder, processInfo } from './processes';

/** Listens on a free loopback port until closed. */
async function listening(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('portHolder', () => {
  test('finds the process listening on a port, with its command line and parent', async () => {
    const server = await listening();
    try {
      const holder = portHolder(server.port);
      expect(holder).toMatchObject({ pid: process.pid, parentPid: process.ppid });
      // Jest's worker: node and its arguments, as the kernel keeps them.
      expect(holder!.command).toEqual([process.argv0, ...process.execArgv, ...process.argv.slice(1)]);
      expect(holder!.embedded).toBeUndefined();
      expect(describeProcess(holder!)).toMatch(new RegExp(`^process ${process.pid} \\(${process.argv0} `));
    } finally {
      await server.close();
    }
  });

  test('finds nobody on a port nothing listens on', async () => {
    const server = await listening();
    await server.close();
    expect(portHolder(server.port)).toBeUndefined();
  });
});

test('processInfo: undefined once a process has ended', () => {
  expect(processInfo(process.pid)?.pid).toBe(process.pid);
  // Above the kernel's largest pid (4194304).
  expect(processInfo(2 ** 22 + 1)).toBeUndefined();
});

test('describeProcess leaves secrets of a command line out of the message', () => {
  const command = ['psql', 'postgres://app:hunter2@db:5432/x', '--password', 'hunter3', 'DB_TOKEN=hunter4', '-v', 'ON_ERROR_STOP=1'];
  const described = describeProcess({ pid: 42, command });
  for (const secret of ['hunter2', 'hunter3', 'hunter4']) expect(described).not.toContain(secret);
  expect(described).toBe('process 42 (psql postgres://***@db:5432/x --password *** DB_TOKEN=*** -v ON_ERROR_STOP=1)');
});
