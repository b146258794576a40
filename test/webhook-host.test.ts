import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { as, createTestOrg, expectError, Harness, startHarness, TestOrg } from './harness';

/**
 * The webhook host end to end: `/w/@<org suid>/<trigger>` through the real
 * app, a real worker on the Temporal dev server, and PostgreSQL.
 */

let seq = 0;
/** A name unique in this file run, usable as a workflow, trigger, table or environment name. */
const uniqueName = (prefix: string) => `${prefix}-${Date.now().toString(36)}${(seq++).toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// A local HTTP stub that HTTP steps call. It records what it receives;
// `/gate/<name>` holds its answer until the test opens that gate, so a test
// can know a step is still in flight without relying on timing; `/status/<n>`
// answers with that status.
// ---------------------------------------------------------------------------

interface Received {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
}

interface Gate {
  /** The stub URL that holds its answer until `open()`. */
  url: string;
  /** Resolves once a request has reached the gate. */
  arrived: Promise<void>;
  open(): void;
}

const received: Received[] = [];
const gates = new Map<string, Gate & { reached(): void; opened: Promise<void> }>();
let stub: http.Server;
let stubUrl: string;
let stubHost: string;

/** A new gate at `/gate/<unique name>`. */
function gate(): Gate {
  const name = uniqueName('gate');
  let reached!: () => void;
  let open!: () => void;
  const arrived = new Promise<void>((r) => (reached = r));
  const opened = new Promise<void>((r) => (open = r));
  const g = { url: `${stubUrl}/gate/${name}`, arrived, open, reached, opened };
  gates.set(name, g);
  return g;
}

async function startStub() {
  stub = http.createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      received.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers });
      const [, kind, arg] = url.pathname.split('/');
      if (kind === 'gate') {
        const g = gates.get(arg);
        g?.reached();
        await g?.opened;
      }
      res.statusCode = kind === 'status' ? Number(arg) : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ path: url.pathname, ok: res.statusCode < 400 }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const port = (stub.address() as AddressInfo).port;
  stubHost = `127.0.0.1:${port}`;
  stubUrl = `http://${stubHost}`;
}

/** What the stub received on `path`, in order. */
const receivedOn = (path: string) => received.filter((r) => r.path === path);

// ---------------------------------------------------------------------------
// Small API helpers, each bound to a harness and an organization.
// ---------------------------------------------------------------------------

function api(h: Harness, org: TestOrg) {
  const owner = () => as(h.app, org.ownerToken);
  return {
    async createWorkflow(steps: unknown[], extra: Record<string, unknown> = {}) {
      const name = uniqueName('wf');
      const res = await owner().post('/workflows').send({ name, steps, ...extra });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, name };
    },
    async createTrigger(workflowId: string, body: { method?: string; authentication?: boolean } = {}) {
      const name = uniqueName('hook');
      const res = await owner().post(`/workflows/${workflowId}/triggers`).send({ name, method: 'POST', ...body });
      expect(res.status).toBe(201);
      return res.body as { id: string; name: string; secret?: string };
    },
    /** A workflow with one POST trigger; returns both names and the trigger's path. */
    async createHook(steps: unknown[], options: { authentication?: boolean; extra?: Record<string, unknown> } = {}) {
      const workflow = await this.createWorkflow(steps, options.extra);
      const trigger = await this.createTrigger(workflow.id, { authentication: options.authentication });
      return { workflow, trigger, path: `/w/@${org.organizationSuid}/${trigger.name}` };
    },
    async createEnvironment(variables: Record<string, string>) {
      const name = uniqueName('env');
      const res = await owner().post('/environments').send({ name, variables });
      expect(res.status).toBe(201);
      return name;
    },
    async executionCount(workflowId: string): Promise<number> {
      const res = await owner().get(`/executions?workflowId=${workflowId}`);
      expect(res.status).toBe(200);
      return res.body.total;
    },
    async readExecution(id: string) {
      const res = await owner().get(`/executions/${id}`);
      expect(res.status).toBe(200);
      return res.body as { status: string; error: { stepId?: string; message: string } | null; steps: Array<{ stepId: string; status: string; input: any; error: string | null }> };
    },
    /** Polls GET /executions/:id until it leaves `running`. */
    async awaitEnd(id: string, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const execution = await this.readExecution(id);
        if (execution.status !== 'running' || Date.now() > deadline) return execution;
        await sleep(100);
      }
    },
    readRecord(tableName: string, key: string) {
      return owner().get(`/data-stores/tables/${tableName}/records/${encodeURIComponent(key)}`);
    },
  };
}

const post = (h: Harness, path: string) => request(h.app).post(path);

