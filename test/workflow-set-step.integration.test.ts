import { as, expectError, type Harness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import request from 'supertest';
import { historyText, httpStep, returnStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';
import type { TestOrg } from './factories';

/** `core.set`: names mapped to values or templates, read by later steps as `{{ <stepId>.<name> }}`. */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { items: [{ id: 1 }, { id: 2 }], total: 2, path: req.url }) });
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const setStep = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });

test('a lone template keeps the type of its value (object, array, number); other templates render as text (as a return body); later steps read them', async () => {
  const wf = await a.createWorkflow([
    httpStep('fetch', { url: `${stub.url}/orders` }),
    setStep('vars', {
      items: '{{ fetch.body.items }}',
      total: '{{ fetch.body.total }}',
      label: 'Order {{ initial.id }} has {{ fetch.body.total }} items',
      literal: 42,
      nested: { first: '{{ fetch.body.items[0].id }}', tags: ['{{ initial.tag }}', 'fixed'] },
      missing: '{{ initial.nothing }}',
    }),
    httpStep('use', { url: `${stub.url}/use/{{ vars.label | url_encode }}`, searchParams: { n: '{{ vars.items | size }}' } }),
    returnStep('answer', { items: '{{ vars.items }}', total: '{{ vars.total }}', nested: '{{ vars.nested }}' }),
  ]);
  const execution = await a.runAndWait(wf.id, { id: 'A-7', tag: 'vip' });
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'vars').output).toEqual({
    items: [{ id: 1 }, { id: 2 }],
    total: 2,
    label: 'Order A-7 has 2 items',
    literal: 42,
    nested: { first: 1, tags: ['vip', 'fixed'] },
    missing: '',
  });
  expect(stepOf(execution, 'use').output.body.path).toBe('/use/Order+A-7+has+2+items?n=2');
  expect(stepOf(execution, 'answer').output.body).toEqual({ items: [{ id: 1 }, { id: 2 }], total: 2, nested: { first: 1, tags: ['vip', 'fixed'] } });
});

test('a value built from a secret reaches later steps exact, while every record and the history show it masked', async () => {
  const secret = 'tok-set-step-secret-1234';
  const environment = await a.createEnvironment({ API_TOKEN: { value: secret, secret: true } });
  const wf = await a.createWorkflow(
    [
      setStep('vars', { auth: 'Bearer {{ $env.API_TOKEN }}', plain: 'visible' }),
      // Derived again from the derived value, in a local activity (core.set) and a regular one (core.http).
      setStep('more', { token: "{{ vars.auth | remove_first: 'Bearer ' }}", shout: '{{ vars.auth | upcase }}' }),
      httpStep('call', { url: `${stub.url}/auth`, headers: { Authorization: '{{ vars.auth }}', 'X-Token': '{{ more.token }}' } }),
    ],
    { environment },
  );
  const execution = await a.runAndWait(wf.id);
  expect(execution.status).toBe('completed');
  const sent = stub.requests.at(-1)!.headers;
  expect([sent.authorization, sent['x-token']]).toEqual([`Bearer ${secret}`, secret]);

  expect(stepOf(execution, 'vars').output).toEqual({ auth: 'Bearer [secret]', plain: 'visible' });
  expect(stepOf(execution, 'more').output).toEqual({ token: '[secret]', shout: 'BEARER [secret]' });
  expect(stepOf(execution, 'call').input.headers).toMatchObject({ Authorization: 'Bearer [secret]', 'X-Token': '[secret]' });
  expect(JSON.stringify(execution)).not.toContain(secret);
  expect(JSON.stringify(execution).toLowerCase()).not.toContain(secret.toLowerCase());
  const history = await historyText(h.services.temporal.client, execution.id);
  expect(history).not.toContain(secret);
  expect(history.toLowerCase()).not.toContain(secret.toLowerCase());
  // The original is kept sealed, never in clear, in the step's record.
  const [row] = await h.services.db.query(`SELECT output::text AS output, sealed_output FROM execution_steps WHERE execution_id = $1 AND step_id = 'vars'`, [
    execution.id,
  ]);
  expect(row.sealed_output).toEqual(expect.any(String));
  expect(`${row.output}${row.sealed_output}`).not.toContain(secret);
});

test("a webhook's answer built from a derived secret reaches the caller exact, recorded masked", async () => {
  const secret = 'tok-set-step-answer-5678';
  const environment = await a.createEnvironment({ API_TOKEN: { value: secret, secret: true } });
  const { path, workflow } = await a.createHook(
    [setStep('vars', { auth: 'Bearer {{ $env.API_TOKEN }}' }), returnStep('answer', { header: '{{ vars.auth }}' })],
    {
      environment,
    },
  );
  const res = await request(h.app).post(path).send({});
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ header: `Bearer ${secret}` });
  const [run] = (await a.listExecutions({ workflowId: workflow.id })).data;
  const execution = await a.awaitEnd(run.id);
  expect(stepOf(execution, 'answer').output.body).toEqual({ header: 'Bearer [secret]' });
  expect(JSON.stringify(execution)).not.toContain(secret);
});

test('a data-store.set refuses to write a secret in plain text, loudly, and writes nothing', async () => {
  const environment = await a.createEnvironment({ API_TOKEN: { value: 'tok-set-step-store-9012', secret: true } });
  const table = `secrets_${Date.now().toString(36)}`;
  const wf = await a.createWorkflow(
    [
      setStep('vars', { auth: 'Bearer {{ $env.API_TOKEN }}' }),
      { stepId: 'save', stepType: 'data-store.set', input: { tableName: table, key: 'k', value: { auth: '{{ vars.auth }}' } } },
    ],
    { environment },
  );
  const execution = await a.runAndWait(wf.id);
  expect(execution.status).toBe('failed');
  expect(stepOf(execution, 'save').error).toMatch(/would hold a secret value .* in plain text/);
  expect(JSON.stringify(execution)).not.toContain('tok-set-step-store-9012');
  expectError(await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}`), 404);
});

test('a bad definition is a 400 naming the field', async () => {
  const cases: Array<[unknown, string]> = [
    [{}, 'steps.0.input.values'],
    [{ values: {} }, 'steps.0.input.values'],
    [{ values: { 'has space': 1 } }, 'steps.0.input.values.has space'],
    [{ values: { constructor: 1 } }, 'steps.0.input.values.constructor'],
    [{ values: { ok: '{{ later.x }}' } }, 'steps.0.input.values.ok'],
  ];
  for (const [input, path] of cases) {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: 'bad-set', steps: [{ stepId: 'vars', stepType: 'core.set', input }, returnStep('later', {})] });
    expectError(res, 400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  }
});

test("a refused value name says which rule it breaks, in the schema's words", async () => {
  const cases: Array<[string, RegExp]> = [
    ['bad name', /a letter or _, then letters, digits, _ or -/],
    ['9lives', /a letter or _, then letters, digits, _ or -/],
    ['constructor', /reserved \(a JavaScript object internal/],
  ];
  for (const [name, rule] of cases) {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: 'bad-set-name', steps: [{ stepId: 'vars', stepType: 'core.set', input: { values: { [name]: 1 } } }] });
    expectError(res, 400);
    const detail = res.body.error.details.find((d: { path: string }) => d.path === `steps.0.input.values.${name}`);
    expect(detail?.message).toMatch(rule);
    expect(detail?.message).not.toMatch(/Invalid key in record/);
  }
});
