import { as, expectError, quietTemporalRuntime, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep as baseHttpStep, returnStep, startWorkflowHarness, type Execution, type Step, type WorkflowApi } from './workflow-api';
import type { Role } from '../src/auth/roles';
import { createTestOrg, type TestOrg, waitFor } from './factories';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const httpStep = (stepId: string, url: string) => baseHttpStep(stepId, { url });

async function updateWorkflow(id: string, name: string, steps: Step[]) {
  const res = await as(h.app, org.ownerToken).put(`/workflows/${id}`).send({ name, steps });
  expect(res.status).toBe(200);
}

/** POST /workflows/:id/runs without waiting: the execution id. */
async function runAsync(workflowId: string, input: Record<string, unknown> = {}): Promise<string> {
  const res = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/runs`).send({ input });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'running' });
  return res.body.executionId;
}

const stepIds = (e: Execution) => e.steps.map((s) => s.stepId);

// ---------------------------------------------------------------------------

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  // Failed and cancelled runs are expected here; the worker's WARN lines about them are noise.
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub();
  stub.on('/fail', reply(500, { error: 'boom' }));
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

describe('listing executions', () => {
  let ok: { id: string };
  let bad: { id: string };
  let first: Execution;
  let second: Execution;
  let failed: Execution;

  beforeAll(async () => {
    ok = await a.createWorkflow([returnStep('answer', { ok: true })]);
    bad = await a.createWorkflow([httpStep('fetch', `${stub.url}/fail`)]);
    first = await a.runAndWait(ok.id, { n: 1 });
    second = await a.runAndWait(ok.id, { n: 2 });
    failed = await a.runAndWait(bad.id, { n: 3 });
  });

  test("filtering by workflowId lists only that workflow's runs, newest first", async () => {
    const list = await a.listExecutions({ workflowId: ok.id });
    expect(list.total).toBe(2);
    expect(list.data.map((e) => e.id)).toEqual([second.id, first.id]);
    expect(list.data[0]).not.toHaveProperty('steps');
  });

  test('filtering by status completed leaves out failed runs', async () => {
    const completed = await a.listExecutions({ status: 'completed' });
    const ids = completed.data.map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(ids).not.toContain(failed.id);
    expect(completed.data.every((e) => e.status === 'completed')).toBe(true);
  });

  test('filtering by status failed lists the failed run only', async () => {
    const list = await a.listExecutions({ status: 'failed', workflowId: bad.id });
    expect(list.data.map((e) => [e.id, e.status])).toEqual([[failed.id, 'failed']]);
    expect(await a.listExecutions({ status: 'failed', workflowId: ok.id })).toEqual({ total: 0, data: [] });
  });

  test('startedAfter includes runs started at or after the instant', async () => {
    const list = await a.listExecutions({ workflowId: ok.id, startedAfter: second.startedAt });
    expect(list.data.map((e) => e.id)).toEqual([second.id]);
  });

  test('startedBefore includes runs started strictly before the instant', async () => {
    const list = await a.listExecutions({ workflowId: ok.id, startedBefore: second.startedAt });
    expect(list.data.map((e) => e.id)).toEqual([first.id]);
  });

  test('limit and offset page through the list while total counts all matches', async () => {
    const page = await a.listExecutions({ workflowId: ok.id, limit: '1', offset: '1' });
    expect(page.total).toBe(2);
    expect(page.data.map((e) => e.id)).toEqual([first.id]);
  });

  describe('another organization', () => {
    let stranger: TestOrg;
    beforeAll(async () => {
      stranger = await createTestOrg(h.services);
    });

    test('cannot read the execution: 404', async () => {
      expectError(await as(h.app, stranger.ownerToken).get(`/executions/${first.id}`), 404, 'not_found');
    });

    test('cannot cancel the execution: 404', async () => {
      expectError(await as(h.app, stranger.ownerToken).post(`/executions/${first.id}/cancel`), 404, 'not_found');
    });

    test('cannot rerun the execution: 404', async () => {
      expectError(await as(h.app, stranger.ownerToken).post(`/executions/${first.id}/rerun`).send({}), 404, 'not_found');
    });

    test('does not see the execution in its list', async () => {
      const all = await a.listExecutions({ limit: '1000' }, stranger.ownerToken);
      expect(all.data.map((e) => e.id)).not.toContain(first.id);
      expect(await a.listExecutions({ workflowId: ok.id }, stranger.ownerToken)).toEqual({ total: 0, data: [] });
    });

    test('cannot have a step recorded into the execution', async () => {
      const at = new Date();
      const row = {
        stepId: 'intruder',
        stepType: 'core.http',
        seq: 99,
        status: 'completed' as const,
        attempt: 1,
        input: null,
        output: { x: 1 },
        error: null,
        startedAt: at,
        finishedAt: at,
      };
      await h.services.executionsRepository.recordStep(stranger.organizationId, first.id, row);
      expect(stepIds(await a.readExecution(first.id))).not.toContain('intruder');
      await h.services.executionsRepository.recordStep(org.organizationId, first.id, row);
      expect(stepIds(await a.readExecution(first.id))).toContain('intruder');
    });
  });
});

describe('reading one execution', () => {
  test("a completed run shows its status, timing and each step's rendered input and output", async () => {
    const hold = stub.gate();
    const wf = await a.createWorkflow([
      { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/items/{{ initial.item }}`, searchParams: { q: '{{ initial.q }}' } } },
      { stepId: 'hold', stepType: 'core.http', input: { url: hold.url } },
      returnStep('answer', { url: '{{ fetch.body.url }}' }),
    ]);
    // The timing is judged by the test's own clock: the run lies between `before` and `after`, and spans the hold, which lasts at least `held`.
    const before = Date.now();
    const running = a.runAndWait(wf.id, { item: 'abc', q: 'x y' });
    await hold.arrived;
    const arrived = Date.now();
    await waitFor(() => Date.now() - arrived >= 50, { intervalMs: 10, what: '50 ms of holding' });
    const held = Date.now() - arrived;
    hold.open();
    const ran = await running;
    const after = Date.now();
    const e = await a.readExecution(ran.id);
    expect(e).toMatchObject({
      id: ran.id,
      workflowId: wf.id,
      workflowVersion: 1,
      mode: 'api',
      status: 'completed',
      input: { item: 'abc', q: 'x y' },
      error: null,
      rerunOf: null,
    });
    const within = (x: { startedAt: string; finishedAt: string | null; durationMs: number | null }) => ({
      startedAfterBefore: Date.parse(x.startedAt) >= before,
      finishedBeforeAfter: Date.parse(x.finishedAt!) <= after,
      durationAtMostTheWindow: x.durationMs! <= after - before,
    });
    const inWindow = { startedAfterBefore: true, finishedBeforeAfter: true, durationAtMostTheWindow: true };
    expect(within(e)).toEqual(inWindow);
    expect(e.durationMs).toBeGreaterThanOrEqual(held);
    expect(stepIds(e)).toEqual(['fetch', 'hold', 'answer']);
    const [fetch, holding, answer] = e.steps!;
    expect(fetch).toMatchObject({
      stepType: 'core.http',
      status: 'completed',
      attempt: 1,
      input: { method: 'GET', url: `${stub.url}/items/abc?q=x+y` },
      output: { status: 200, body: { method: 'GET', url: '/items/abc?q=x+y' } },
      error: null,
    });
    expect(within(fetch)).toEqual(inWindow);
    // The fetch ended before the hold's request reached the stub.
    expect(Date.parse(fetch.finishedAt)).toBeLessThanOrEqual(arrived);
    expect(fetch.durationMs).toBeGreaterThanOrEqual(0);
    expect(within(holding)).toEqual(inWindow);
    expect(holding.durationMs).toBeGreaterThanOrEqual(held);
    expect(answer).toMatchObject({ stepType: 'core.return', status: 'completed', output: { statusCode: 200, body: { url: '/items/abc?q=x+y' } } });
  });

  test("a failed run shows the failing step with its error, and the run's error names it", async () => {
    const wf = await a.createWorkflow([returnStep('early', { fine: true }), httpStep('explode', `${stub.url}/fail`), returnStep('never', {})]);
    const ran = await a.runAndWait(wf.id);
    const e = await a.readExecution(ran.id);
    expect(e.status).toBe('failed');
    expect(e.finishedAt).not.toBeNull();
    expect(e.error).toEqual({ stepId: 'explode', code: 'HttpStatus', message: expect.stringMatching(/^Step "explode" \(core\.http\) failed: HTTP 500/) });
    expect(stepIds(e)).toEqual(['early', 'explode']);
    expect(e.steps![1]).toMatchObject({ status: 'failed', output: null, error: expect.stringContaining('HTTP 500'), input: { url: `${stub.url}/fail` } });
  });

  test('an unknown execution id is 404', async () => {
    expectError(await as(h.app, org.ownerToken).get('/executions/no-such-execution'), 404, 'not_found');
  });
});