const returnStep = (webhookResponse: Record<string, unknown>, stepId = 'answer') => ({ stepId, stepType: 'core.return', input: { webhookResponse } });
const httpStep = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.http', input: { timeoutMs: 30_000, ...input } });

// ---------------------------------------------------------------------------
// The default harness: stock webhook settings.
// ---------------------------------------------------------------------------

let h: Harness;
let org: TestOrg;
let a: ReturnType<typeof api>;

beforeAll(async () => {
  await startStub();
  h = await startHarness();
  org = await createTestOrg(h.services);
  a = api(h, org);
  await h.startWorker({ httpAllowList: [stubHost] });
});

afterAll(async () => {
  for (const g of gates.values()) g.open();
  await h?.close();
  await new Promise((r) => stub?.close(r));
});

describe('synchronous webhooks (with a return step)', () => {
  test('answer with the return step: status, templated body, an object from a single expression, custom headers and X-Execution-Id', async () => {
    const { path } = await a.createHook([
      returnStep({
        statusCode: 201,
        body: { greeting: 'hello {{ initial.name }}', order: '{{ initial.order }}', count: '{{ initial.order.items.size }}' },
        headers: { 'X-Custom': 'for-{{ initial.name }}', 'Cache-Control': 'no-store' },
      }),
    ]);

    const res = await post(h, path).send({ name: 'ada', order: { id: 7, items: ['a', 'b'] } });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ greeting: 'hello ada', order: { id: 7, items: ['a', 'b'] }, count: '2' });
    expect(res.headers['x-custom']).toBe('for-ada');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-execution-id']).toEqual(expect.any(String));
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    expect(execution).toMatchObject({ status: 'completed', input: { name: 'ada' }, mode: 'webhook' });
  });

  test('steps after the return go on in the background and the run completes', async () => {
    const table = uniqueName('bg');
    const { path } = await a.createHook([
      returnStep({ statusCode: 200, body: { accepted: '{{ initial.key }}' } }),
      { stepId: 'remember', stepType: 'data-store.set', input: { tableName: table, key: '{{ initial.key }}', value: { seenBy: '{{ answer.body.accepted }}' } } },
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
    const record = await a.readRecord(table, 'k1');
    expect(record.status).toBe(200);
    expect(record.body.value).toEqual({ seenBy: 'k1' });
  });

  // Product bug: the answer is held until the steps after the return finish (or the
  // workflow task heartbeat, about 8 s in). The gate below opens only once the caller
  // has its answer, and the held step gives up after 6 s, so with the bug the step
  // times out and the run fails; README 4.1 says the answer goes "as soon as it runs".
  test('the caller is answered as soon as the return step runs, while a later step is still in flight', async () => {
    const later = gate();
    const { path } = await a.createHook([
      returnStep({ statusCode: 200, body: { accepted: true } }),
      httpStep('later', { url: later.url, timeoutMs: 6_000 }),
    ]);

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
          then: [returnStep({ statusCode: 201, body: { big: true } }, 'bigAnswer')],
          else: [httpStep('note', { url: `${stubUrl}/small`, searchParams: { amount: '{{ initial.amount }}' } })],
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
    const first = gate();
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
  const answerOk = [returnStep({ statusCode: 200, body: { ok: true } })];

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
      [
        httpStep('probe', { url: `${stubUrl}/${tag}`, searchParams: { region: '{{ $env.REGION }}' } }),
        returnStep({ statusCode: 200, body: { var: '{{ $env.VAR }}' } }),
      ],
      { extra: { settings: { defaultEnvironment: defaultEnv } } },
    );
    return { ...hook, probePath: `/${tag}` };
  }

  test('without ?env the workflow runs with its default environment', async () => {
    const { path, probePath } = await envHook();

    const res = await post(h, path).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ var: 'one' });
    expect(receivedOn(probePath).map((r) => r.query.region)).toEqual(['region-blue']);
  });

  test('?env=<name> overrides the default environment', async () => {
    const { path, probePath } = await envHook();

    const res = await post(h, `${path}?env=${otherEnv}`).send({});

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ var: 'two' });
    expect(receivedOn(probePath).map((r) => r.query.region)).toEqual(['region-green']);
    const execution = await a.awaitEnd(res.headers['x-execution-id']);
    // The value is a secret: what the execution stores has it masked.
    expect(execution.steps[0].input.url).toContain('region=[secret]');
    expect(JSON.stringify(execution)).not.toContain('region-green');
  });

  test('an unknown ?env is 400 unknown_environment and starts nothing', async () => {
    const { path, workflow, probePath } = await envHook();

    expectError(await post(h, `${path}?env=no-such-env`).send({}), 400, 'unknown_environment');

    expect(await a.executionCount(workflow.id)).toBe(0);
    expect(receivedOn(probePath)).toEqual([]);
  });
});

