import request from 'supertest';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { LocalReplies } from '../src/executions/local-replies';
import { as, expectError, type Harness, startHarness } from './harness';
import { startHttpStub, sendJson, type HttpStub } from './stubs/http-stub';
import { historyText, httpStep as baseHttpStep, returnStep, startWorkflowHarness, workflowApi, type WorkflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';

/**
 * The webhook host end to end: `/w/@<org suid>/<trigger>` through the real
 * app, a real worker on the Temporal dev server, and PostgreSQL.
 */

// A local HTTP stub that HTTP steps call. It records what it receives; its gates
// hold an answer until the test opens them, so a test can know a step is still in
// flight without relying on timing; `/status/<n>` answers with that status.
let stub: HttpStub;

const post = (h: Harness, path: string) => request(h.app).post(path);

const httpStep = (stepId: string, input: Record<string, unknown>) => baseHttpStep(stepId, { timeoutMs: 30_000, ...input });

// ---------------------------------------------------------------------------
// The default harness: stock webhook settings.
// ---------------------------------------------------------------------------

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;

beforeAll(async () => {
  // Steps' answers are not what these tests look at: the path and whether the status is a success.
  stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { path: req.path, ok: true }) });
  ({ h, org, a } = await startWorkflowHarness(stub));
});

afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

function readRecord(tableName: string, key: string) {
  return as(h.app, org.ownerToken).get(`/data-stores/tables/${tableName}/records/${encodeURIComponent(key)}`);
}

describe('synchronous webhooks (with a return step)', () => {
  test('answer with the return step: status, templated body, an object from a single expression, custom headers and X-Execution-Id', async () => {
    const { path } = await a.createHook([
      returnStep('answer', { greeting: 'hello {{ initial.name }}', order: '{{ initial.order }}', count: '{{ initial.order.items.size }}' }, 201, {
        'X-Custom': 'for-{{ initial.name }}',
        'Cache-Control': 'no-store',
      }),
    ]);

    const res = await post(h, path).send({ name: 'ada', order: { id: 7, items: ['a', 'b'] } });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ greeting: 'hello ada', order: { id: 7, items: ['a', 'b'] }, count: 2 });
    expect(res.headers['x-custom']).toBe('for-ada');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-execution-id']).toEqual(expect.any(String));
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    expect(execution).toMatchObject({ status: 'completed', input: { name: 'ada' }, mode: 'webhook' });
  });

  test('steps after the return go on in the background and the run completes', async () => {
    const table = uniqueName('bg');
    const { path } = await a.createHook([
      returnStep('answer', { accepted: '{{ initial.key }}' }),
      {
        stepId: 'remember',
        stepType: 'data-store.set',
        input: { tableName: table, key: '{{ initial.key }}', value: { seenBy: '{{ answer.body.accepted }}' } },
      },
    ]);

    const res = await post(h, path).send({ key: 'k1' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 'k1' });
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s) => [s.stepId, s.status])).toEqual([
      ['answer', 'completed'],
      ['remember', 'completed'],
    ]);
    const record = await readRecord(table, 'k1');
    expect(record.status).toBe(200);
    expect(record.body.value).toEqual({ seenBy: 'k1' });
  });

  // Product bug: the answer is held until the steps after the return finish (or the
  // workflow task heartbeat, about 8 s in). The gate below opens only once the caller
  // has its answer, and the held step gives up after 6 s, so with the bug the step
  // times out and the run fails; README 4.1 says the answer goes "as soon as it runs".
  test('the caller is answered as soon as the return step runs, while a later step is still in flight', async () => {
    const later = stub.gate();
    const { path } = await a.createHook([returnStep('answer', { accepted: true }), httpStep('later', { url: later.url, timeoutMs: 6_000 })]);

    const res = await post(h, path).send({});
    later.open();

    expect(res.status).toBe(200);
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    expect(execution.steps.map((s) => [s.stepId, s.status])).toEqual([
      ['answer', 'completed'],
      ['later', 'completed'],
    ]);
    expect(execution.status).toBe('completed');
  });

  test('a run that ends on a branch without a return step answers 200 completed', async () => {
    const { path } = await a.createHook([
      {
        stepId: 'big',
        stepType: 'core.if',
        input: {
          condition: 'initial.amount > 100',
          then: [returnStep('bigAnswer', { big: true }, 201)],
          else: [httpStep('note', { url: `${stub.url}/small`, searchParams: { amount: '{{ initial.amount }}' } })],
        },
      },
    ]);

    const res = await post(h, path).send({ amount: 5 });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ executionId: expect.any(String), status: 'completed', message: expect.any(String) });
    expect(res.headers['x-execution-id']).toBe(res.body.executionId);
    const execution = await a.readExecution(res.body.executionId);
    expect(execution.steps.map((s) => s.stepId)).toEqual(['big', 'note']);
  });
});

