import { as, createConnection, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, stepOf, startWorkflowHarness, workflowApi, type Execution, type WorkflowApi } from './workflow-api';
import { createTestOrg, type TestOrg, uniqueName } from './factories';

/**
 * The template rules of interface.md 2.1 and 8, end to end: definitions saved
 * through the API, run by a real worker (POST /workflows/:id/test), HTTP steps
 * answered by a local stub that records what it received.
 */

/** What the stub answers on every path: a list, some HTML and a word, for the filters. */
const FIXTURE = { items: [{ name: 'first' }, { name: 'second' }, { name: 'third' }], html: '<p>Hello <b>world</b></p>', word: 'abcdefgh' };

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: reply(200, FIXTURE) });
  ({ h, org, a } = await startWorkflowHarness(stub));
});

afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** An HTTP step calling the stub at `path`. */
const http_ = (stepId: string, path: string, extra: Record<string, unknown> = {}) => httpStep(stepId, { url: `${stub.url}${path}`, ...extra });

/** The body the run's return step answered with. */
const answered = (execution: Execution, stepId = 'answer') => stepOf(execution, stepId).output.body;

describe('template roots', () => {
  test('initial.* and <stepId>.* (indexes included) resolve, with or without spaces inside the braces', async () => {
    const wf = await a.createWorkflow([
      http_('fetch', '/roots', { searchParams: { q: '{{initial.q}}' } }),
      returnStep('answer', {
        spaced: '{{ fetch.body.items[0].name }}',
        tight: '{{fetch.body.items[1].name}}',
        input: '{{ initial.q }}',
        status: '{{ fetch.status }}',
      }),
    ]);
    const execution = await a.testRun(wf.id, { q: 'hello' });
    expect(execution.status).toBe('completed');
    expect(stub.calls('/roots')[0].url).toBe('/roots?q=hello');
    expect(answered(execution)).toEqual({ spaced: 'first', tight: 'second', input: 'hello', status: 200 });
  });

  test('$env.KEY resolves with and without spaces inside the braces', async () => {
    const env = await a.createEnvironment({ REGION: 'eu-west-3' });
    const wf = await a.createWorkflow(
      [http_('call', '/env-root', { headers: { 'X-Tight': '{{$env.REGION}}', 'X-Spaced': '{{ $env.REGION }}', 'X-Mixed': 'region={{ $env.REGION }}' } })],
      {
        environment: env,
      },
    );
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    const [req] = stub.calls('/env-root');
    expect(req.headers['x-tight']).toBe('eu-west-3');
    expect(req.headers['x-spaced']).toBe('eu-west-3');
    expect(req.headers['x-mixed']).toBe('region=eu-west-3');
  });

  test('$connections.<name>.<field> reads a field of the connection config', async () => {
    const name = uniqueName('conn');
    await createConnection(h.app, org, { name, type: 'api-key', config: { apiKey: 'ck-field-1234', headerName: 'X-Api-Key' } });
    const wf = await a.createWorkflow([
      http_('call', '/connection-root', { headers: { 'X-Key': `{{ $connections.${name}.apiKey }}`, 'X-Tight': `{{$connections.${name}.apiKey}}` } }),
    ]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    const [req] = stub.calls('/connection-root');
    expect(req.headers['x-key']).toBe('ck-field-1234');
    expect(req.headers['x-tight']).toBe('ck-field-1234');
  });
});

describe('filters', () => {
  test('size counts an array and a string', async () => {
    const wf = await a.createWorkflow([
      http_('fetch', '/size'),
      returnStep('answer', { items: '{{ fetch.body.items | size }}', word: '{{ fetch.body.word | size }}' }),
    ]);
    const execution = await a.testRun(wf.id);
    expect(answered(execution)).toEqual({ items: 3, word: 8 });
  });

  test('strip_html removes the tags', async () => {
    const wf = await a.createWorkflow([http_('fetch', '/strip'), returnStep('answer', { text: '{{ fetch.body.html | strip_html }}' })]);
    const execution = await a.testRun(wf.id);
    expect(answered(execution)).toEqual({ text: 'Hello world' });
  });

  test('substring takes a start and a length, or a start alone', async () => {
    const wf = await a.createWorkflow([
      http_('fetch', '/substring'),
      returnStep('answer', {
        both: '{{ fetch.body.word | substring: 2, 3 }}',
        startOnly: '{{ fetch.body.word | substring: 2 }}',
        initial: '{{ initial.code | substring: 0, 2 }}',
      }),
    ]);
    const execution = await a.testRun(wf.id, { code: 'FR-75' });
    expect(answered(execution)).toEqual({ both: 'cde', startOnly: 'cdefgh', initial: 'FR' });
  });
});

describe('whole-value templates', () => {
  test('a return body that is exactly one {{ expr }} yielding an object becomes that object', async () => {
    const wf = await a.createWorkflow([http_('fetch', '/whole-object'), returnStep('answer', '{{ fetch.body }}')]);
    const execution = await a.testRun(wf.id);
    expect(answered(execution)).toEqual(FIXTURE);
  });

  test('a return body that is exactly one {{ expr }} yielding an array becomes that array', async () => {
    const wf = await a.createWorkflow([http_('fetch', '/whole-array'), returnStep('answer', '  {{ fetch.body.items }}  ')]);
    const execution = await a.testRun(wf.id);
    expect(answered(execution)).toEqual(FIXTURE.items);
  });

  test('a field that is exactly one {{ expr }} keeps its JSON value; text around a template makes a string', async () => {
    const wf = await a.createWorkflow([
      http_('fetch', '/mixed'),
      returnStep('answer', {
        list: '{{ fetch.body.items }}',
        first: '{{ fetch.body.items[0] }}',
        text: 'first is {{ fetch.body.items[0].name }}',
        count: 'count: {{ fetch.body.items | size }}',
      }),
    ]);
    const execution = await a.testRun(wf.id);
    expect(answered(execution)).toEqual({ list: FIXTURE.items, first: { name: 'first' }, text: 'first is first', count: 'count: 3' });
  });
});

describe('recursion through environment variables (5 levels)', () => {
  /** L1 = {{ $env.L2 }} ... L<levels> = {{ $env.L<levels+1> }}, L<levels+1> = value. */
  const chain = (levels: number, value: string) => {
    const variables: Record<string, string> = {};
    for (let i = 1; i <= levels; i++) variables[`L${i}`] = `{{ $env.L${i + 1} }}`;
    variables[`L${levels + 1}`] = value;
    return variables;
  };

  test('a chain of 5 templated variables resolves to the final value', async () => {
    const env = await a.createEnvironment(chain(5, 'deep-value'));
    const wf = await a.createWorkflow([http_('call', '/depth-5', { headers: { 'X-Deep': '{{ $env.L1 }}' } })], { environment: env });
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(stub.calls('/depth-5')[0].headers['x-deep']).toBe('deep-value');
  });

  test('a chain of 6 templated variables fails the step with an error naming the 5-level limit', async () => {
    const env = await a.createEnvironment(chain(6, 'too-deep'));
    const wf = await a.createWorkflow([http_('call', '/depth-6', { headers: { 'X-Deep': '{{ $env.L1 }}' } })], { environment: env });
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'call', code: 'TemplateError', message: expect.stringContaining('5 levels') });
    expect(execution.error!.message).toContain('Step "call" (core.http) failed');
    expect(stepOf(execution, 'call')).toMatchObject({ status: 'failed', error: expect.stringContaining('5 levels') });
    expect(stub.calls('/depth-6')).toHaveLength(0);
  });

  test('a cycle A -> B -> A fails the step with an error naming the 5-level limit', async () => {
    const env = await a.createEnvironment({ A: '{{ $env.B }}', B: '{{ $env.A }}' });
    const wf = await a.createWorkflow([http_('call', '/cycle', { headers: { 'X-Cycle': '{{ $env.A }}' } })], { environment: env });
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'call', code: 'TemplateError', message: expect.stringContaining('5 levels') });
    expect(stepOf(execution, 'call')).toMatchObject({ status: 'failed', error: expect.stringContaining('5 levels') });
    expect(stub.calls('/cycle')).toHaveLength(0);
  });
});

