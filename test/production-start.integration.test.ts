import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { dataUri, solidPng } from '../src/dashboards/pdf/testing/fixtures';
import { inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { freePort } from '../src/infra/free-port';
import { createTestOrg, eventually, uniqueName, type TestOrg } from './factories';
import { startHarness, type Harness } from './harness';
import { startVendorStubs, type VendorStubs } from './stubs/vendor-apis';
import { startServiceProcess, type ServiceProcess } from './worker-process';

/**
 * The production path: `npm run build`'s output (dist/, rebuilt only when the
 * sources changed) started as the image starts it, `node dist/src/main.js api`
 * and `… worker` in processes of their own with NODE_ENV=production, on the
 * suite's PostgreSQL and Temporal: no TypeScript at run time, migrations from
 * the compiled classes, workflows from the prebuilt bundle. Through that API:
 * a webhook answered by a return step, a data feed switched on that syncs from
 * the vendor stub (and Cube queries it), a schedule trigger that fires, and a
 * dashboard PDF that needs the files tsc does not emit (a worker thread's
 * script) and fonts from npm packages.
 */

const ROOT = path.join(__dirname, '..');
const BUILD_TIMEOUT_MS = 240_000;

let stubs: VendorStubs;
let h: Harness;
let org: TestOrg;
let api: ServiceProcess;
let worker: ServiceProcess;
let base: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-changed'], { cwd: ROOT, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 << 20 });
  stubs = await startVendorStubs();
  // In this process only to build the organization through the real services (createTestOrg).
  h = await startHarness();
  org = await createTestOrg(h.services);

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    // DATABASE_URL, TEMPORAL_ADDRESS and MASTER_KEY of the suite's stack (test/global-setup.ts), as an operator sets them.
    PATH: process.env.PATH,
    DATABASE_URL: process.env.DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    MASTER_KEY: process.env.MASTER_KEY,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    TEMPORAL_TASK_QUEUE: `prod-${randomBytes(6).toString('hex')}`,
    HTTP_OUTBOUND_ALLOW: stubs.allowList.join(','),
    TWILIO_API_BASE_URL: stubs.urls.twilio,
    GITHUB_API_BASE_URL: stubs.urls.github,
    HUBSPOT_API_BASE_URL: stubs.urls.hubspot,
    SCHEDULE_MIN_INTERVAL_SECONDS: '1',
  };
  [worker, api] = await Promise.all([
    startServiceProcess(['dist/src/main.js', 'worker'], { env, ready: 'Temporal worker running' }),
    startServiceProcess(['dist/src/main.js', 'api'], { env, ready: 'API listening' }),
  ]);
}, BUILD_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await h?.close();
  await stubs?.close();
});

const owner = () => {
  const auth = (r: request.Test) => r.set('Authorization', `Bearer ${org.ownerToken}`);
  return {
    get: (url: string) => auth(request(base).get(url)),
    post: (url: string) => auth(request(base).post(url)),
    delete: (url: string) => auth(request(base).delete(url)),
  };
};

async function created(res: Promise<request.Response>): Promise<Record<string, any>> {
  const answer = await res;
  expect({ status: answer.status, body: answer.body }).toEqual({ status: 201, body: expect.anything() });
  return answer.body;
}

const createWorkflow = (steps: unknown[]) =>
  created(
    owner()
      .post('/workflows')
      .send({ name: uniqueName('prod'), steps }),
  );
const returnStep = (stepId: string, body: unknown) => ({ stepId, stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body } } });

test('the compiled worker loads the prebuilt workflow bundle instead of bundling workflows/', () => {
  expect(fs.existsSync(path.join(ROOT, 'dist/workflow-bundle.js'))).toBe(true);
  expect(worker.output()).not.toContain('Workflow bundle created');
});

test('a webhook run answers through its return step', async () => {
  const workflow = await createWorkflow([returnStep('answer', { ok: true, echo: '{{ initial.greeting }}' })]);
  const trigger = await created(
    owner()
      .post(`/workflows/${workflow.id}/triggers`)
      .send({ name: uniqueName('hook'), method: 'POST' }),
  );
  const res = await request(base).post(`/w/@${org.organizationSuid}/${trigger.name}`).send({ greeting: 'hello' });
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { ok: true, echo: 'hello' } });
});