describe('asynchronous webhooks (no return step)', () => {
  test('answer 202 with the execution id before the steps have run', async () => {
    const first = stub.gate();
    const { path, workflow } = await a.createHook([httpStep('first', { url: first.url })]);

    const res = await post(h, path).send({ hello: 'world' });

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ executionId: expect.any(String), status: 'running' });
    expect(res.headers['x-execution-id']).toBe(res.body.executionId);
    // The first step cannot have finished: the stub holds its answer until the gate opens.
    const during = await a.readExecution(res.body.executionId);
    expect(during.status).toBe('running');
    expect(during.steps).toEqual([]);
    expect(await a.executionCount(workflow.id)).toBe(1);

    await first.arrived;
    first.open();
    const execution = await a.awaitEnd(res.body.executionId);
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s) => s.stepId)).toEqual(['first']);
  });
});

describe('authentication', () => {
  const answerOk = [returnStep('answer', { ok: true })];

  test('a trigger with authentication on returns its secret once', async () => {
    const { trigger } = await a.createHook(answerOk, { authentication: true });
    expect(trigger.secret).toEqual(expect.any(String));
    expect(trigger.secret!.length).toBeGreaterThanOrEqual(16);
  });

  test('without the secret, with a wrong one or with another scheme: 401 and no execution', async () => {
    const { path, trigger, workflow } = await a.createHook(answerOk, { authentication: true });

    expectError(await post(h, path).send({}), 401, 'unauthorized');
    expectError(await post(h, path).set('Authorization', 'Bearer not-the-secret').send({}), 401, 'unauthorized');
    expectError(await post(h, path).set('Authorization', `Basic ${trigger.secret}`).send({}), 401, 'unauthorized');
    expectError(await post(h, path).set('Authorization', trigger.secret!).send({}), 401, 'unauthorized');

    expect(await a.executionCount(workflow.id)).toBe(0);
  });

  test('the correct Bearer secret runs the workflow', async () => {
    const { path, trigger, workflow } = await a.createHook(answerOk, { authentication: true });

    const res = await post(h, path).set('Authorization', `Bearer ${trigger.secret}`).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await a.executionCount(workflow.id)).toBe(1);
  });

  test('after rotating the secret the old one is 401 and the new one works', async () => {
    const { path, trigger, workflow } = await a.createHook(answerOk, { authentication: true });
    const rotated = await as(h.app, org.ownerToken).post(`/webhook-triggers/${trigger.id}/secret`).send();
    expect(rotated.status).toBe(201);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(trigger.secret);

    expectError(await post(h, path).set('Authorization', `Bearer ${trigger.secret}`).send({}), 401, 'unauthorized');
    expect(await a.executionCount(workflow.id)).toBe(0);

    const res = await post(h, path).set('Authorization', `Bearer ${newSecret}`).send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  test('with authentication off no Authorization header is needed', async () => {
    const { path, trigger } = await a.createHook(answerOk);
    expect(trigger.secret).toBeUndefined();

    const res = await post(h, path).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});

describe('environments', () => {
  // Values under 4 characters are not secrets worth masking, so they show in the return body;
  // the longer REGION is masked in outputs, so the stub tells which one the run used.
  let defaultEnv: string;
  let otherEnv: string;

  beforeAll(async () => {
    defaultEnv = await a.createEnvironment({ VAR: 'one', REGION: 'region-blue' });
    otherEnv = await a.createEnvironment({ VAR: 'two', REGION: 'region-green' });
  });

  async function envHook() {
    const tag = uniqueName('env-probe');
    const hook = await a.createHook(
      [httpStep('probe', { url: `${stub.url}/${tag}`, searchParams: { region: '{{ $env.REGION }}' } }), returnStep('answer', { var: '{{ $env.VAR }}' })],
      { environment: defaultEnv },
    );
    return { ...hook, probePath: `/${tag}` };
  }

  test('without ?env the workflow runs with its default environment', async () => {
    const { path, probePath } = await envHook();

    const res = await post(h, path).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ var: 'one' });
    expect(stub.calls(probePath).map((r) => r.query.region)).toEqual(['region-blue']);
  });

  test('?env=<name> overrides the default environment', async () => {
    const { path, probePath } = await envHook();

    const res = await post(h, `${path}?env=${otherEnv}`).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ var: 'two' });
    expect(stub.calls(probePath).map((r) => r.query.region)).toEqual(['region-green']);
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    // The value is a secret: what the execution stores has it masked.
    expect(execution.steps[0].input.url).toContain('region=[secret]');
    expect(JSON.stringify(execution)).not.toContain('region-green');
  });

  test('an unknown ?env is 400 unknown_environment and starts nothing', async () => {
    const { path, workflow, probePath } = await envHook();

    expectError(await post(h, `${path}?env=no-such-env`).send({}), 400, 'unknown_environment');

    expect(await a.executionCount(workflow.id)).toBe(0);
    expect(stub.calls(probePath)).toEqual([]);
  });
});