describe('connections applied to core.http', () => {
  test('an environment variable holding {{$connections.<name>}} used as connection: "{{ $env.CRM }}" applies it (api-key, custom header, empty prefix)', async () => {
    const name = uniqueName('crm');
    await createConnection(h.app, org, { name, type: 'api-key', config: { apiKey: 'ck-plain-5678', headerName: 'X-Api-Key', prefix: '' } });
    const env = await a.createEnvironment({ CRM: `{{$connections.${name}}}` });
    const wf = await a.createWorkflow([http_('call', '/via-env-plain', { connection: '{{ $env.CRM }}' })], { environment: env });
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    const [req] = stub.calls('/via-env-plain');
    expect(req.headers['x-api-key']).toBe('ck-plain-5678');
    expect(req.headers.authorization).toBeUndefined();
  });

  test('an environment variable holding {{$connections.<name>}} applies an api-key connection with prefix Token', async () => {
    const name = uniqueName('crm');
    await createConnection(h.app, org, { name, type: 'api-key', config: { apiKey: 'ck-token-9012', headerName: 'X-Api-Key', prefix: 'Token' } });
    const env = await a.createEnvironment({ CRM: `{{ $connections.${name} }}` });
    const wf = await a.createWorkflow([http_('call', '/via-env-token', { connection: '{{$env.CRM}}' })], { environment: env });
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(stub.calls('/via-env-token')[0].headers['x-api-key']).toBe('Token ck-token-9012');
  });

  test('an api-key connection by default sends Authorization: Bearer <key> (connection by name and by {{ $connections.x }})', async () => {
    const name = uniqueName('api');
    await createConnection(h.app, org, { name, type: 'api-key', config: { apiKey: 'ck-default-3456' } });
    const wf = await a.createWorkflow([
      http_('byName', '/api-key-name', { connection: name }),
      http_('byTemplate', '/api-key-template', { connection: `{{ $connections.${name} }}` }),
    ]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(stub.calls('/api-key-name')[0].headers.authorization).toBe('Bearer ck-default-3456');
    expect(stub.calls('/api-key-template')[0].headers.authorization).toBe('Bearer ck-default-3456');
  });

  test('a basic-auth connection sends Authorization: Basic base64(username:password)', async () => {
    const name = uniqueName('basic');
    await createConnection(h.app, org, { name, type: 'basic-auth', config: { username: 'robot', password: 'pw-7890-secret' } });
    const wf = await a.createWorkflow([http_('call', '/basic', { connection: name })]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(stub.calls('/basic')[0].headers.authorization).toBe(`Basic ${Buffer.from('robot:pw-7890-secret').toString('base64')}`);
  });

  test('a deleted connection fails the step that uses it at run time with a clear message', async () => {
    const own = await createTestOrg(h.services);
    const connection = await createConnection(h.app, own, { name: 'crm', type: 'api-key', config: { apiKey: 'ck-deleted-1111' } });
    const ownApi = workflowApi(h.app, own);
    const created = await ownApi.createWorkflow([http_('call', '/deleted-connection', { connection: 'crm' })], { name: 'deleted-connection' });
    expect((await as(h.app, own.ownerToken).delete(`/connections/${connection.id}`)).status).toBe(200);

    const execution = await ownApi.testRun(created.id);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'call', code: 'ConnectionNotFound', message: expect.stringContaining('Connection "crm" does not exist') });
    expect(stepOf(execution, 'call')).toMatchObject({ status: 'failed', error: expect.stringContaining('Connection "crm" does not exist') });
    expect(stub.calls('/deleted-connection')).toHaveLength(0);
  });
});

