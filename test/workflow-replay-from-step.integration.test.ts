import { as, expectError, quietTemporalRuntime, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, stepOf, historyText, type Execution, type Step, type WorkflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg } from './factories';

/**
 * Replays from a chosen step (POST /executions/{id}/replay) and in bulk
 * (POST /executions/replay, GET /executions/replays/{bulkId}), on the real
 * database and Temporal: what is not run again, what reaches later steps,
 * how each step record relates to the original's, and the refusals.
 */

const setStep = (stepId: string, values: Record<string, unknown>): Step => ({ stepId, stepType: 'core.set', input: { values } });

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
/** Whether `/target` answers 200 (fixed) or 500 (broken); other paths echo. */
let targetFixed = false;

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub();
  stub.on('/target', (req, res) => reply(targetFixed ? 200 : 500, { fixed: targetFixed, got: req.body })(req, res));
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

/** POST /executions/{id}/replay as the owner (or `token`). */
const replay = (id: string, body: Record<string, unknown>, token = org.ownerToken) => as(h.app, token).post(`/executions/${id}/replay`).send(body);

/** Replays and waits for the replay to end: its execution with its steps. */
async function replayed(id: string, body: Record<string, unknown>): Promise<Execution> {
  const res = await replay(id, body);
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'running', replayOf: id });
  return a.awaitEnd(res.body.executionId);
}

/** fetch (an HTTP call) → shape (core.set) → post (the call that fails while /target is broken) → answer. */
const pipeline = (source: string): Step[] => [
  httpStep('fetch', { url: `${stub.url}${source}` }),
  setStep('shape', { first: '{{ fetch.body.url }}', n: '{{ initial.n }}' }),
  httpStep('post', { url: `${stub.url}/target`, method: 'POST', body: { shape: '{{ shape }}' } }),
  returnStep('answer', { ok: '{{ post.body.fixed }}' }),
];

describe('replaying one run from its failed step', () => {
  let original: Execution;
  let workflowId: string;
  const source = '/source-one';

  beforeAll(async () => {
    targetFixed = false;
    workflowId = (await a.createWorkflow(pipeline(source))).id;
    original = await a.runAndWait(workflowId, { n: 7 });
    expect(original.status).toBe('failed');
    expect(original.error?.stepId).toBe('post');
    targetFixed = true;
  });

  test('the steps before it are not run again (nothing re-sent): their outputs are reused and marked; the failed step and the rest run', async () => {
    const callsBefore = stub.calls(source).length;
    const execution = await replayed(original.id, { fromStepId: 'post' });
    expect(execution).toMatchObject({ status: 'completed', mode: 'replay', replayOf: original.id, replayFromStepId: 'post', input: { n: 7 } });
    expect(stub.calls(source)).toHaveLength(callsBefore);
    // The later step read the reused output by reference, exactly as the original recorded it.
    expect(JSON.parse(stub.calls('/target').at(-1)!.body)).toEqual({ shape: { first: `${source}`, n: 7 } });
    expect(stepOf(execution, 'fetch')).toMatchObject({ replay: { reused: true, changed: false }, output: stepOf(original, 'fetch').output });
    expect(stepOf(execution, 'shape')).toMatchObject({ replay: { reused: true, changed: false }, output: { first: source, n: 7 } });
    expect(stepOf(execution, 'post')).toMatchObject({ status: 'completed', replay: { reused: false, changed: true } });
    // The original never reached it: nothing to compare with.
    expect(stepOf(execution, 'answer')).toMatchObject({ output: { body: { ok: true } }, replay: { reused: false, changed: null } });
    expect(execution.steps.map((s) => s.stepId)).toEqual(['fetch', 'shape', 'post', 'answer']);
    // The original is as it was, and its steps carry no replay marks.
    const again = await a.readExecution(original.id);
    expect(again.status).toBe('failed');
    expect(again.steps[0]).not.toHaveProperty('replay');
  });

  test('a replaced output reaches the later steps, and is marked changed', async () => {
    const execution = await replayed(original.id, { fromStepId: 'post', outputs: { shape: { first: 'edited', n: 8 } } });
    expect(execution.status).toBe('completed');
    expect(JSON.parse(stub.calls('/target').at(-1)!.body)).toEqual({ shape: { first: 'edited', n: 8 } });
    expect(stepOf(execution, 'shape')).toMatchObject({ output: { first: 'edited', n: 8 }, replay: { reused: true, changed: true } });
    expect(stepOf(execution, 'fetch').replay).toEqual({ reused: true, changed: false });
  });

  test('replaying from an earlier step runs it again (the HTTP call is sent again)', async () => {
    const callsBefore = stub.calls(source).length;
    const execution = await replayed(original.id, { fromStepId: 'shape' });
    expect(execution.status).toBe('completed');
    expect(stub.calls(source)).toHaveLength(callsBefore);
    // shape ran again on the same input: the same output, unchanged.
    expect(stepOf(execution, 'shape').replay).toEqual({ reused: false, changed: false });
    const fromStart = await replayed(original.id, { fromStepId: 'fetch' });
    expect(fromStart.status).toBe('completed');
    expect(stub.calls(source)).toHaveLength(callsBefore + 1);
  });

  test('refusals: a step the run did not record, an output for a step at or after fromStepId, a bad body (400 naming the field)', async () => {
    const unknown = await replay(original.id, { fromStepId: 'nope' });
    expectError(unknown, 400, 'validation_failed');
    expect(unknown.body.error.details).toEqual([{ path: 'fromStepId', message: expect.stringContaining('"nope"') }]);
    const notReached = await replay(original.id, { fromStepId: 'answer' });
    expectError(notReached, 400);
    expect(notReached.body.error.details[0].path).toBe('fromStepId');
    const late = await replay(original.id, { fromStepId: 'shape', outputs: { post: {} } });
    expectError(late, 400);
    expect(late.body.error.details).toEqual([{ path: 'outputs.post', message: expect.any(String) }]);
    const itself = await replay(original.id, { fromStepId: 'shape', outputs: { shape: {} } });
    expect(itself.body.error.details[0].path).toBe('outputs.shape');
    expectError(await replay(original.id, {}), 400);
    expectError(await replay(original.id, { fromStepId: 'post', version: 'latest' }), 400);
    expectError(await replay(original.id, { fromStepId: 'post', extra: 1 }), 400);
  });

  test("another organization's execution is 404, and a replay needs workflows:admin", async () => {
    const stranger = await createTestOrg(h.services);
    expectError(await replay(original.id, { fromStepId: 'post' }, stranger.ownerToken), 404, 'not_found');
    expectError(await replay(original.id, { fromStepId: 'post' }, org.tokens.viewer), 403);
  });

  test('the execution list filters replays by mode', async () => {
    const list = await a.listExecutions({ workflowId, mode: 'replay' });
    expect(list.total).toBeGreaterThan(0);
    expect(list.data.every((e) => e.mode === 'replay' && e.replayOf === original.id)).toBe(true);
  });
});

