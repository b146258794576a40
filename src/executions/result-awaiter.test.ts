import { ServiceError } from '@temporalio/client';
import { NOT_STARTED_MESSAGE } from './executions.repository';
import { runRequest, starterOnFakes } from './starter.fixture';

const response = { statusCode: 200, body: { ok: true } };

describe('a caller awaiting the run’s end (test runs, synchronous API runs)', () => {
  test('a run that ends: its result, without reading the executions table', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.onStart = (run) => {
      run.answer({ kind: 'response', response });
      run.complete({ response, stepsRun: 2 });
    };
    const { executionId, outcome } = await runs.startAndAwaitResult(runRequest(), 5_000);
    expect(outcome).toEqual({ kind: 'finished', result: { response, stepsRun: 2 } });
    expect(temporal.run(executionId).options.requestEagerStart).toBeUndefined();
    expect(executions.calls.status).toBe(0);
  });

  test('a run that parks at a wait before answering: waiting at once, heard through the update', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.onStart = (run) => run.park('gate', 'go');
    const { executionId, outcome } = await runs.startAndAwaitResult(runRequest(), 5_000);
    expect(outcome).toEqual({ kind: 'waiting' });
    expect(temporal.run(executionId).updates).toBe(1);
    expect(executions.calls.status).toBe(0);
  });

  test('a run that answered, then parked at a wait: waiting at once, heard through the update', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.onStart = (run) => {
      run.answer({ kind: 'response', response });
      run.park('gate');
    };
    const { outcome } = await runs.startAndAwaitResult(runRequest(), 5_000);
    expect(outcome).toEqual({ kind: 'waiting' });
    expect(executions.calls.status).toBe(0);
  });

  test('a run of a bundle from before awaitSettled that answered, then parked: waiting, from one read of its record at the deadline', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    temporal.onStart = (run) => {
      run.knowsSettled = false;
      run.answer({ kind: 'response', response });
      // Its wait step records it waiting; the update it does not know tells nothing.
      executions.mark(run.workflowId, 'waiting');
    };
    const { outcome } = await runs.startAndAwaitResult(runRequest(), 30);
    expect(outcome).toEqual({ kind: 'waiting' });
    expect(executions.calls.status).toBe(1);
  });

  test('a run still going at the deadline: timeout, after one read of its record', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const { executionId, outcome } = await runs.startAndAwaitResult(runRequest(), 20);
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(executions.calls.status).toBe(1);
    expect(temporal.run(executionId).isClosed).toBe(false);
  });

  test('a run that fails, is cancelled or is terminated: failed', async () => {
    const { temporal, runs } = starterOnFakes();
    temporal.onStart = (run) => run.fail({ stepId: 'charge', message: 'card declined' });
    expect((await runs.startAndAwaitResult(runRequest(), 5_000)).outcome).toEqual({ kind: 'failed' });
    temporal.onStart = (run) => run.cancel();
    expect((await runs.startAndAwaitResult(runRequest(), 5_000)).outcome).toEqual({ kind: 'failed' });
    temporal.onStart = (run) => run.terminate();
    expect((await runs.startAndAwaitResult(runRequest(), 5_000)).outcome).toEqual({ kind: 'failed' });
  });

  test('a run answered before it ended is told by its end, not by its answer', async () => {
    const { temporal, runs } = starterOnFakes();
    temporal.onStart = (run) => run.answer({ kind: 'response', response });
    const awaited = runs.startAndAwaitResult(runRequest(), 5_000);
    let settled = false;
    void awaited.finally(() => (settled = true));
    while (temporal.runs.size === 0 || temporal.last.updates === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    temporal.last.complete({ response, stepsRun: 3 });
    expect((await awaited).outcome).toEqual({ kind: 'finished', result: { response, stepsRun: 3 } });
  });

  test('a run Temporal never accepted is marked failed and its error thrown', async () => {
    const { temporal, runs, executions } = starterOnFakes();
    const refused = new ServiceError('Failed to start workflow');
    temporal.failNextStart = refused;
    await expect(runs.startAndAwaitResult(runRequest(), 5_000)).rejects.toBe(refused);
    expect([...executions.rows.values()][0]).toMatchObject({ status: 'failed', error: { message: NOT_STARTED_MESSAGE } });
  });
});