describe('calls that are refused before any run starts', () => {
  let hook: Awaited<ReturnType<typeof a.createHook>>;

  beforeAll(async () => {
    hook = await a.createHook([returnStep('answer', { ok: true })]);
  });
  afterEach(async () => {
    expect(await a.executionCount(hook.workflow.id)).toBe(0);
  });

  test('an unknown organization suid is 404', async () => {
    expectError(await post(h, `/w/@nosuchorg0000/${hook.trigger.name}`).send({}), 404, 'not_found');
  });

  test('an unknown trigger name is 404', async () => {
    expectError(await post(h, `/w/@${org.organizationSuid}/no-such-trigger`).send({}), 404, 'not_found');
  });

  test("another organization's trigger is 404 under this organization's suid", async () => {
    const other = await createTestOrg(h.services);
    expectError(await post(h, `/w/@${other.organizationSuid}/${hook.trigger.name}`).send({}), 404, 'not_found');
  });

  test('the wrong method is 405 with an Allow header', async () => {
    const res = await request(h.app).put(hook.path).send({});
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST');
    expectError(await request(h.app).get(hook.path), 405, 'method_not_allowed');
  });

  test('a body that is not JSON is 400 invalid_json', async () => {
    const res = await post(h, hook.path).set('Content-Type', 'application/json').send('{"name": ');
    expectError(res, 400, 'invalid_json');
  });

  test('a JSON array body is 400 invalid_body', async () => {
    expectError(await post(h, hook.path).send([1, 2, 3]), 400, 'invalid_body');
  });

  test('a JSON scalar body is 400 invalid_body', async () => {
    expectError(await post(h, hook.path).set('Content-Type', 'application/json').send('42'), 400, 'invalid_body');
  });

  test('a text/plain body is 415', async () => {
    expectError(await post(h, hook.path).set('Content-Type', 'text/plain').send('name=ada'), 415, 'unsupported_media_type');
  });
});