describe('cancelling', () => {
  test('a running execution is cancelled: 200, then its status becomes cancelled', async () => {
    const held = stub.gate();
    const wf = await a.createWorkflow([httpStep('wait', held.url), returnStep('after', {})]);
    const id = await runAsync(wf.id);
    await held.arrived;
    expect((await a.readExecution(id)).status).toBe('running');

    const res = await as(h.app, org.ownerToken).post(`/executions/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'running' });

    const ended = await a.awaitEnd(id);
    held.open();
    expect(ended.status).toBe('cancelled');
    expect(ended.finishedAt).not.toBeNull();
    expect(stepIds(ended)).not.toContain('after');
  });

  test('cancelling a completed execution is 409 not_running', async () => {
    const wf = await a.createWorkflow([returnStep('answer', {})]);
    const done = await a.runAndWait(wf.id);
    expectError(await as(h.app, org.ownerToken).post(`/executions/${done.id}/cancel`), 409, 'not_running');
  });
});

describe('rerunning', () => {
  test('a rerun starts a new execution with the original input, pointing back at the original', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { echo: '{{ initial.word }}' })]);
    const original = await a.runAndWait(wf.id, { word: 'again' });
    const res = await as(h.app, org.ownerToken).post(`/executions/${original.id}/rerun`).send({});
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ executionId: expect.any(String), status: 'running' });
    expect(res.body.executionId).not.toBe(original.id);
    const rerun = await a.awaitEnd(res.body.executionId);
    expect(rerun).toMatchObject({ status: 'completed', mode: 'rerun', rerunOf: original.id, input: { word: 'again' }, workflowId: wf.id });
    expect(rerun.steps![0].output).toEqual({ statusCode: 200, body: { echo: 'again' } });
  });

  describe('after the workflow was updated', () => {
    let wf: { id: string; name: string };
    let original: Execution;
    beforeAll(async () => {
      wf = await a.createWorkflow([returnStep('v1', { version: 1 })]);
      original = await a.runAndWait(wf.id, { k: 'v' });
      await updateWorkflow(wf.id, wf.name, [returnStep('v2', { version: 2 })]);
    });

    test('by default the rerun runs the current definition', async () => {
      const res = await as(h.app, org.ownerToken).post(`/executions/${original.id}/rerun`).send({});
      expect(res.status).toBe(202);
      const rerun = await a.awaitEnd(res.body.executionId);
      expect(rerun).toMatchObject({ status: 'completed', workflowVersion: 2, rerunOf: original.id, input: { k: 'v' } });
      expect(stepIds(rerun)).toEqual(['v2']);
    });

    test('definition original reruns the version the execution ran', async () => {
      const res = await as(h.app, org.ownerToken).post(`/executions/${original.id}/rerun`).send({ definition: 'original' });
      expect(res.status).toBe(202);
      const rerun = await a.awaitEnd(res.body.executionId);
      expect(rerun).toMatchObject({ status: 'completed', workflowVersion: 1, rerunOf: original.id, input: { k: 'v' } });
      expect(stepIds(rerun)).toEqual(['v1']);
    });
  });
});

describe('running a workflow by id', () => {
  test('POST /workflows/:id/runs answers 202 at once and the run goes on to complete', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { got: '{{ initial.x }}' })]);
    const id = await runAsync(wf.id, { x: 'async' });
    const ended = await a.awaitEnd(id);
    expect(ended).toMatchObject({ status: 'completed', mode: 'api', input: { x: 'async' } });
    expect(ended.steps![0].output.body).toEqual({ got: 'async' });
  });

  test('POST /workflows/:id/runs with wait answers 200 with the ended execution and its steps', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { got: '{{ initial.x }}' })]);
    const res = await as(h.app, org.ownerToken)
      .post(`/workflows/${wf.id}/runs`)
      .send({ input: { x: 'sync' }, wait: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', mode: 'api', input: { x: 'sync' }, finishedAt: expect.any(String) });
    expect(res.body.steps).toEqual([expect.objectContaining({ stepId: 'answer', status: 'completed', output: { statusCode: 200, body: { got: 'sync' } } })]);
  });

  test("POST /workflows/:id/test runs with the definition's initial by default", async () => {
    const wf = await a.createWorkflow([returnStep('answer', { who: '{{ initial.who }}' })], { initial: { who: 'sample' } });
    const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/test`).send({});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', mode: 'test', input: { who: 'sample' } });
    expect(res.body.steps[0].output.body).toEqual({ who: 'sample' });
  });

  test('POST /workflows/:id/test runs with the given initial instead', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { who: '{{ initial.who }}' })], { initial: { who: 'sample' } });
    const res = await as(h.app, org.ownerToken)
      .post(`/workflows/${wf.id}/test`)
      .send({ initial: { who: 'given' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', mode: 'test', input: { who: 'given' } });
    expect(res.body.steps[0].output.body).toEqual({ who: 'given' });
  });

  test('a run keeps the version it started with when the workflow is updated mid-run', async () => {
    const held = stub.gate();
    const wf = await a.createWorkflow([httpStep('wait', held.url), returnStep('old_answer', { version: 'old' })]);
    const id = await runAsync(wf.id);
    await held.arrived;
    await updateWorkflow(wf.id, wf.name, [httpStep('wait', held.url), returnStep('new_answer', { version: 'new' })]);
    held.open();
    const ended = await a.awaitEnd(id);
    expect(ended).toMatchObject({ status: 'completed', workflowVersion: 1 });
    expect(stepIds(ended)).toEqual(['wait', 'old_answer']);
    expect(ended.steps![1].output.body).toEqual({ version: 'old' });
  });
});

