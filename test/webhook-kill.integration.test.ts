import request from 'supertest';
import { as, type Harness, startHarness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { stepOf, workflowApi } from './workflow-api';
import { workerProcesses } from './worker-process';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { recordUrl } from './data-store-api';

/**
 * Synchronous webhook runs whose worker process is killed with SIGKILL while
 * they are inside an HTTP step: a new worker takes them over, every caller is
 * answered, every run completes, and every data store write happens once,
 * including the write that ran before the kill in the workflow task Temporal
 * never recorded. The request in flight is sent again with the same
 * Idempotency-Key.
 */

const RUNS = 5;
let h: Harness;
let org: TestOrg;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub();
  h = await startHarness({ configure: (config) => (config.webhooks.syncTimeoutMs = 90_000) });
  org = await createTestOrg(h.services);
});
afterAll(async () => {
  await workers.stopAll();
  await h?.close();
  await stub?.close();
});

const workers = workerProcesses(
  () => h.services.config.temporal.taskQueue,
  () => ({ HTTP_OUTBOUND_ALLOW: stub.host }),
);
const startWorker = () => workers.start();

test('SIGKILL while runs are inside an HTTP step: all complete, callers are answered, each write happens once', async () => {
  const api = workflowApi(h.app, org);
  const table = uniqueName('kill_writes');
  // Until the kill, /hold never answers; afterwards it answers at once.
  let killed = false;
  let held = 0;
  let allHeld!: () => void;
  const holding = new Promise<void>((resolve) => (allHeld = resolve));
  stub.on('/hold', (req, res) => {
    if (killed) return sendJson(res, 200, { ok: true, n: req.query.n });
    if (++held === RUNS) allHeld();
  });
  const { path } = await api.createHook([
    { stepId: 'before', stepType: 'data-store.set', input: { tableName: table, key: 'before-{{ initial.n }}', value: { n: '{{ initial.n }}' } } },
    { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/hold`, searchParams: { n: '{{ initial.n }}' } } },
    { stepId: 'after', stepType: 'data-store.set', input: { tableName: table, key: 'after-{{ initial.n }}', value: { n: '{{ fetch.body.n }}' } } },
    { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { n: '{{ initial.n }}' } } } },
  ]);

  const first = await startWorker();
  const callers = Array.from({ length: RUNS }, (_, n) =>
    request(h.app)
      .post(path)
      .send({ n: String(n) }),
  );
  const answers = Promise.all(callers.map((c) => c.then((res) => res)));
  await holding;
  const killedAt = Date.now();
  killed = true;
  await first.kill();
  await startWorker();
  const readyAt = Date.now();

  const responses = await answers;
  const answeredAt = Date.now();
  expect(responses.map((res) => [res.status, res.body])).toEqual(Array.from({ length: RUNS }, (_, n) => [200, { n: String(n) }]));

  for (const [n, res] of responses.entries()) {
    const execution = await eventually(
      () => api.readExecution(res.headers['x-execution-id']),
      (e) => e.status !== 'running',
    );
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'after').output).toEqual({ key: `after-${n}`, created: true });

    // The request in flight was sent again, with the key of its first attempt; each run has its own.
    const sent = stub.calls('/hold').filter((r) => r.query.n === String(n));
    expect(sent).toHaveLength(2);
    expect(sent[1].headers['idempotency-key']).toBe(sent[0].headers['idempotency-key']);
    expect(sent[0].headers['idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // Written once: a second write would have moved updatedAt past createdAt.
    for (const key of [`before-${n}`, `after-${n}`]) {
      const record = await as(h.app, org.ownerToken).get(recordUrl(table, key));
      expect(record.status).toBe(200);
      expect(record.body.value).toEqual({ n: String(n) });
      expect(record.body.updatedAt).toBe(record.body.createdAt);
    }
  }
  const keys = new Set(stub.calls('/hold').map((r) => r.headers['idempotency-key']));
  expect(keys.size).toBe(RUNS);
  console.log(`webhook kill test: ${RUNS} callers answered ${answeredAt - killedAt} ms after SIGKILL, ${answeredAt - readyAt} ms after the new worker polled`);
}, 240_000);
