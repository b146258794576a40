import request from 'supertest';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, startWorkflowHarness, workflowApi } from './workflow-api';
import { type Harness } from './harness';
import { createTestOrg, type TestOrg, eventually } from './factories';

/**
 * Unauthenticated webhooks could start runs as fast as anyone could call
 * them. Calls past a trigger's or an organization's rate are answered 429
 * with Retry-After, and start nothing.
 */
let h: Harness;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: reply(200, { ok: true }) });
  ({ h } = await startWorkflowHarness(stub, {
    // A token refills every ~3 hours: the burst decides, whatever the speed of this machine.
    configure: (config) => (config.webhooks.rateLimits = { perTrigger: { rate: 0.0001, burst: 5 }, perOrganization: { rate: 0.0001, burst: 8 } }),
  }));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

async function executions(org: TestOrg): Promise<number> {
  const [{ n }] = await h.services.db.query(`SELECT count(*)::int AS n FROM executions WHERE organization_id = $1`, [org.organizationId]);
  return n;
}

test('a burst on one trigger: its burst is accepted, the rest is 429 with Retry-After and starts nothing', async () => {
  const org = await createTestOrg(h.services);
  const { path } = await workflowApi(h.app, org).createHook([httpStep('call', { url: `${stub.url}/ping` })]);
  const answers = await Promise.all(Array.from({ length: 12 }, () => request(h.app).post(path).send({ n: 1 })));
  const accepted = answers.filter((r) => r.status === 202);
  const refused = answers.filter((r) => r.status === 429);
  expect(accepted).toHaveLength(5);
  expect(refused).toHaveLength(7);
  for (const res of refused) {
    expect(res.body.error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-execution-id']).toBeUndefined();
  }
  await eventually(
    () => executions(org),
    (n) => n === 5,
  );
  await eventually(
    async () => stub.calls('/ping').length,
    (n) => n === 5,
  );
  expect(await executions(org)).toBe(5);
});

test("the organization's bucket spans its triggers: a fresh trigger is refused once the organization's is empty", async () => {
  const org = await createTestOrg(h.services);
  const a = workflowApi(h.app, org);
  const first = await a.createHook([httpStep('call', { url: `${stub.url}/first` })]);
  const second = await a.createHook([httpStep('call', { url: `${stub.url}/second` })]);
  // 5 of the organization's 8 go to the first trigger (its own burst), so 3 remain for the second.
  const spent = await Promise.all(Array.from({ length: 5 }, () => request(h.app).post(first.path).send({})));
  expect(spent.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
  const answers = await Promise.all(Array.from({ length: 5 }, () => request(h.app).post(second.path).send({})));
  expect(answers.map((r) => r.status).sort()).toEqual([202, 202, 202, 429, 429]);
  expect(answers.find((r) => r.status === 429)!.body.error.message).toMatch(/organization/);
  await eventually(
    () => executions(org),
    (n) => n === 8,
  );
});