describe('permissions', () => {
  let wf: { id: string };
  let done: Execution;
  beforeAll(async () => {
    wf = await a.createWorkflow([returnStep('answer', {})]);
    done = await a.runAndWait(wf.id);
  });

  // workflows:view reads executions; workflows:admin runs, tests, cancels and reruns (src/auth/roles.ts).
  const readers: Role[] = ['viewer', 'analyst'];
  const writers: Role[] = ['owner', 'admin', 'developer'];

  test.each([...readers, ...writers])('%s can list and read executions', async (role) => {
    expect((await as(h.app, org.tokens[role]).get(`/executions?workflowId=${wf.id}`)).status).toBe(200);
    expect((await as(h.app, org.tokens[role]).get(`/executions/${done.id}`)).status).toBe(200);
  });

  test.each(readers)('%s gets 403 on run, test, cancel and rerun', async (role) => {
    const token = org.tokens[role];
    expectError(await as(h.app, token).post(`/workflows/${wf.id}/runs`).send({}), 403);
    expectError(await as(h.app, token).post(`/workflows/${wf.id}/test`).send({}), 403);
    expectError(await as(h.app, token).post(`/executions/${done.id}/cancel`), 403);
    expectError(await as(h.app, token).post(`/executions/${done.id}/rerun`).send({}), 403);
  });

  test.each(writers)('%s can run, test and rerun', async (role) => {
    const token = org.tokens[role];
    expect((await as(h.app, token).post(`/workflows/${wf.id}/runs`).send({})).status).toBe(202);
    expect((await as(h.app, token).post(`/workflows/${wf.id}/test`).send({})).status).toBe(200);
    expect((await as(h.app, token).post(`/executions/${done.id}/rerun`).send({})).status).toBe(202);
    // Permitted to cancel: the completed run answers 409, not 403.
    expectError(await as(h.app, token).post(`/executions/${done.id}/cancel`), 409, 'not_running');
  });
});
