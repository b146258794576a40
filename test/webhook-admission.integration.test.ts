import request from 'supertest';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep as baseHttpStep, returnStep, workflowApi } from './workflow-api';
import { startHarness, type Harness } from './harness';
import type { FairScheduler } from '../src/lib/fair-scheduler';
import { createTestOrg, eventually, waitFor, type TestOrg } from './factories';

/**
 * Admission of webhook runs: past the runs in flight one API process takes,
 * a call waits its turn for a bounded time, then is answered 503 with
 * Retry-After before anything is written or started. A run answered at once
 * (202) keeps its place until it ends, so 202s are not promises the workers
 * keep long after. Organizations take turns: one cannot fill every place.
 */
let h: Harness;
let stub: HttpStub;
let worker: { stop(): Promise<void> };

/** How long a call waits for room here: long enough that a freed place reaches a waiter on a loaded machine. */
const WAIT_MS = 3_000;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: reply(200, { ok: true }) });
  h = await startHarness({
    // Two runs in flight, one per organization (the other place is always another organization's).
    configure: (config) => (config.webhooks.admission = { runsInFlight: 2, maxWaitMs: WAIT_MS }),
  });
  worker = await h.startWorker({ httpAllowList: [stub.host] });
});
afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

const httpStep = (stepId: string, url: string) => baseHttpStep(stepId, { url, timeoutMs: 30_000 });

async function executions(org: TestOrg): Promise<number> {
  const [{ n }] = await h.services.db.query(`SELECT count(*)::int AS n FROM executions WHERE organization_id = $1`, [org.organizationId]);
  return n;
}

/** The organization's calls waiting for a place in this API process, as the admission counts them (it has no public view of them). */
const waitingCalls = (org: TestOrg) =>
  (h.services.webhookHost as unknown as { admission: { scheduler: FairScheduler } }).admission.scheduler.stats(org.organizationId).waiting;

/** A call sent now (supertest sends on `then`), its answer awaited later. */
const send = (path: string) => request(h.app).post(path).send({ n: 1 }).then();

function expectOverloaded(res: request.Response) {
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('overloaded');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['x-execution-id']).toBeUndefined();
}

test('a caller who waits holds its place until answered; the next call of its organization waits, then is refused with 503 and nothing written', async () => {
  const org = await createTestOrg(h.services);
  const gate = stub.gate();
  const { path } = await workflowApi(h.app, org).createHook([httpStep('slow', gate.url), returnStep('answer', { done: true })]);

  const first = send(path);
  await gate.arrived;
  const started = Date.now();
  const second = await send(path);
  expectOverloaded(second);
  expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 50);
  expect(await executions(org)).toBe(1);

  // Another organization finds its place at once, whatever the first one has waiting.
  const other = await createTestOrg(h.services);
  const quick = await workflowApi(h.app, other).createHook([returnStep('answer', { other: true })]);
  const answer = await send(quick.path);
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ other: true });

  gate.open();
  expect((await first).status).toBe(200);
  // The place is free again.
  expect((await send(path)).status).toBe(200);
});

test('a call waiting for its turn gets it when a place frees up before its deadline', async () => {
  const org = await createTestOrg(h.services);
  const gate = stub.gate();
  const { path } = await workflowApi(h.app, org).createHook([httpStep('slow', gate.url), returnStep('answer', { done: true })]);

  const first = send(path);
  await gate.arrived;
  const waiting = send(path);
  // Seen in the queue, not merely sent: without admission it would have started a run instead.
  await waitFor(() => waitingCalls(org) === 1, { timeoutMs: 10_000, intervalMs: 20, what: 'the second call waiting for a place' });
  expect(await executions(org)).toBe(1);
  gate.open();
  expect((await first).status).toBe(200);
  expect((await waiting).status).toBe(200);
  expect(await executions(org)).toBe(2);
  expect(waitingCalls(org)).toBe(0);
});

describe('a run answered at once (202) keeps its place until it ends', () => {
  async function holdsItsPlace() {
    const org = await createTestOrg(h.services);
    const gate = stub.gate();
    const { path } = await workflowApi(h.app, org).createHook([httpStep('slow', gate.url)]);

    const first = await send(path);
    expect(first.status).toBe(202);
    await gate.arrived;
    expectOverloaded(await send(path));
    expect(await executions(org)).toBe(1);

    gate.open();
    await eventually(
      async () => (await send(path)).status,
      (status) => status === 202,
    );
    expect(await executions(org)).toBe(2);
  }

  test('told by the worker beside the API', holdsItsPlace);

  test('looked up in the executions table when the run is on another worker', async () => {
    // The harness's worker announces its runs' ends to this process; one that does not leaves the lookup to tell.
    await worker.stop();
    worker = await h.startWorker({ httpAllowList: [stub.host] }, { local: false });
    await holdsItsPlace();
  });
});
