import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { freePort } from '../src/infra/free-port';
import { serviceEntry, startServiceProcess, type ServiceProcess } from './worker-process';

/**
 * Two instances on one machine, in embedded mode, as `npm start` runs them
 * (`src/main.ts`, built when dist/ is up to date: serviceEntry). A is only its embedded servers (worker mode with
 * RUN_WORKER=false: no worker, no API, nothing to load or bundle); B, started
 * next with a DATA_DIR of its own and no port settings, takes ports other than
 * A's, records them and serves its API; `npm run admin` with B's DATA_DIR
 * reaches B's database. Starts that cannot go on (a busy explicit port, a busy
 * API port, A's DATA_DIR again) stop at once with a message and no stack
 * trace. A and B serve every test: each start costs seconds.
 */

const ROOT = path.join(__dirname, '..');
interface Ports {
  postgres: number;
  temporal: number;
  temporalUi: number;
}
const dirs: string[] = [];
let a: { dataDir: string; process: ServiceProcess; ports: Ports };
let b: { dataDir: string; base: string; process: ServiceProcess; ports: Ports };

/** A data directory the embedded PostgreSQL (the postgres user, when root) may enter. */
function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flowbase-instance-'));
  fs.chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

/** Only what `npm start` on a developer's machine sets: nothing of the suite's own servers (DATABASE_URL, TEMPORAL_ADDRESS, MASTER_KEY). */
const envOf = (dir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATA_DIR: dir,
  PORT: String(port),
  LOG_LEVEL: 'info',
  ...extra,
});

const recorded = (dir: string): Ports => JSON.parse(fs.readFileSync(path.join(dir, 'embedded-ports.json'), 'utf8'));

/** Runs `node <args>` in the checkout to its end: exit code and output. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const startRefused = async (env: NodeJS.ProcessEnv) => run([...(await serviceEntry('main')), 'api'], env);
const admin = async (args: string[], env: NodeJS.ProcessEnv) => run([...(await serviceEntry('cli/admin')), ...args], env);
const STACK_LINE = /^\s+at /m;

/** A query on A's database, as its own record and password file say where it is and how to enter. */
async function queryA(sql: string): Promise<unknown[]> {
  const password = fs.readFileSync(path.join(a.dataDir, 'postgres.password'), 'utf8').trim();
  const client = new Client({ host: '127.0.0.1', port: a.ports.postgres, user: 'postgres', password, database: 'flowbase' });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Starts that must be refused, on A alone: they run while B starts. */
async function refusedStarts(apiPort: number) {
  const [busyPostgres, busyApi, sameDataDir, adminBusy] = await Promise.all([
    startRefused(envOf(dataDir(), await freePort(), { EMBEDDED_POSTGRES_PORT: String(a.ports.postgres) })),
    startRefused(envOf(dataDir(), apiPort)),
    startRefused(envOf(a.dataDir, await freePort())),
    admin(['create-org', '--name', 'Never', '--email', 'never@example.test'], envOf(dataDir(), 0, { EMBEDDED_POSTGRES_PORT: String(a.ports.temporalUi) })),
  ]);
  return { busyPostgres, busyApi, sameDataDir, adminBusy };
}
let refused: ReturnType<typeof refusedStarts>;
/** A port this test holds, as another program would. */
const held = net.createServer();

beforeAll(async () => {
  const aDir = dataDir();
  const servers = await startServiceProcess([...(await serviceEntry('main')), 'worker'], {
    env: envOf(aDir, 0, { RUN_WORKER: 'false' }),
    ready: 'Embedded servers listening',
  });
  a = { dataDir: aDir, process: servers, ports: recorded(aDir) };
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  refused = refusedStarts((held.address() as net.AddressInfo).port);
  refused.catch(() => undefined);
  const bDir = dataDir();
  const port = await freePort();
  const started = await startServiceProcess([...(await serviceEntry('main')), 'api'], { env: envOf(bDir, port), ready: 'API listening' });
  b = { dataDir: bDir, base: `http://127.0.0.1:${port}`, process: started, ports: recorded(bDir) };
}, 180_000);

afterAll(async () => {
  await Promise.all([a?.process.stop(), b?.process.stop()]);
  held.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

test('a second instance with a DATA_DIR of its own takes other ports, records them, and serves', async () => {
  const taken = Object.values(a.ports);
  expect(taken).toHaveLength(3);
  for (const port of Object.values(b.ports)) expect(taken).not.toContain(port);
  const health = await request(b.base).get('/healthz');
  expect(health.body).toMatchObject({ status: 'ok', database: { ok: true }, temporal: { ok: true } });
  // The Temporal Web UI is where B's record says, and B's API names it.
  expect((await fetch(`http://127.0.0.1:${b.ports.temporalUi}/`)).status).toBe(200);
  expect(b.process.output()).toContain(`"temporalUi":"http://127.0.0.1:${b.ports.temporalUi}"`);
});

test("npm run admin with B's DATA_DIR talks to B's database, not A's", async () => {
  const created = await admin(['create-org', '--name', 'Instance B', '--email', 'owner@b.example.test'], envOf(b.dataDir, 0));
  expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const { token } = JSON.parse(created.stdout);
  expect((await request(b.base).get('/organization').set('Authorization', `Bearer ${token}`)).body).toMatchObject({ name: 'Instance B' });
  expect(await queryA(`SELECT 1 FROM organizations WHERE name = 'Instance B'`)).toEqual([]);
});

test('starts that cannot go on stop before anything starts: which port, which setting, what holds it; no stack trace', async () => {
  const { busyPostgres, busyApi, sameDataDir, adminBusy } = await refused;

  expect(busyPostgres.code).toBe(78);
  expect(busyPostgres.stderr).toContain(
    `Port ${a.ports.postgres} (EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL) is in use by the embedded PostgreSQL of the Flowbase instance with DATA_DIR=${a.dataDir} (pid `,
  );
  expect(busyPostgres.stderr).toContain('Set EMBEDDED_POSTGRES_PORT to a free port');

  expect(busyApi.code).toBe(78);
  expect(busyApi.stderr).toContain(`Port ${(held.address() as net.AddressInfo).port} (PORT, the API) is in use by process ${process.pid} (`);

  expect(sameDataDir.code).toBe(78);
  expect(sameDataDir.stderr).toMatch(
    new RegExp(
      `The embedded PostgreSQL \\(pid \\d+, port ${a.ports.postgres}\\) and Temporal dev server \\(pid \\d+, port ${a.ports.temporal}\\) of DATA_DIR=${a.dataDir} are already running, started by process ${a.process.pid} `,
    ),
  );

  expect(adminBusy.code).not.toBe(0);
  expect(adminBusy.stdout).toBe('');
  expect(adminBusy.stderr).toContain(
    `Port ${a.ports.temporalUi} (EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL) is in use by the embedded Temporal dev server of the Flowbase instance with DATA_DIR=${a.dataDir} (pid `,
  );

  for (const refused of [busyPostgres, busyApi, sameDataDir, adminBusy]) expect(refused.stderr).not.toMatch(STACK_LINE);
  // Nothing was started for them, and A and B serve on.
  const theirs = dirs.filter((dir) => dir !== a.dataDir && dir !== b.dataDir);
  expect(theirs).toHaveLength(3);
  for (const dir of theirs) expect(fs.existsSync(path.join(dir, 'postgres', 'PG_VERSION'))).toBe(false);
  expect(await queryA('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  expect((await request(b.base).get('/healthz')).status).toBe(200);
});
