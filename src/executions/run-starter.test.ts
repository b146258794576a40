import { ServiceError, type WorkflowStartOptions } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { DeliveryRecorded, DuplicateStart } from './duplicate-starts';
import { NOT_STARTED_MESSAGE } from './executions.repository';
import { ORG, runRequest, starterOnFakes } from './starter.fixture';

/** The start's search attributes, always built typed. */
function attributes(options: WorkflowStartOptions): TypedSearchAttributes {
  const typed = options.typedSearchAttributes;
  if (!(typed instanceof TypedSearchAttributes)) throw new Error('The start carries no typed search attributes');
  return typed;
}

const delivery = (fields = {}) =>
  runRequest({ executionId: 'delivery-1', deliveryId: 'evt_1', trigger: { id: 'trg-1', name: 'orders-hook' }, mode: 'webhook', ...fields });

describe('starting a run', () => {
  test('records the execution, then starts its run with what operators find it by', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const id = await runs.start(runRequest({ trigger: { id: 'trg-1', name: 'orders-hook' }, environmentId: 'env-1', rerunOf: 'run-0' }));
    expect(executions.rows.get(id)).toMatchObject({ workflowId: 'wf-1', workflowVersion: 3, triggerName: 'orders-hook', rerunOf: 'run-0', status: 'running' });
    const { options } = temporal.run(id);
    expect(options).toMatchObject({
      workflowId: id,
      taskQueue: 'runs-queue',
      workflowTaskTimeout: '4 seconds',
      memo: { workflowId: 'wf-1', version: 3, mode: 'api' },
    });
    expect(options.args).toEqual([
      expect.objectContaining({ organizationId: ORG, environmentId: 'env-1', trigger: { id: 'trg-1', name: 'orders-hook' }, initial: { name: 'Ada' } }),
    ]);
    expect(attributes(options).get(SEARCH_ATTRIBUTE_KEYS.OrganizationId)).toBe(ORG);
    expect(attributes(options).get(SEARCH_ATTRIBUTE_KEYS.TriggerName)).toBe('orders-hook');
    expect(attributes(options).get(SEARCH_ATTRIBUTE_KEYS.DeliveryId)).toBeUndefined();
    expect(options.staticDetails).toContain('a rerun of execution run-0');
    // Not a delivery: nothing refuses a later run of the id.
    expect(options.workflowIdReusePolicy).toBeUndefined();
    expect(options.requestEagerStart).toBeUndefined();
  });

  test('a run Temporal refuses is marked failed, so it does not sit running', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.failNextStart = new ServiceError('Failed to start workflow');
    await expect(runs.start(runRequest({ executionId: 'run-1' }))).rejects.toBeInstanceOf(ServiceError);
    expect(executions.rows.get('run-1')).toMatchObject({ status: 'failed', error: { message: NOT_STARTED_MESSAGE } });
  });

  test('a failed beforeStart marks a new execution failed, and leaves a derived one open for its caller to retry', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const copyFailed = new Error('copy failed');
    const beforeStart = () => Promise.reject(copyFailed);
    await expect(runs.start(runRequest({ beforeStart }))).rejects.toBe(copyFailed);
    expect([...executions.rows.values()][0]).toMatchObject({ status: 'failed', error: { message: NOT_STARTED_MESSAGE } });
    await expect(runs.start(runRequest({ executionId: 'replay-1', beforeStart }))).rejects.toBe(copyFailed);
    expect(executions.rows.get('replay-1')?.status).toBe('running');
    expect(temporal.runs.size).toBe(0);
  });
});

describe('deduplicating', () => {
  test("a delivery's id is refused once used; a second start of it is a DuplicateStart that marks nothing", async () => {
    const { temporal, runs, executions } = starterOnFakes();
    await runs.start(delivery());
    const { options } = temporal.run('delivery-1');
    expect(options).toMatchObject({ workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowIdConflictPolicy: 'FAIL' });
    expect(attributes(options).get(SEARCH_ATTRIBUTE_KEYS.DeliveryId)).toBe('evt_1');
    temporal.run('delivery-1').complete();
    await expect(runs.start(delivery())).rejects.toEqual(new DuplicateStart('delivery-1'));
    expect(executions.rows.get('delivery-1')?.status).toBe('running');
  });

  test('a delivery whose start failed after Temporal took it is the run’s: DuplicateStart, not marked failed', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    // The start reached Temporal, its answer was lost.
    temporal.onStart = () => {
      temporal.onStart = () => undefined;
      throw new ServiceError('Deadline exceeded');
    };
    await expect(runs.start(delivery())).rejects.toEqual(new DuplicateStart('delivery-1'));
    expect(executions.rows.get('delivery-1')?.status).toBe('running');
  });

  test('a delivery claimed already is DeliveryRecorded, before anything is written or started', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    await runs.start(delivery({ claimNewDelivery: true }));
    await expect(runs.start(delivery({ executionId: 'delivery-1-g1', claimNewDelivery: true }))).rejects.toBeInstanceOf(DeliveryRecorded);
    expect([...executions.rows.keys()]).toEqual(['delivery-1']);
    expect([...temporal.runs.keys()]).toEqual(['delivery-1']);
  });

  test('startOnce starts a derived id once, however often it is called, and writes its record once', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const request = { ...runRequest({ mode: 'replay' }), executionId: 'replay-7' };
    expect(await runs.startOnce(request)).toEqual({ executionId: 'replay-7', started: true });
    temporal.run('replay-7').complete();
    expect(await runs.startOnce({ ...request, initial: { name: 'changed' } })).toEqual({ executionId: 'replay-7', started: false });
    expect(executions.rows.get('replay-7')?.input).toEqual({ name: 'Ada' });
    expect(temporal.runs.size).toBe(1);
  });

  test('startOnce throws other failures as they are, without marking the execution', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.failNextStart = new ServiceError('Failed to start workflow');
    await expect(runs.startOnce({ ...runRequest(), executionId: 'replay-8' })).rejects.toBeInstanceOf(ServiceError);
    expect(executions.rows.get('replay-8')?.status).toBe('running');
  });
});

describe('a run watched until it ends (a webhook answered at once)', () => {
  test('ends when the local worker announces the run’s answer, without looking it up', async () => {
    const { temporal, runs, replies, executions } = starterOnFakes({ local: true });
    const { executionId, ended } = await runs.startWatched(runRequest(), 5_000);
    expect(temporal.run(executionId).eagerlyStarted).toBe(false);
    replies.deliver(executionId, { kind: 'completed' });
    await ended;
    expect(executions.calls.stillRunning).toBe(0);
    expect(replies.size).toBe(0);
  });

  test('a start that fails stops expecting the announcement', async () => {
    const { temporal, runs, replies } = starterOnFakes({ local: true });
    temporal.failNextStart = new ServiceError('Failed to start workflow');
    await expect(runs.startWatched(runRequest(), 5_000)).rejects.toBeInstanceOf(ServiceError);
    expect(replies.size).toBe(0);
  });

  test('detached from the worker, a caller waiting for an answer asks Temporal', async () => {
    const { temporal, runs, replies } = starterOnFakes();
    const detach = runs.attachWorker({ client: temporal, replies });
    detach();
    temporal.onStart = (run) => run.answer({ kind: 'completed' });
    const { executionId, answer } = await runs.startAndAwaitReply(runRequest(), 5_000);
    expect(answer).toEqual({ kind: 'completed' });
    expect(temporal.run(executionId).options.requestEagerStart).toBeUndefined();
  });
});