describe('failing runs', () => {
  const SECRET = 'sk-live-3f9a7c1e5b';

  test('a step answered with HTTP 400 is 500 run_failed naming the step, without the env secret from its headers', async () => {
    const env = await a.createEnvironment({ API_KEY: SECRET });
    const { path } = await a.createHook(
      [
        httpStep('callCrm', {
          url: `${stub.url}/status/400`,
          method: 'POST',
          headers: { 'X-Api-Key': '{{ $env.API_KEY }}' },
          body: { key: '{{ $env.API_KEY }}' },
        }),
        returnStep('answer', { unreachable: true }),
      ],
      { environment: env },
    );

    const res = await post(h, path).send({});

    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: { code: 'run_failed', stepId: 'callCrm', executionId: expect.any(String), message: expect.stringContaining('"callCrm"') },
    });
    expect(res.body.error.message).toContain('400');
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(res.headers['x-execution-id']).toBe(res.body.error.executionId);
    // The stub did get the secret: the step really used it.
    expect(stub.calls('/status/400').some((r) => r.headers['x-api-key'] === SECRET)).toBe(true);

    const execution = await a.awaitEnd(res.body.error.executionId);
    expect(execution.status).toBe('failed');
    expect(execution.error).toMatchObject({ stepId: 'callCrm' });
    expect(JSON.stringify(execution)).not.toContain(SECRET);
    expect(execution.steps[0].input.headers['X-Api-Key']).toBe('[secret]');
  });

  test('a step using a connection that does not exist is 500 run_failed naming the step', async () => {
    const { path } = await a.createHook([
      httpStep('useCrm', { url: `${stub.url}/never`, connection: 'no-such-connection' }),
      returnStep('answer', { unreachable: true }),
    ]);

    const res = await post(h, path).send({});

    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: 'run_failed', stepId: 'useCrm', executionId: expect.any(String), message: expect.stringContaining('"useCrm"') });
    expect(res.body.error.message).toContain('no-such-connection');
    expect(stub.calls('/never')).toEqual([]);
  });
});

describe('Temporal visibility', () => {
  test('a webhook run is findable by OrganizationId, WorkflowName and TriggerName search attributes', async () => {
    const { path, workflow, trigger } = await a.createHook([returnStep('answer', { ok: true })]);
    const res = await post(h, path).send({});
    expect(res.status).toBe(200);
    const executionId = res.headers['x-execution-id'];

    const query = `OrganizationId="${org.organizationId}" AND WorkflowName="${workflow.name}" AND TriggerName="${trigger.name}"`;
    // Visibility is eventually consistent.
    const found = await eventually(
      async () => {
        const ids: string[] = [];
        for await (const run of h.services.temporal.client.workflow.list({ query })) ids.push(run.workflowId);
        return ids;
      },
      (ids) => ids.length > 0,
      10_000,
    );
    expect(found).toEqual([executionId]);
  });
});

// ---------------------------------------------------------------------------
// Harnesses with non-default webhook settings.
// ---------------------------------------------------------------------------

describe('with a 1 kb webhook body limit', () => {
  let small: Harness;
  let sa: WorkflowApi;

  beforeAll(async () => {
    ({ h: small, a: sa } = await startWorkflowHarness(stub, { configure: (c) => void (c.webhooks.bodyLimit = '1kb') }));
  });
  afterAll(async () => {
    await small?.close();
  });

  test('a body over the limit is 413 and starts nothing; one under it runs', async () => {
    const { path, workflow } = await sa.createHook([returnStep('answer', { size: '{{ initial.pad.size }}' })]);

    expectError(await post(small, path).send({ pad: 'x'.repeat(2048) }), 413);
    expect(await sa.executionCount(workflow.id)).toBe(0);

    const res = await post(small, path).send({ pad: 'x'.repeat(500) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ size: 500 });
  });
});

describe('with a 1.5 s synchronous wait', () => {
  let impatient: Harness;
  let ia: WorkflowApi;

  beforeAll(async () => {
    ({ h: impatient, a: ia } = await startWorkflowHarness(stub, { configure: (c) => void (c.webhooks.syncTimeoutMs = 1500) }));
  });
  afterAll(async () => {
    stub.openGates();
    await impatient?.close();
  });

  test('a return step not reached in time: 202 running with the execution id; the run later completes', async () => {
    const slow = stub.gate();
    const { path } = await ia.createHook([httpStep('slow', { url: slow.url }), returnStep('answer', { late: true })]);

    // The stub holds the step's answer until after the caller has given up waiting.
    const res = await post(impatient, path).send({});

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ executionId: expect.any(String), status: 'running', message: expect.any(String) });
    expect(res.headers['x-execution-id']).toBe(res.body.executionId);
    await slow.arrived;
    expect((await ia.readExecution(res.body.executionId)).status).toBe('running');

    slow.open();
    const execution = await ia.awaitEnd(res.body.executionId);
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s) => s.stepId)).toEqual(['slow', 'answer']);
  });
});