describe('core.if', () => {
  const branching = () =>
    a.createWorkflow([
      {
        stepId: 'gate',
        stepType: 'core.if',
        input: { condition: 'initial.amount > 100', then: [http_('big', '/if-then')], else: [http_('small', '/if-else')] },
      },
      returnStep('answer', { big: '{{ big.status }}', small: '{{ small.status }}' }),
    ]);

  test('a true condition runs the then branch only', async () => {
    const execution = await a.testRun((await branching()).id, { amount: 150 });
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s) => s.stepId)).toEqual(['gate', 'big', 'answer']);
    expect(stepOf(execution, 'gate').output).toEqual({ result: true, branch: 'then' });
    expect(answered(execution)).toEqual({ big: 200, small: '' });
  });

  test('a false condition runs the else branch only', async () => {
    const before = stub.calls('/if-then').length;
    const execution = await a.testRun((await branching()).id, { amount: 50 });
    expect(execution.status).toBe('completed');
    expect(execution.steps.map((s) => s.stepId)).toEqual(['gate', 'small', 'answer']);
    expect(stepOf(execution, 'gate').output).toEqual({ result: false, branch: 'else' });
    expect(answered(execution)).toEqual({ big: '', small: 200 });
    expect(stub.calls('/if-then')).toHaveLength(before);
  });
});

