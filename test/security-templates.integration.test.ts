import request from 'supertest';
import { as, createConnection, expectError, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { historyText, httpStep, returnStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';
import { type TestOrg } from './factories';

/**
 * Templates see data, never the objects behind it: paths that walked from
 * `$env` and `$connections` into the service's internals (and loaded other
 * organizations' rows) now read plain values; variables may be named like
 * those internals; secrets stay masked in what the service records, also
 * after filters transform them, while the caller gets exactly the answer the
 * author wrote.
 */
let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

const SECRET = 'Sk-Live-Q7w8E9r0T1y2';
const BASE_URL = 'https://api.example.test';

beforeAll(async () => {
  stub = await startHttpStub({ fallback: reply(200, { ok: true }) });
  ({ h, org, a } = await startWorkflowHarness(stub));
  await createConnection(h.app, org, { name: 'crm', type: 'api-key', config: { apiKey: 'crm-connection-key-123' } });
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** Runs a workflow whose return step answers `body`, through its webhook; the caller's answer and the execution. */
async function answerOf(body: unknown, variables: Parameters<WorkflowApi['createEnvironment']>[0], steps: unknown[] = []) {
  const environment = await a.createEnvironment(variables);
  const { path } = await a.createHook([...steps, returnStep('answer', body)], { environment });
  const res = await request(h.app).post(path).send({});
  const execution = await a.awaitEnd(res.headers['x-execution-id']);
  return { res, execution, environment };
}

test('paths into the objects behind $env and $connections read nothing; variables may be named like those internals', async () => {
  const { res, execution } = await answerOf(
    {
      owner: '{{ $env.owner }}',
      depth: '{{ $env.depth }}',
      chain: '{{ $env.chain }}',
      ctor: '{{ $env.constructor }}',
      sources: '[{{ $env.owner.sources }}]',
      loader: '[{{ $env.owner.sources.environmentValues }}]',
      envMethod: '[{{ $env.liquidMethodMissing }}]',
      envProto: '[{{ $env.__proto__ }}]',
      connectionCtor: '[{{ $connections.crm.constructor }}]',
      connectionProto: '[{{ $connections.crm.__proto__.constructor }}]',
      keyCtor: '[{{ $connections.crm.apiKey.constructor }}]',
      initialCtor: '[{{ initial.constructor }}]',
      missing: '[{{ $env.not_defined }}]',
    },
    { owner: 'the-owner', depth: 'd', chain: 'c', constructor: 'built' },
  );
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    owner: 'the-owner',
    depth: 'd',
    chain: 'c',
    ctor: 'built',
    sources: '[]',
    loader: '[]',
    envMethod: '[]',
    envProto: '[]',
    connectionCtor: '[]',
    connectionProto: '[]',
    keyCtor: '[]',
    initialCtor: '[]',
    missing: '[]',
  });
  expect(execution.status).toBe('completed');
});

test("$env as a whole is the environment's values, as data", async () => {
  const { res } = await answerOf('{{ $env }}', { A: { value: 'one', secret: false }, B: { value: 'two', secret: false } });
  expect(res.body).toEqual({ A: 'one', B: 'two' });
});

test('a connection must be named: $connections alone or by a computed name is refused when the workflow is saved', async () => {
  for (const body of ['{{ $connections }}', '{{ $connections[initial.name] }}', '{% for c in $connections %}{{ c }}{% endfor %}']) {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: `wf-${Date.now()}`, steps: [returnStep('answer', body)] });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: 'steps.0.input.webhookResponse.body', message: expect.stringContaining('$connections') }),
    ]);
  }
});