describe('versions', () => {
  let original: Execution;
  let workflowId: string;

  beforeAll(async () => {
    const steps = [setStep('a', { n: '{{ initial.n }}' }), setStep('b', { label: 'v1' }), setStep('c', { from: '{{ b.label }}' })];
    const wf = await a.createWorkflow(steps);
    workflowId = wf.id;
    original = await a.runAndWait(wf.id, { n: 1 });
    expect(original).toMatchObject({ status: 'completed', workflowVersion: 1 });
    const put = await as(h.app, org.ownerToken)
      .put(`/workflows/${wf.id}`)
      .send({ name: wf.name, steps: [steps[0], setStep('b', { label: 'v2' }), setStep('d', { from: '{{ b.label }}' })] });
    expect(put.status).toBe(200);
  });

  test('by default the version the original ran: the same outputs, unchanged', async () => {
    const execution = await replayed(original.id, { fromStepId: 'b' });
    expect(execution).toMatchObject({ status: 'completed', workflowVersion: 1 });
    expect(execution.steps.map((s) => [s.stepId, s.replay])).toEqual([
      ['a', { reused: true, changed: false }],
      ['b', { reused: false, changed: false }],
      ['c', { reused: false, changed: false }],
    ]);
  });

  test("`current` runs the workflow's current version: a changed step's output is marked changed, a new step has nothing to compare", async () => {
    const execution = await replayed(original.id, { fromStepId: 'b', version: 'current' });
    expect(execution).toMatchObject({ status: 'completed', workflowVersion: 2 });
    expect(execution.steps.map((s) => [s.stepId, s.replay])).toEqual([
      ['a', { reused: true, changed: false }],
      ['b', { reused: false, changed: true }],
      ['d', { reused: false, changed: null }],
    ]);
    expect(stepOf(execution, 'd').output).toEqual({ from: 'v2' });
  });

  test('with `current`, fromStepId must be a step of the current version (400 naming it)', async () => {
    const res = await replay(original.id, { fromStepId: 'c', version: 'current' });
    expectError(res, 400);
    expect(res.body.error.details).toEqual([{ path: 'fromStepId', message: expect.stringContaining('Version 2') }]);
    expect(workflowId).toBeTruthy();
  });
});

