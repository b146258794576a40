import { idempotencyKey } from '../activities/steps/idempotency-key';
import { as, type Harness, startHarness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, workflowApi } from './workflow-api';
import { workerProcesses } from './worker-process';
import { createTestOrg, eventually, type TestOrg } from './factories';

/**
 * A bulk replay whose worker process is killed with SIGKILL while it starts
 * runs goes on on a new worker, and each selected run is replayed exactly
 * once: every replay's execution id is derived from the bulk and its
 * original, and Temporal refuses a second run of an id.
 */

jest.setTimeout(240_000);

let h: Harness;
let org: TestOrg;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { path: req.path }) });
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

test('SIGKILL during a bulk replay: after a restart every selected run is replayed exactly once', async () => {
  const api = workflowApi(h.app, org);
  // Broken while the originals run; then the first replay's request is held (its worker dies holding it) and later ones answered.
  let fixed = false;
  let replayHits = 0;
  let firstReplay!: () => void;
  const replayArrived = new Promise<void>((resolve) => (firstReplay = resolve));
  stub.on('/target', (_req, res) => {
    if (!fixed) return sendJson(res, 500, { error: 'broken' });
    replayHits += 1;
    if (replayHits === 1) return firstReplay();
    sendJson(res, 200, { ok: true });
  });
  const wf = await api.createWorkflow([
    httpStep('fetch', { url: `${stub.url}/source` }),
    httpStep('post', { url: `${stub.url}/target`, body: { n: '{{ initial.n }}' } }),
  ]);

  const first = await startWorker();
  const originals: string[] = [];
  for (let n = 0; n < 12; n++) {
    const accepted = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: { n } });
    originals.push(accepted.body.executionId);
  }
  for (const id of originals) {
    expect(
      (
        await eventually(
          () => api.readExecution(id),
          (e) => e.status !== 'running',
          60_000,
        )
      ).status,
    ).toBe('failed');
  }
  fixed = true;

  const res = await as(h.app, org.ownerToken)
    .post('/executions/replay')
    .send({ filter: { workflowId: wf.id, failedStepId: 'post' }, fromStepId: 'post', dryRun: false });
  expect(res.status).toBe(202);
  expect(res.body.total).toBe(12);
  const { bulkId } = res.body;
  await replayArrived;
  await first.kill();
  const killedAt = Date.now();
  // Killed with runs still to start (5 a second): the new worker takes over the bulk, not only the runs in flight.
  const atKill = (await as(h.app, org.ownerToken).get(`/executions/replays/${bulkId}`)).body;
  expect(atKill).toMatchObject({ status: 'running' });
  expect(atKill.started).toBeLessThan(12);
  await startWorker();

  const progress = await eventually(
    async () => (await as(h.app, org.ownerToken).get(`/executions/replays/${bulkId}`)).body,
    (body) => body.status === 'completed',
    180_000,
  );
  expect(progress).toMatchObject({ total: 12, started: 12, failed: 0 });
  for (const item of progress.executions) {
    const execution = await eventually(
      () => api.readExecution(item.executionId),
      (e) => e.status !== 'running',
      120_000,
    );
    expect(execution).toMatchObject({ status: 'completed', mode: 'replay', replayOf: item.originalId });
  }
  // Exactly one replay per original, under the id derived for it; and the reused step sent nothing again.
  const rows: Array<{ replayOf: string; ids: string[] }> = await h.services.db.query(
    `SELECT replay_of AS "replayOf", array_agg(id) AS ids FROM executions WHERE organization_id = $1 AND mode = 'replay' GROUP BY replay_of`,
    [org.organizationId],
  );
  expect(rows).toHaveLength(12);
  const derived = new Map(progress.executions.map((e: { originalId: string; executionId: string }) => [e.originalId, e.executionId]));
  for (const row of rows) expect(row.ids).toEqual([derived.get(row.replayOf)]);
  // The reused step sent nothing again: one call per original, none from a replay (each call named by its run, from its key).
  const runOfKey = new Map<string, string>([
    ...originals.map((id): [string, string] => [idempotencyKey(id, 'fetch'), `original ${id}`]),
    ...progress.executions.map((e: { executionId: string }): [string, string] => [idempotencyKey(e.executionId, 'fetch'), `replay ${e.executionId}`]),
  ]);
  const callers = stub.calls('/source').map((c) => runOfKey.get(String(c.headers['idempotency-key'])) ?? `another key ${c.headers['idempotency-key']}`);
  expect(callers.sort()).toEqual(originals.map((id) => `original ${id}`).sort());
  console.log(`bulk replay kill test: the bulk completed ${Date.now() - killedAt} ms after SIGKILL`);
});
