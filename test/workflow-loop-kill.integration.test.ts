import { as, type Harness, startHarness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { workflowApi, stepOf } from './workflow-api';
import { workerProcesses } from './worker-process';
import { createTestOrg, eventually, type TestOrg } from './factories';

/**
 * A loop at concurrency 10 whose worker process is killed with SIGKILL
 * mid-way: after a restart the loop finishes, and every item's request
 * reached the receiver under one Idempotency-Key, so a receiver that keeps
 * its keys applies each item exactly once (a request in flight at the kill
 * is sent again, with the same key).
 */

let h: Harness;
let org: TestOrg;
let stub: HttpStub;
const received: Array<{ key: string; id: string }> = [];

beforeAll(async () => {
  stub = await startHttpStub();
  stub.on('/receive', async (req, res) => {
    received.push({ key: String(req.headers['idempotency-key']), id: JSON.parse(req.body).id });
    // Slow enough that ten are in flight when the worker dies.
    await new Promise((resolve) => setTimeout(resolve, 200));
    sendJson(res, 200, { ok: true });
  });
  h = await startHarness();
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

test('SIGKILL while a loop runs at concurrency 10: after a restart each item is applied once (one Idempotency-Key per item)', async () => {
  const api = workflowApi(h.app, org);
  const items = Array.from({ length: 60 }, (_, i) => ({ id: `item-${i}` }));
  const wf = await api.createWorkflow([
    {
      stepId: 'each',
      stepType: 'core.loop',
      input: {
        items: '{{ initial.items }}',
        concurrency: 10,
        steps: [{ stepId: 'send', stepType: 'core.http', input: { url: `${stub.url}/receive`, method: 'POST', body: { id: '{{ item.id }}' } } }],
      },
    },
  ]);
  const first = await startWorker();
  const started = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: { items } });
  expect(started.status).toBe(202);
  const id = started.body.executionId as string;
  await eventually(
    async () => received.length,
    (n) => n >= 15,
    60_000,
  );
  await first.kill();
  const atKill = received.length;
  expect(atKill).toBeLessThan(items.length);
  await startWorker();
  const done = await eventually(
    () => api.readExecution(id),
    (e) => e.status !== 'running',
    120_000,
  );
  expect(done.status).toBe('completed');
  expect(stepOf(done, 'each').output.errors).toEqual([]);

  // Applied once: one key per item, and a key never names two items.
  const keysByItem = new Map<string, Set<string>>();
  for (const { key, id: item } of received) keysByItem.set(item, (keysByItem.get(item) ?? new Set()).add(key));
  expect([...keysByItem.keys()].sort()).toEqual(items.map((i) => i.id).sort());
  expect([...keysByItem.values()].every((keys) => keys.size === 1)).toBe(true);
  expect(new Set(received.map((r) => r.key)).size).toBe(items.length);
}, 240_000);