describe('branches, waits and secrets', () => {
  test('a core.if before fromStepId keeps the branch the original took without running it; fromStepId may be inside that branch', async () => {
    targetFixed = false;
    const wf = await a.createWorkflow([
      {
        stepId: 'check',
        stepType: 'core.if',
        input: {
          condition: 'initial.amount > 100',
          then: [httpStep('large', { url: `${stub.url}/large` })],
          else: [httpStep('small', { url: `${stub.url}/small` })],
        },
      },
      httpStep('post', { url: `${stub.url}/target` }),
    ]);
    const original = await a.runAndWait(wf.id, { amount: 500 });
    expect(original.status).toBe('failed');
    targetFixed = true;
    const [large, small] = [stub.calls('/large').length, stub.calls('/small').length];
    const execution = await replayed(original.id, { fromStepId: 'post' });
    expect(execution.status).toBe('completed');
    expect([stub.calls('/large').length, stub.calls('/small').length]).toEqual([large, small]);
    expect(execution.steps.map((s) => [s.stepId, s.replay?.reused])).toEqual([
      ['check', true],
      ['large', true],
      ['post', false],
    ]);
    // From the step inside the branch: the branch is kept, that step runs again.
    const inBranch = await replayed(original.id, { fromStepId: 'large' });
    expect(inBranch.status).toBe('completed');
    expect([stub.calls('/large').length, stub.calls('/small').length]).toEqual([large + 1, small]);
    // A replaced core.if output chooses the other branch.
    const flipped = await replayed(original.id, { fromStepId: 'post', outputs: { check: { result: false, branch: 'else' } } });
    expect(flipped.steps.map((s) => s.stepId)).toEqual(['check', 'small', 'post']);
    expect(stub.calls('/small').length).toBe(small + 1);
  });

  test('a core.wait before fromStepId is not waited again, and a run that has not ended is refused (409)', async () => {
    const wf = await a.createWorkflow([
      { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'go' }, timeoutSeconds: 600 } },
      setStep('after', { approved: '{{ approval.approved }}' }),
    ]);
    const started = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {} });
    const id: string = started.body.executionId;
    await eventually(
      () => a.readExecution(id),
      (e) => e.status === 'waiting',
    );
    expectError(await replay(id, { fromStepId: 'approval' }), 409, 'not_ended');
    const sent = await as(h.app, org.ownerToken).post(`/executions/${id}/events/go`).send({ approved: true });
    expect(sent.status).toBe(202);
    await eventually(
      () => a.readExecution(id),
      (e) => e.status === 'completed',
    );
    const execution = await replayed(id, { fromStepId: 'after', outputs: { approval: { approved: 'later' } } });
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'after').output).toEqual({ approved: 'later' });
  });

  test('a sealed output (built from a secret) is reused sealed: later steps read it exact, records and history show it masked', async () => {
    const secret = 'tok-replay-sealed-9876';
    const environment = await a.createEnvironment({ API_TOKEN: { value: secret, secret: true } });
    targetFixed = false;
    const wf = await a.createWorkflow(
      [
        setStep('vars', { auth: 'Bearer {{ $env.API_TOKEN }}' }),
        httpStep('post', { url: `${stub.url}/target`, headers: { Authorization: '{{ vars.auth }}' } }),
      ],
      { environment },
    );
    const original = await a.runAndWait(wf.id);
    expect(original.status).toBe('failed');
    targetFixed = true;
    const execution = await replayed(original.id, { fromStepId: 'post' });
    expect(execution.status).toBe('completed');
    expect(stub.calls('/target').at(-1)!.headers.authorization).toBe(`Bearer ${secret}`);
    expect(stepOf(execution, 'vars')).toMatchObject({ output: { auth: 'Bearer [secret]' }, replay: { reused: true, changed: false } });
    expect(stepOf(execution, 'post').input.headers.Authorization).toBe('Bearer [secret]');
    expect(JSON.stringify(execution)).not.toContain(secret);
    expect(await historyText(h.services.temporal.client, execution.id)).not.toContain(secret);
    const [row] = await h.services.db.query(`SELECT output::text AS output, sealed_output FROM execution_steps WHERE execution_id = $1 AND step_id = 'vars'`, [
      execution.id,
    ]);
    expect(row.sealed_output).toEqual(expect.any(String));
    expect(`${row.output}${row.sealed_output}`).not.toContain(secret);
  });
});