describe('where a synchronous answer comes from', () => {
  /** A workflow answering its caller, one failing before its answer, and one ending without one. */
  const hooks = async (api: WorkflowApi) => ({
    answers: (await api.createHook([httpStep('fetch', { url: `${stub.url}/items` }), returnStep('answer', { got: '{{ fetch.body.path }}' }, 201)])).path,
    fails: (await api.createHook([httpStep('broken', { url: `${stub.url}/status/503` }), returnStep('answer', { unreachable: true })])).path,
    noAnswer: (await api.createHook([{ stepId: 'pick', stepType: 'core.if', input: { condition: 'false', then: [returnStep('never', {})] } }])).path,
    answersThenFails: (await api.createHook([returnStep('early', { early: true }), httpStep('after', { url: `${stub.url}/status/400` })])).path,
  });
  const expectSemantics = async (harness: Harness, paths: Awaited<ReturnType<typeof hooks>>) => {
    const answered = await post(harness, paths.answers).send({});
    expect([answered.status, answered.body]).toEqual([201, { got: '/items' }]);
    const failed = await post(harness, paths.fails).send({});
    expect(failed.status).toBe(500);
    expect(failed.body.error).toMatchObject({ code: 'run_failed', stepId: 'broken', message: expect.stringContaining('HTTP 503') });
    const ended = await post(harness, paths.noAnswer).send({});
    expect([ended.status, ended.body.status]).toEqual([200, 'completed']);
    // The run fails after its answer, maybe before the caller asked: the caller still gets the answer.
    const early = await post(harness, paths.answersThenFails).send({});
    expect([early.status, early.body]).toEqual([200, { early: true }]);
    return [answered, failed, ended].map((res) => String(res.headers['x-execution-id']));
  };
  const usedUpdate = async (harness: Harness, executionId: string) =>
    (await historyText(harness.services.temporal.client, executionId)).includes('workflowExecutionUpdateAcceptedEventAttributes');

  test('beside its worker (as npm start runs), the run starts eagerly there and the answer comes from it, not through an update', async () => {
    const ids = await expectSemantics(h, await hooks(a));
    for (const id of ids) expect(await usedUpdate(h, id)).toBe(false);
  });

  describe('with the worker in another process', () => {
    let apart: Harness;
    let aa: WorkflowApi;
    beforeAll(async () => {
      apart = await startHarness();
      const apartOrg = await createTestOrg(apart.services);
      await apart.startWorker({ httpAllowList: [stub.host] }, { local: false });
      aa = workflowApi(apart.app, apartOrg);
    });
    afterAll(async () => apart?.close());

    test('the same answers arrive through update-with-start', async () => {
      const ids = await expectSemantics(apart, await hooks(aa));
      expect(await usedUpdate(apart, ids[0])).toBe(true);
    });

    test('a local worker that cannot take the run (eager start refused) leaves the answer to Temporal, also for runs that close first', async () => {
      // A connection with no worker polling this task queue: Temporal cannot start eagerly, the run goes to the other process's worker.
      const connection = await NativeConnection.connect({ address: apart.services.config.temporal.address! });
      const replies = new LocalReplies();
      const detach = apart.services.runs.attachWorker({ client: new Client({ connection, namespace: apart.services.config.temporal.namespace }), replies });
      try {
        const paths = await hooks(aa);
        for (let i = 0; i < 3; i++) await expectSemantics(apart, paths);
        expect(replies.size).toBe(0);
      } finally {
        detach();
        await connection.close();
      }
    });
  });
});
