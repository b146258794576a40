import { ServiceError } from '@temporalio/client';
import { DuplicateStart } from './duplicate-starts';
import { NOT_STARTED_MESSAGE } from './executions.repository';
import { ORG, runRequest, starterOnFakes } from './starter.fixture';

const response = { kind: 'response', response: { statusCode: 201, body: { greeting: 'Hello, Ada!' } } } as const;
const unavailable = () => new ServiceError('Failed to start workflow', { cause: Object.assign(new Error('14 UNAVAILABLE'), { code: 14 }) });

describe('a caller awaiting the answer through Temporal (no worker in this process)', () => {
  test("the run starts with its update, and the caller gets the return step's response", async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.onStart = (run) => run.answer(response);
    const { executionId, answer } = await runs.startAndAwaitReply(runRequest(), 5_000);
    expect(answer).toEqual(response);
    expect(temporal.run(executionId).options).toMatchObject({ workflowId: executionId, workflowIdConflictPolicy: 'FAIL' });
    expect(executions.rows.get(executionId)).toMatchObject({ organizationId: ORG, workflowName: 'orders', status: 'running' });
  });

  test('a run that ends without answering tells the caller so', async () => {
    const { temporal, runs } = starterOnFakes();
    temporal.onStart = (run) => run.terminate();
    const { answer } = await runs.startAndAwaitReply(runRequest(), 5_000);
    expect(answer).toEqual({ kind: 'failed', message: 'The run ended before it answered' });
  });

  test('a run that has not answered by the deadline is left running: timeout', async () => {
    const { temporal, runs } = starterOnFakes();
    const { executionId, answer } = await runs.startAndAwaitReply(runRequest(), 20);
    expect(answer).toEqual({ kind: 'timeout' });
    expect(temporal.run(executionId).isClosed).toBe(false);
  });

  test('a delivery whose run Temporal has already is a DuplicateStart, and the first run is not marked', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const delivery = runRequest({ executionId: 'delivery-1', deliveryId: 'evt_1', trigger: { id: 'trg-1', name: 'orders-hook' } });
    const first = runs.startAndAwaitReply(delivery, 5_000);
    await expect(runs.startAndAwaitReply(delivery, 5_000)).rejects.toEqual(new DuplicateStart('delivery-1'));
    expect(executions.rows.get('delivery-1')?.status).toBe('running');
    temporal.run('delivery-1').answer(response);
    expect((await first).answer).toEqual(response);
  });

  test('a run Temporal never accepted is marked failed and its error thrown', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const refused = unavailable();
    temporal.failNextStart = refused;
    await expect(runs.startAndAwaitReply(runRequest(), 5_000)).rejects.toBe(refused);
    const [row] = executions.rows.values();
    expect(row).toMatchObject({ status: 'failed', error: { message: NOT_STARTED_MESSAGE } });
  });
});

describe('a caller awaiting the answer beside a worker', () => {
  test('the answer the local worker announces is taken without asking Temporal', async () => {
    const { temporal, runs, replies } = starterOnFakes({ local: true });
    temporal.onStart = (run) => replies.deliver(run.workflowId, response);
    const { executionId, answer } = await runs.startAndAwaitReply(runRequest(), 5_000);
    expect(answer).toEqual(response);
    expect(temporal.run(executionId)).toMatchObject({ eagerlyStarted: true, updates: 0 });
    expect(temporal.run(executionId).options.requestEagerStart).toBe(true);
    expect(replies.size).toBe(0);
  });

  test('a run the server did not start here is asked through the update at once', async () => {
    const { temporal, runs, replies } = starterOnFakes({ local: true });
    temporal.grantsEagerStart = false;
    temporal.onStart = (run) => run.answer(response);
    // A deadline inside the local grace: only an immediate ask hears the answer.
    const { executionId, answer } = await runs.startAndAwaitReply(runRequest(), 1_000);
    expect(answer).toEqual(response);
    expect(temporal.run(executionId).updates).toBe(1);
    expect(replies.size).toBe(0);
  });

  test('a run that closed before the update reached it answers with its first recorded return step', async () => {
    const { temporal, runs, executions } = starterOnFakes({ local: true });
    temporal.grantsEagerStart = false;
    temporal.onStart = (run) => {
      executions.answering.set(run.workflowId, 'reply');
      run.fail({ stepId: 'after', message: 'boom' });
    };
    const { answer } = await runs.startAndAwaitReply(runRequest(), 5_000);
    expect(answer).toEqual({ kind: 'response', record: 'reply', sealed: true });
  });

  test('a run that closed without answering: how it closed, failed with its step or cancelled', async () => {
    const { temporal, runs } = starterOnFakes({ local: true });
    temporal.grantsEagerStart = false;
    temporal.onStart = (run) => run.fail({ stepId: 'charge', message: 'card declined' });
    expect((await runs.startAndAwaitReply(runRequest(), 5_000)).answer).toEqual({ kind: 'failed', stepId: 'charge', message: 'card declined' });
    temporal.onStart = (run) => run.cancel();
    expect((await runs.startAndAwaitReply(runRequest(), 5_000)).answer).toEqual({ kind: 'cancelled' });
    temporal.onStart = (run) => run.terminate();
    expect((await runs.startAndAwaitReply(runRequest(), 5_000)).answer).toEqual({ kind: 'failed', message: 'The run ended before it answered' });
  });

  test('nothing heard by the deadline: timeout, and the caller stops expecting an answer', async () => {
    const { runs, replies } = starterOnFakes({ local: true });
    const { answer } = await runs.startAndAwaitReply(runRequest(), 20);
    expect(answer).toEqual({ kind: 'timeout' });
    expect(replies.size).toBe(0);
  });

  describe('an eagerly started run that moved to another worker', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    test('is asked through Temporal once the local grace has passed, not before', async () => {
      const { temporal, runs } = starterOnFakes({ local: true });
      // Answered where this process's worker does not hear it.
      temporal.onStart = (run) => run.answer(response);
      let settled = false;
      const awaited = runs.startAndAwaitReply(runRequest(), 5_000).finally(() => (settled = true));
      while (jest.getTimerCount() === 0) await new Promise((resolve) => setImmediate(resolve));
      await jest.advanceTimersByTimeAsync(2_999);
      expect(settled).toBe(false);
      expect(temporal.last.updates).toBe(0);
      await jest.advanceTimersByTimeAsync(1);
      expect((await awaited).answer).toEqual(response);
      expect(temporal.last.updates).toBe(1);
    });
  });
});

describe('what a run told its caller so far (a duplicate delivery)', () => {
  test('its recorded return step, else how it stands', async () => {
    const { runs, executions } = starterOnFakes();
    await runs.start(runRequest({ executionId: 'run-1' }));
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'timeout' });
    executions.mark('run-1', 'waiting');
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'timeout' });
    executions.mark('run-1', 'failed', { stepId: 'charge', message: 'card declined' });
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'failed', stepId: 'charge', message: 'card declined' });
    executions.mark('run-1', 'cancelled');
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'cancelled' });
    executions.mark('run-1', 'completed');
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'completed' });
    executions.answering.set('run-1', 'reply');
    expect(await runs.answerSoFar(ORG, 'run-1')).toEqual({ kind: 'response', record: 'reply', sealed: true });
    expect(await runs.answerSoFar('org-2', 'run-1')).toEqual({ kind: 'timeout' });
  });
});