describe('bulk replay', () => {
  let workflowId: string;
  let originals: string[];
  const bulk = (body: Record<string, unknown>, token = org.ownerToken) => as(h.app, token).post('/executions/replay').send(body);

  beforeAll(async () => {
    targetFixed = false;
    workflowId = (await a.createWorkflow(pipeline('/source-bulk'))).id;
    originals = [];
    for (const n of [1, 2, 3]) originals.push((await a.runAndWait(workflowId, { n })).id);
    // A completed run of the same workflow: not failed by `post`, so not selected.
    targetFixed = true;
    await a.runAndWait(workflowId, { n: 4 });
  });

  const request = () => ({ filter: { workflowId, status: 'failed', failedStepId: 'post' }, fromStepId: 'post' });

  test('a dry run (the default) counts and names the runs that match, starting nothing', async () => {
    const res = await bulk(request());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dryRun: true, total: 3, executionIds: originals });
    expect((await a.listExecutions({ workflowId, mode: 'replay' })).total).toBe(0);
    const none = await bulk({ ...request(), filter: { workflowId, failedStepId: 'fetch' } });
    expect(none.body).toMatchObject({ total: 0, executionIds: [] });
  });

  test('refusals: no workflowId, another organization (404), a fromStepId the current version lacks', async () => {
    expectError(await bulk({ filter: {}, fromStepId: 'post' }), 400);
    const stranger = await createTestOrg(h.services);
    expectError(await bulk(request(), stranger.ownerToken), 404);
    const res = await bulk({ ...request(), fromStepId: 'gone', version: 'current' });
    expectError(res, 400);
    expect(res.body.error.details[0].path).toBe('fromStepId');
  });

  test('a bulk replays each selected run once, reports its progress, and the same request sent again is the same bulk', async () => {
    const res = await bulk({ ...request(), dryRun: false });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ bulkId: expect.any(String), total: 3, status: expect.any(String) });
    const { bulkId } = res.body;
    const progress = await eventually(
      async () => (await as(h.app, org.ownerToken).get(`/executions/replays/${bulkId}`)).body,
      (body) => body.status === 'completed',
    );
    expect(progress).toMatchObject({ bulkId, status: 'completed', total: 3, started: 3, failed: 0, fromStepId: 'post', version: 'original' });
    expect(progress.executions.map((e: { originalId: string }) => e.originalId)).toEqual(originals);
    for (const item of progress.executions) {
      const execution = await a.awaitEnd(item.executionId);
      expect(execution).toMatchObject({ status: 'completed', mode: 'replay', replayOf: item.originalId });
    }
    const again = await bulk({ ...request(), dryRun: false });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ bulkId, total: 3, status: 'completed' });
    const rows: Array<{ replayOf: string; n: number }> = await h.services.db.query(
      `SELECT replay_of AS "replayOf", count(*)::int AS n FROM executions WHERE replay_of = ANY($1) GROUP BY replay_of`,
      [originals],
    );
    expect(rows.map((r) => r.n)).toEqual([1, 1, 1]);
    // Another organization does not see it.
    const stranger = await createTestOrg(h.services);
    expectError(await as(h.app, stranger.ownerToken).get(`/executions/replays/${bulkId}`), 404, 'not_found');
    expectError(await as(h.app, org.ownerToken).get(`/executions/replays/not-a-bulk`), 404, 'not_found');
  });

  test('a filter matching more than 1,000 runs is refused (400 asking for a narrower one), dry run or not', async () => {
    const wf = await a.createWorkflow([setStep('only', { x: 1 })]);
    // 1,001 ended runs recorded directly: running them would take minutes.
    await h.services.db.query(
      `WITH runs AS (
         INSERT INTO executions (id, organization_id, workflow_id, workflow_name, workflow_version, mode, status, input, finished_at)
         SELECT 'bulk-bound-' || $2 || '-' || g, $1, $2::uuid, 'bound', 1, 'api', 'completed', '{}'::jsonb, now() FROM generate_series(1, 1001) g
         RETURNING id)
       INSERT INTO execution_steps (execution_id, step_id, step_type, seq, status, attempt, output, started_at, finished_at)
       SELECT id, 'only', 'core.set', 0, 'completed', 1, '{}'::jsonb, now(), now() FROM runs`,
      [org.organizationId, wf.id],
    );
    for (const dryRun of [true, false]) {
      const res = await bulk({ filter: { workflowId: wf.id }, fromStepId: 'only', dryRun });
      expectError(res, 400, 'too_many_runs');
      expect(res.body.error.details).toEqual([{ path: 'filter', message: expect.stringContaining('narrow the filter') }]);
    }
    const narrower = await bulk({ filter: { workflowId: wf.id, startedBefore: new Date(Date.now() + 60_000).toISOString() }, fromStepId: 'nope' });
    expect(narrower.body).toMatchObject({ total: 0 });
  });
});
