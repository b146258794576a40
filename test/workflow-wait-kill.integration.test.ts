import { as, type Harness, startHarness } from './harness';
import { stepOf, workflowApi } from './workflow-api';
import { workerProcesses } from './worker-process';
import { createTestOrg, eventually, type TestOrg } from './factories';

/**
 * A run parked at a `core.wait` step holds nothing on its worker: the worker
 * process is killed with SIGKILL while the run waits, a new one starts, and
 * the event sent after the restart resumes the run from its history.
 */

let h: Harness;
let org: TestOrg;

beforeAll(async () => {
  h = await startHarness();
  org = await createTestOrg(h.services);
});
afterAll(async () => {
  await workers.stopAll();
  await h?.close();
});

const workers = workerProcesses(() => h.services.config.temporal.taskQueue);
const startWorker = () => workers.start();

test('SIGKILL while a run waits for an event: after a restart, the event resumes it and the steps before the wait do not run again', async () => {
  const api = workflowApi(h.app, org);
  const wf = await api.createWorkflow([
    { stepId: 'before', stepType: 'core.set', input: { values: { order: '{{ initial.order }}' } } },
    { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'approved' } } },
    { stepId: 'after', stepType: 'core.set', input: { values: { order: '{{ before.order }}', by: '{{ approval.by }}' } } },
  ]);
  const first = await startWorker();
  const started = await as(h.app, org.ownerToken)
    .post(`/workflows/${wf.id}/runs`)
    .send({ input: { order: 42 } });
  expect(started.status).toBe(202);
  const id = started.body.executionId as string;
  await eventually(
    () => api.readExecution(id),
    (e) => e.status === 'waiting',
    30_000,
  );
  const beforeRecord = stepOf(await api.readExecution(id), 'before');

  await first.kill();
  await startWorker();
  const sent = await eventually(
    () => as(h.app, org.ownerToken).post(`/executions/${id}/events/approved`).send({ by: 'ann' }),
    (res) => res.status === 202,
    60_000,
  );
  expect(sent.body).toMatchObject({ executionId: id, stepId: 'approval', status: 'resumed' });
  const done = await eventually(
    () => api.readExecution(id),
    (e) => e.status === 'completed',
    60_000,
  );
  expect(stepOf(done, 'after').output).toEqual({ order: 42, by: 'ann' });
  // The step before the wait ran once: its record is the one written before the kill.
  expect(stepOf(done, 'before')).toEqual(beforeRecord);
  expect(stepOf(done, 'before').attempt).toBe(1);
});