describe('calls that are refused before any run starts', () => {
  let hook: Awaited<ReturnType<typeof a.createHook>>;

  beforeAll(async () => {
    hook = await a.createHook([returnStep({ statusCode: 200, body: { ok: true } })]);
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

  test('another organization\'s trigger is 404 under this organization\'s suid', async () => {
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
        httpStep('callCrm', { url: `${stubUrl}/status/400`, method: 'POST', headers: { 'X-Api-Key': '{{ $env.API_KEY }}' }, body: { key: '{{ $env.API_KEY }}' } }),
        returnStep({ statusCode: 200, body: { unreachable: true } }),
      ],
      { extra: { settings: { defaultEnvironment: env } } },
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
    expect(receivedOn('/status/400').some((r) => r.headers['x-api-key'] === SECRET)).toBe(true);

    const execution = await a.awaitEnd(res.body.error.executionId);
    expect(execution.status).toBe('failed');
    expect(execution.error).toMatchObject({ stepId: 'callCrm' });
    expect(JSON.stringify(execution)).not.toContain(SECRET);
    expect(execution.steps[0].input.headers['X-Api-Key']).toBe('[secret]');
  });

  test('a step using a connection that does not exist is 500 run_failed naming the step', async () => {
    const { path } = await a.createHook([
      httpStep('useCrm', { url: `${stubUrl}/never`, connection: 'no-such-connection' }),
      returnStep({ statusCode: 200, body: { unreachable: true } }),
    ]);

    const res = await post(h, path).send({});

    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: 'run_failed', stepId: 'useCrm', executionId: expect.any(String), message: expect.stringContaining('"useCrm"') });
    expect(res.body.error.message).toContain('no-such-connection');
    expect(receivedOn('/never')).toEqual([]);
  });
});

describe('Temporal visibility', () => {
  test('a webhook run is findable by OrganizationId, WorkflowName and TriggerName search attributes', async () => {
    const { path, workflow, trigger } = await a.createHook([returnStep({ statusCode: 200, body: { ok: true } })]);
    const res = await post(h, path).send({});
    expect(res.status).toBe(200);
    const executionId = res.headers['x-execution-id'];

    const query = `OrganizationId="${org.organizationId}" AND WorkflowName="${workflow.name}" AND TriggerName="${trigger.name}"`;
    let found: string[] = [];
    // Visibility is eventually consistent.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(250)) {
      found = [];
      for await (const run of h.services.temporal.client.workflow.list({ query })) found.push(run.workflowId);
      if (found.length > 0) break;
    }
    expect(found).toEqual([executionId]);
  });
});

// ---------------------------------------------------------------------------
// Harnesses with non-default webhook settings.
// ---------------------------------------------------------------------------

describe('with a 1 kb webhook body limit', () => {
  let small: Harness;
  let smallOrg: TestOrg;
  let sa: ReturnType<typeof api>;

  beforeAll(async () => {
    small = await startHarness({ configure: (c) => void (c.webhooks.bodyLimit = '1kb') });
    smallOrg = await createTestOrg(small.services);
    sa = api(small, smallOrg);
    await small.startWorker({ httpAllowList: [stubHost] });
  });
  afterAll(async () => {
    await small?.close();
  });

  test('a body over the limit is 413 and starts nothing; one under it runs', async () => {
    const { path, workflow } = await sa.createHook([returnStep({ statusCode: 200, body: { size: '{{ initial.pad.size }}' } })]);

    expectError(await post(small, path).send({ pad: 'x'.repeat(2048) }), 413);
    expect(await sa.executionCount(workflow.id)).toBe(0);

    const res = await post(small, path).send({ pad: 'x'.repeat(500) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ size: '500' });
  });
});

describe('with a 1.5 s synchronous wait', () => {
  let impatient: Harness;
  let ia: ReturnType<typeof api>;

  beforeAll(async () => {
    impatient = await startHarness({ configure: (c) => void (c.webhooks.syncTimeoutMs = 1500) });
    ia = api(impatient, await createTestOrg(impatient.services));
    await impatient.startWorker({ httpAllowList: [stubHost] });
  });
  afterAll(async () => {
    for (const g of gates.values()) g.open();
    await impatient?.close();
  });

  test('a return step not reached in time: 202 running with the execution id; the run later completes', async () => {
    const slow = gate();
    const { path } = await ia.createHook([
      httpStep('slow', { url: slow.url }),
      returnStep({ statusCode: 200, body: { late: true } }),
    ]);

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