test('a data feed switched on syncs the vendor stub into its table', async () => {
  const calls = stubs.twilio.addCalls(3, { status: 'no-answer' });
  const connection = await created(
    owner()
      .post('/connections')
      .send({ name: uniqueName('twilio'), type: 'twilio', config: stubs.twilio.connectionConfig }),
  );
  const toggled = await created(
    owner()
      .post('/dashboards/data-feeds/toggle')
      .send({ feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: true }),
  );
  const source = await eventually(
    async () => (await owner().get(`/dashboards/data-sources/${toggled.dataSourceId}`)).body,
    (s) => s.syncConfig?.lastSyncStatus === 'success' || s.syncConfig?.lastSyncStatus === 'failed',
    60_000,
  );
  expect(source.syncConfig.lastSyncStatus).toBe('success');
  const records = (await owner().get(`/data-stores/tables/${encodeURIComponent(source.dataStoreTableName)}?limit=1000`)).body.data as Array<{ key: string }>;
  expect(records.map((r) => r.key).sort()).toEqual(calls.map((c) => c.sid).sort());
  // Cube, embedded in the API, queries the source's serving relation from the compiled model code.
  const counted = await created(
    owner()
      .post('/dashboards/analytics/query')
      .send({ query: { measures: [`${source.servingRelation}.count`] } }),
  );
  expect(counted.data).toEqual([{ [`${source.servingRelation}.count`]: '3' }]);
  // Off again: its schedule pauses, so it never fires after this file.
  await created(
    owner()
      .post('/dashboards/data-feeds/toggle')
      .send({ feedKey: 'twilio:calls', connectionId: connection.id, connectionName: connection.name, enabled: false }),
  );
});

test('a schedule trigger fires a run', async () => {
  const workflow = await createWorkflow([returnStep('done', { ok: true })]);
  const trigger = await created(
    owner()
      .post(`/workflows/${workflow.id}/triggers`)
      .send({ type: 'schedule', name: uniqueName('every'), schedule: { intervalSeconds: 1 } }),
  );
  const runs = await eventually(
    async () => (await owner().get(`/executions?workflowId=${workflow.id}`)).body.data as Array<{ status: string; mode: string; trigger?: { id: string } }>,
    (data) => data.some((e) => e.status === 'completed'),
    60_000,
  );
  expect(runs.find((e) => e.status === 'completed')).toMatchObject({ mode: 'schedule', trigger: { id: trigger.id } });
  expect((await owner().delete(`/schedule-triggers/${trigger.id}`)).status).toBe(200);
});

test('a dashboard PDF draws a PNG (decoded in the copied worker thread script) and Korean and Chinese text (fonts from npm packages)', async () => {
  const dashboard = await created(
    owner()
      .post('/dashboards')
      .send({ name: uniqueName('Review') }),
  );
  const png = dataUri('image/png', solidPng(40, 20, [255, 0, 0]));
  const res = await owner()
    .post(`/dashboards/${dashboard.id}/export-pdf`)
    .send({ title: 'Review', html: `<h1>매출 收入 Revenue</h1><img src="${png}" width="40" height="20">` })
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 200, type: 'application/pdf' });
  const [page] = (await inspectPdf(res.body as Buffer, { draw: false })).pages;
  expect(page.text).toMatch(/매출\s+收入\s+Revenue/);
  expect(page.ops.paintImageXObject).toBe(1);
});

test('the compiled admin CLI creates an organization whose token the API accepts', async () => {
  const email = `${uniqueName('admin')}@example.test`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['dist/src/cli/admin.js', 'create-org', '--name', 'Prod CLI', '--email', email, '--plan', 'team'],
    { cwd: ROOT, env },
  );
  const created = JSON.parse(stdout) as { organizationId: string; token: string };
  const res = await request(base).get('/organization').set('Authorization', `Bearer ${created.token}`);
  expect({ status: res.status, body: res.body }).toEqual({
    status: 200,
    body: expect.objectContaining({ id: created.organizationId, name: 'Prod CLI', role: 'owner' }),
  });
});

test('both processes stop cleanly on SIGTERM', async () => {
  await api.stop();
  await worker.stop();
  expect(await api.exited).toBe(0);
  expect(await worker.exited).toBe(0);
});
