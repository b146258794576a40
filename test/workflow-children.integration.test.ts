import { as, createConnection, expectError, quietTemporalRuntime, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { historyText, httpStep, returnStep, startWorkflowHarness, stepOf, type Execution, type Step, type WorkflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';

/**
 * Runs started by runs, end to end on the real Temporal server and
 * database: `core.workflow` steps (awaited and fire and forget), their links
 * and the nesting bound, the save-time checks of the workflows a definition
 * names, and error workflows started when a run fails or is cancelled.
 */

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

const callStep = (stepId: string, workflow: string, input?: unknown, wait?: boolean): Step => ({
  stepId,
  stepType: 'core.workflow',
  input: { workflow, ...(input !== undefined ? { input } : {}), ...(wait !== undefined ? { wait } : {}) },
});
const setStep = (stepId: string, values: Record<string, unknown>): Step => ({ stepId, stepType: 'core.set', input: { values } });

/** POST /workflows/:id/runs without waiting: the execution id. */
async function runAsync(workflowId: string, input: Record<string, unknown> = {}): Promise<string> {
  const res = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/runs`).send({ input });
  expect(res.status).toBe(202);
  return res.body.executionId;
}

/** Waits until Temporal has closed the run (result or failure alike). */
async function closed(executionId: string): Promise<void> {
  await h.services.temporal.client.workflow
    .getHandle(executionId)
    .result()
    .catch(() => undefined);
}

/** The runs `executionId` started (GET /executions?parentExecutionId=), once there are `count` of them. */
const childrenOf = (executionId: string, count = 1) =>
  eventually(
    async () => (await a.listExecutions({ parentExecutionId: executionId })).data,
    (runs) => runs.length >= count,
  );

const save = (body: Record<string, unknown>) => as(h.app, org.ownerToken).post('/workflows').send(body);

describe('core.workflow', () => {
  test("an awaited child: its input rendered from the parent's steps, its answer the step's output, both runs linked", async () => {
    const child = await a.createWorkflow([
      setStep('greet', { text: 'hello {{ initial.name }}' }),
      returnStep('done', { greeting: '{{ greet.text }}', n: '{{ initial.n }}' }),
    ]);
    const parent = await a.createWorkflow([
      setStep('who', { name: '{{ initial.name }}', n: 7 }),
      callStep('sub', child.name, { name: '{{ who.name }}', n: '{{ who.n }}' }),
      callStep('again', child.name, '{{ who }}'),
      callStep('quiet', child.name, { note: 'zebra-quiet-{{ who.n | times: 6 }}' }),
      returnStep('out', { said: '{{ sub.answer.greeting }}' }),
    ]);
    const execution = await a.runAndWait(parent.id, { name: 'ada' });
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'sub').output).toEqual({ executionId: expect.any(String), answer: { greeting: 'hello ada', n: 7 } });
    expect(stepOf(execution, 'sub').input).toEqual({ workflow: child.name, input: { name: 'ada', n: 7 }, wait: true });
    // A lone template yields the object itself, types kept.
    expect(stepOf(execution, 'again').output.answer).toEqual({ greeting: 'hello ada', n: 7 });
    expect(stepOf(execution, 'out').output.body).toEqual({ said: 'hello ada' });

    const childRun = await a.readExecution(stepOf(execution, 'sub').output.executionId);
    // The child's input is read from its execution record: it is not in the child's history (its steps never output it).
    const unused = await a.readExecution(stepOf(execution, 'quiet').output.executionId);
    expect(unused.input).toEqual({ note: 'zebra-quiet-42' });
    expect(await historyText(h.services.temporal.client, unused.id)).not.toContain('zebra-quiet-42');
    expect(childRun).toMatchObject({
      workflowId: child.id,
      mode: 'workflow',
      status: 'completed',
      input: { name: 'ada', n: 7 },
      parentExecutionId: execution.id,
      parentStepId: 'sub',
    });
    const again = await a.readExecution(stepOf(execution, 'again').output.executionId);
    expect(again.input).toEqual({ name: 'ada', n: 7 });
    expect(execution.parentExecutionId).toBeNull();
    expect(execution.errorExecutionId).toBeNull();

    const children = await a.listExecutions({ parentExecutionId: execution.id });
    expect(children.data.map((c) => c.id).sort()).toEqual([childRun.id, again.id, unused.id].sort());
    expect(children.data.every((c) => c.mode === 'workflow' && c.parentExecutionId === execution.id)).toBe(true);
    expect((await a.listExecutions({ mode: 'workflow', workflowId: child.id })).total).toBe(3);

    // Temporal shows the child as a child of its parent, summarized as every run.
    const described = await h.services.temporal.client.workflow.getHandle(childRun.id).describe();
    expect(described.parentExecution?.workflowId).toBe(execution.id);
    expect(await described.staticSummary()).toBe(`${child.name} v1 (workflow, org ${org.organizationId})`);
  });

  test('fire and forget: the step answers the child execution id at once and the child outlives its parent', async () => {
    const held = stub.gate();
    const child = await a.createWorkflow([httpStep('slow', { url: held.url }), returnStep('done', { ok: true })]);
    const parent = await a.createWorkflow([callStep('sub', child.name, { x: 1 }, false), returnStep('out', { started: '{{ sub.executionId }}' })]);
    const execution = await a.runAndWait(parent.id);
    expect(execution.status).toBe('completed');
    const childId = stepOf(execution, 'sub').output.executionId;
    expect(stepOf(execution, 'sub').output).toEqual({ executionId: childId });
    expect(stepOf(execution, 'out').output.body).toEqual({ started: childId });
    await held.arrived;
    await closed(execution.id);
    expect((await a.readExecution(childId)).status).toBe('running');
    held.open();
    expect(await a.awaitEnd(childId)).toMatchObject({ status: 'completed', mode: 'workflow', parentExecutionId: execution.id, input: { x: 1 } });
  });

  test("a failed child fails the step with the child's error", async () => {
    const child = await a.createWorkflow([httpStep('boom', { url: `${stub.url}/fail` })]);
    const parent = await a.createWorkflow([callStep('sub', child.name), returnStep('never', {})]);
    const execution = await a.runAndWait(parent.id);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'sub', code: 'ChildRunFailed', message: expect.stringContaining('500') });
    expect(execution.error?.message).toContain(`the run of workflow "${child.name}"`);
    expect(stepOf(execution, 'sub').status).toBe('failed');
    expect(execution.steps.map((s) => s.stepId)).not.toContain('never');
    const [childRun] = await childrenOf(execution.id);
    expect(childRun).toMatchObject({ status: 'failed', mode: 'workflow' });
  });

  test('an input that does not yield an object fails the step before any child starts', async () => {
    const child = await a.createWorkflow([returnStep('done', {})]);
    const parent = await a.createWorkflow([setStep('v', { list: [1, 2] }), callStep('sub', child.name, '{{ v.list }}')]);
    const execution = await a.runAndWait(parent.id);
    expect(execution.status).toBe('failed');
    expect(execution.error?.message).toContain('input must yield an object');
    expect(stepOf(execution, 'sub')).toMatchObject({ status: 'failed', input: { workflow: child.name, input: [1, 2], wait: true } });
    expect((await a.listExecutions({ parentExecutionId: execution.id })).total).toBe(0);
  });

  test('runs nest at most 3 deep: the step that would start a fourth level fails, naming the bound', async () => {
    // e <- d <- c <- b <- a: a runs at depth 0, b 1, c 2, d 3; d's step would start e at depth 4.
    const e = await a.createWorkflow([returnStep('done', { deepest: true })]);
    const d = await a.createWorkflow([callStep('toE', e.name)]);
    const c = await a.createWorkflow([callStep('toD', d.name)]);
    const b = await a.createWorkflow([callStep('toC', c.name)]);
    const top = await a.createWorkflow([callStep('toB', b.name)]);
    const execution = await a.runAndWait(top.id);
    expect(execution.status).toBe('failed');
    expect(execution.error?.message).toContain('nest at most 3 deep; this run is already 3 deep');
    expect(await a.executionCount(e.id)).toBe(0);
    const dRun = (await a.listExecutions({ workflowId: d.id })).data[0];
    expect(dRun).toMatchObject({ status: 'failed', mode: 'workflow' });
    expect(stepOf(await a.readExecution(dRun.id), 'toE')).toMatchObject({ status: 'failed', error: expect.stringContaining('nest at most 3 deep') });
  });
});

describe('saving a definition that names workflows', () => {
  test('a core.workflow step naming no workflow of the organization is 400 invalid_definition with the path of the field', async () => {
    const res = await save({ name: uniqueName('wf'), steps: [setStep('a', { x: 1 }), callStep('sub', uniqueName('missing'))] });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([{ path: 'steps.1.input.workflow', message: expect.stringContaining('not a workflow of this organization') }]);
  });

  test("another organization's workflow is not one of this organization's", async () => {
    const other = await createTestOrg(h.services);
    const theirs = await as(h.app, other.ownerToken)
      .post('/workflows')
      .send({ name: uniqueName('theirs'), steps: [returnStep('done', {})] });
    expect(theirs.status).toBe(201);
    const res = await save({ name: uniqueName('wf'), steps: [callStep('sub', theirs.body.name)] });
    expectError(res, 400, 'invalid_definition');
  });

  test('a cycle of core.workflow steps is refused naming the chain, on create and on update; agent tools are not followed', async () => {
    const self = uniqueName('self');
    const selfRes = await save({ name: self, steps: [callStep('again', self)] });
    expectError(selfRes, 400, 'invalid_definition');
    expect(selfRes.body.error.details).toEqual([{ path: 'steps.0.input.workflow', message: `forms a cycle of core.workflow steps: ${self} → ${self}` }]);

    const x = await a.createWorkflow([returnStep('done', {})]);
    const y = await a.createWorkflow([callStep('toX', x.name)]);
    const res = await as(h.app, org.ownerToken)
      .put(`/workflows/${x.id}`)
      .send({ name: x.name, steps: [setStep('first', { a: 1 }), callStep('toY', y.name)] });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([
      { path: 'steps.1.input.workflow', message: `forms a cycle of core.workflow steps: ${x.name} → ${y.name} → ${x.name}` },
    ]);
    // Nothing was stored.
    expect((await as(h.app, org.ownerToken).get(`/workflows/${x.id}`)).body.version).toBe(1);

    // An agent's workflow tool naming the workflow itself is no cycle at save time.
    const looping = uniqueName('agentic');
    const agent = {
      stepId: 'helper',
      stepType: 'ai.agent',
      input: {
        provider: { provider: 'openai', connection: 'any', model: 'gpt-4o-mini' },
        user_prompt: 'Go',
        tools: [{ type: 'workflow', name: 'again', description: 'Runs this workflow again', workflow: looping }],
      },
    };
    expect((await save({ name: looping, steps: [agent] })).status).toBe(201);
  });

  test('errorWorkflow must name another workflow of the organization', async () => {
    const name = uniqueName('wf');
    const missing = await save({ name, steps: [returnStep('done', {})], errorWorkflow: uniqueName('missing') });
    expectError(missing, 400, 'invalid_definition');
    expect(missing.body.error.details).toEqual([{ path: 'errorWorkflow', message: expect.stringContaining('not a workflow of this organization') }]);
    const itself = await save({ name, steps: [returnStep('done', {})], errorWorkflow: name });
    expect(itself.body.error.details).toEqual([{ path: 'errorWorkflow', message: expect.stringContaining('another workflow') }]);
  });
});

describe('error workflows', () => {
  const SECRET = 'err-wf-secret-7c1d9e4f2a';
  const CONNECTION_SECRET = 'err-wf-conn-key-51b8e0d3c6';

  /** An error workflow that records what it received. */
  const handler = () => a.createWorkflow([setStep('seen', { failed: '{{ initial.execution.id }}' })]);

  /** The error run of `executionId`, once it ended. */
  async function errorRunOf(executionId: string): Promise<Execution> {
    const [run] = await childrenOf(executionId);
    expect(run).toMatchObject({ mode: 'error', parentExecutionId: executionId, parentStepId: null });
    return a.awaitEnd(run.id);
  }

  test("a failed run starts its error workflow with a report of the run; its environment's and connections' secrets are masked in it", async () => {
    const environment = await a.createEnvironment({ TOKEN: { value: SECRET, secret: true }, REGION: 'eu-west' });
    const connection = uniqueName('crm');
    await createConnection(h.app, org, { name: connection, type: 'api-key', config: { apiKey: CONNECTION_SECRET } });
    const onError = await handler();
    const wf = await a.createWorkflow(
      [setStep('prep', { region: '{{ $env.REGION }}' }), httpStep('call', { url: `${stub.url}/fail`, headers: { 'X-Token': '{{ $env.TOKEN }}' }, connection })],
      {
        environment,
        errorWorkflow: onError.name,
      },
    );
    const failed = await a.runAndWait(wf.id, { token: SECRET, key: `key ${CONNECTION_SECRET}`, order: 42 });
    expect(failed.status).toBe('failed');

    const errorRun = await errorRunOf(failed.id);
    expect(errorRun).toMatchObject({ workflowId: onError.id, status: 'completed' });
    expect(errorRun.input).toEqual({
      execution: { id: failed.id, status: 'failed', startedAt: failed.startedAt, finishedAt: expect.any(String), mode: 'api' },
      workflow: { id: wf.id, name: wf.name, version: 1 },
      failedStep: { stepId: 'call', stepType: 'core.http' },
      error: { message: failed.error?.message },
      input: { token: '[secret]', key: 'key [secret]', order: 42 },
    });
    expect(stepOf(errorRun, 'seen').output).toEqual({ failed: failed.id });
    expect(JSON.stringify(errorRun)).not.toContain(SECRET);
    expect(JSON.stringify(errorRun)).not.toContain(CONNECTION_SECRET);
    // The failed run names its error run, in its record and through the filter.
    expect((await a.readExecution(failed.id)).errorExecutionId).toBe(errorRun.id);
    expect((await a.listExecutions({ parentExecutionId: failed.id, mode: 'error' })).data.map((e) => e.id)).toEqual([errorRun.id]);
    expect(await historyText(h.services.temporal.client, errorRun.id)).not.toContain(SECRET);
  });

  test('a cancelled run starts its error workflow too: no failed step, no error', async () => {
    const held = stub.gate();
    const onError = await handler();
    const wf = await a.createWorkflow([httpStep('wait', { url: held.url }), returnStep('after', {})], { errorWorkflow: onError.name });
    const id = await runAsync(wf.id, { n: 1 });
    await held.arrived;
    expect((await as(h.app, org.ownerToken).post(`/executions/${id}/cancel`)).status).toBe(200);
    expect((await a.awaitEnd(id)).status).toBe('cancelled');
    held.open();
    const errorRun = await errorRunOf(id);
    expect(errorRun.status).toBe('completed');
    expect(errorRun.input).toMatchObject({ execution: { id, status: 'cancelled' }, failedStep: null, error: null, input: { n: 1 } });
  });

  test('a completed run starts nothing', async () => {
    const onError = await handler();
    const wf = await a.createWorkflow([returnStep('done', {})], { errorWorkflow: onError.name });
    const done = await a.runAndWait(wf.id);
    await closed(done.id);
    expect((await a.listExecutions({ parentExecutionId: done.id })).total).toBe(0);
    expect(await a.executionCount(onError.id)).toBe(0);
  });

  test('never recursive: an error run that fails starts no error workflow, even when its own definition names one', async () => {
    const last = await handler();
    const failing = await a.createWorkflow([httpStep('boom', { url: `${stub.url}/fail` })], { errorWorkflow: last.name });
    const wf = await a.createWorkflow([httpStep('boom', { url: `${stub.url}/fail` })], { errorWorkflow: failing.name });
    const failed = await a.runAndWait(wf.id);
    expect(failed.status).toBe('failed');
    const errorRun = await errorRunOf(failed.id);
    expect(errorRun.status).toBe('failed');
    await closed(errorRun.id);
    expect((await a.listExecutions({ parentExecutionId: errorRun.id })).total).toBe(0);
    expect(await a.executionCount(last.id)).toBe(0);
  });
});