describe('data store steps', () => {
  test('set then get in one run, with templates in the value; a missing key is found: false; the table is listed', async () => {
    const tableName = uniqueName('tpl');
    const wf = await a.createWorkflow([
      {
        stepId: 'save',
        stepType: 'data-store.set',
        input: {
          tableName,
          key: 'user-{{ initial.id }}',
          value: { name: '{{ initial.name }}', tags: '{{ initial.tags }}', label: 'n={{ initial.tags | size }}' },
        },
      },
      { stepId: 'load', stepType: 'data-store.get', input: { tableName, key: 'user-{{ initial.id }}' } },
      { stepId: 'missing', stepType: 'data-store.get', input: { tableName, key: 'nobody-{{ initial.id }}' } },
      returnStep('answer', { name: '{{ load.value.name }}', found: '{{ missing.found }}' }),
    ]);
    const execution = await a.testRun(wf.id, { id: 42, name: 'Ada', tags: ['x', 'y'] });
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'save').output).toEqual({ key: 'user-42', created: true });
    expect(stepOf(execution, 'load').output).toMatchObject({ found: true, value: { name: 'Ada', tags: ['x', 'y'], label: 'n=2' } });
    expect(stepOf(execution, 'missing').output).toMatchObject({ found: false, value: null });
    expect(answered(execution)).toEqual({ name: 'Ada', found: false });

    const tables = await as(h.app, org.ownerToken).get('/data-stores/tables?limit=1000');
    expect(tables.status).toBe(200);
    expect(tables.body.data).toContainEqual(expect.objectContaining({ tableName, recordCount: 1 }));
  });
});

describe('templates checked when saving', () => {
  test('an unknown filter is refused with 400 invalid_definition naming the step field', async () => {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: uniqueName('bad'), steps: [http_('fetch', '/never'), returnStep('answer', { x: '{{ initial.x | nosuchfilter }}' })] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_definition');
    expect(res.body.error.details).toEqual([{ path: 'steps.1.input.webhookResponse.body.x', message: expect.stringContaining('nosuchfilter') }]);
  });

  test('a reference to a later step is refused with 400 naming it', async () => {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: uniqueName('bad'), steps: [http_('first', '/never', { headers: { 'X-Id': '{{ later.body.id }}' } }), http_('later', '/never')] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_definition');
    expect(res.body.error.details).toEqual([{ path: 'steps.0.input.headers.X-Id', message: expect.stringContaining('"later"') }]);
  });
});