describe("masking and the caller's answer", () => {
  test('the caller gets exactly what the return step wrote; the record and Temporal history hold the secret masked', async () => {
    const { res, execution } = await answerOf({ url: '{{ $env.BASE }}/orders', token: 'Bearer {{ $env.TOKEN }}' }, { BASE: BASE_URL, TOKEN: SECRET });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: `${BASE_URL}/orders`, token: `Bearer ${SECRET}` });
    expect(stepOf(execution, 'answer').output.body).toEqual({ url: '[secret]/orders', token: 'Bearer [secret]' });
    const history = await historyText(h.services.temporal.client, execution.id);
    expect(history).toContain('[secret]/orders');
    expect(history).not.toContain(SECRET);
    expect(history).not.toContain(BASE_URL);
    // The sealed copy is collected once; nothing is left behind.
    const left = await h.services.db.query(`SELECT count(*)::int AS n FROM execution_answers WHERE execution_id = $1`, [execution.id]);
    expect(left[0].n).toBe(0);
  });

  test('a variable flagged secret: false is plain configuration, in the record too; the flag shows in reads', async () => {
    const { res, execution, environment } = await answerOf({ url: '{{ $env.BASE }}/orders' }, { BASE: { value: BASE_URL, secret: false }, TOKEN: SECRET });
    expect(res.body).toEqual({ url: `${BASE_URL}/orders` });
    expect(stepOf(execution, 'answer').output.body).toEqual({ url: `${BASE_URL}/orders` });
    const environments = await as(h.app, org.ownerToken).get('/environments?limit=1000');
    const env = environments.body.data.find((e: { name: string }) => e.name === environment);
    expect(env.variables).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'BASE', secret: false }), expect.objectContaining({ key: 'TOKEN', secret: true })]),
    );
  });

  test('secret values transformed by filters are masked in every form the step recorded', async () => {
    const forms = {
      upcase: '{{ $env.TOKEN | upcase }}',
      downcase: '{{ $env.TOKEN | downcase }}',
      capitalize: '{{ $env.TOKEN | capitalize }}',
      head: '{{ $env.TOKEN | substring: 0, 9 }}',
      tail: '{{ $env.TOKEN | substring: 8 }}',
      sliced: '{{ $env.TOKEN | slice: 3, 10 }}',
      truncated: '{{ $env.TOKEN | truncate: 15 }}',
      truncatedOwnEllipsis: '{{ $env.TOKEN | truncate: 14, "~" }}',
      urlEncoded: '{{ "a b/" | append: $env.TOKEN | url_encode }}',
      base64: '{{ $env.TOKEN | base64_encode }}',
      chained: '{{ $env.TOKEN | substring: 2, 12 | upcase }}',
      escaped: '{{ "<" | append: $env.TOKEN | escape }}',
    };
    const expected = {
      upcase: SECRET.toUpperCase(),
      downcase: SECRET.toLowerCase(),
      capitalize: SECRET.charAt(0) + SECRET.slice(1).toLowerCase(),
      head: SECRET.slice(0, 9),
      tail: SECRET.slice(8),
      sliced: SECRET.slice(3, 13),
      truncated: SECRET.slice(0, 12) + '...',
      truncatedOwnEllipsis: SECRET.slice(0, 13) + '~',
      urlEncoded: `a+b%2F${SECRET}`,
      base64: Buffer.from(SECRET).toString('base64'),
      chained: SECRET.slice(2, 14).toUpperCase(),
      escaped: `&lt;${SECRET}`,
    };
    const { res, execution } = await answerOf(forms, { TOKEN: SECRET }, [httpStep('send', { url: `${stub.url}/forms`, method: 'POST', body: forms })]);
    // The remote server and the caller get the real values.
    expect(JSON.parse(stub.calls('/forms')[0].body)).toEqual(expected);
    expect(res.body).toEqual(expected);
    // What the service recorded holds none of them.
    const recorded = JSON.stringify(execution) + (await historyText(h.services.temporal.client, execution.id));
    for (const [name, value] of Object.entries(expected)) {
      const secretPart = value.replace(/^a\+b%2F|^&lt;|\.\.\.$|~$/g, '');
      expect({ name, found: recorded.includes(secretPart) }).toEqual({ name, found: false });
    }
    // Each recorded form is masked whole: no piece of a secret is left beside the mask.
    expect(stepOf(execution, 'send').input.body).toEqual({
      upcase: '[secret]',
      downcase: '[secret]',
      capitalize: '[secret]',
      head: '[secret]',
      tail: '[secret]',
      sliced: '[secret]',
      truncated: '[secret]...',
      truncatedOwnEllipsis: '[secret]~',
      urlEncoded: 'a+b%2F[secret]',
      base64: '[secret]',
      chained: '[secret]',
      escaped: '&lt;[secret]',
    });
  });
});

describe('definitions', () => {
  test.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'not-an-identifier'])(
    'step id %s is refused naming the field',
    async (stepId) => {
      const res = await as(h.app, org.ownerToken)
        .post('/workflows')
        .send({
          name: `wf-${Date.now()}`,
          steps: [returnStep('ok', { a: 1 }), { stepId, stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }],
        });
      expectError(res, 400);
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'steps.1.stepId' })]));
    },
  );

  // How long the check takes is measured by npm run bench:templates, not asserted here.
  test('a 1 MB hostile template is refused, naming the field', async () => {
    const hostile = '{{'.repeat(450_000);
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: `wf-${Date.now()}`, steps: [returnStep('answer', hostile)] });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: 'steps.0.input.webhookResponse.body', message: expect.stringContaining('limit') }),
    ]);
  });

  test('a megabyte of hostile templates each under the length limit is analysed and refused, with short messages', async () => {
    const under = '{{'.repeat(49_999);
    const body = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, under]));
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: `wf-${Date.now()}`, steps: [returnStep('answer', body)] });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toHaveLength(10);
    for (const detail of res.body.error.details) expect(detail.message.length).toBeLessThan(400);
  });
});
