import { as, expectError, type Harness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';
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

test('a lone template yielding an object or array keeps it; other templates render as text (as a return body); later steps read them', async () => {
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
    total: '2',
    label: 'Order A-7 has 2 items',
    literal: 42,
    nested: { first: '1', tags: ['vip', 'fixed'] },
    missing: '',
  });
  expect(stepOf(execution, 'use').output.body.path).toBe('/use/Order+A-7+has+2+items?n=2');
  expect(stepOf(execution, 'answer').output.body).toEqual({ items: [{ id: 1 }, { id: 2 }], total: '2', nested: { first: '1', tags: ['vip', 'fixed'] } });
});

test('a value built from a secret is masked in the output, and later steps read the masked value (read $env where the secret is used)', async () => {
  const environment = await a.createEnvironment({ API_TOKEN: { value: 'tok-set-step-secret-1234', secret: true } });
  const wf = await a.createWorkflow(
    [
      setStep('vars', { auth: 'Bearer {{ $env.API_TOKEN }}', plain: 'visible' }),
      httpStep('call', { url: `${stub.url}/auth`, headers: { Authorization: '{{ vars.auth }}' } }),
    ],
    { environment },
  );
  const execution = await a.runAndWait(wf.id);
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'vars').output).toEqual({ auth: 'Bearer [secret]', plain: 'visible' });
  expect(JSON.stringify(execution)).not.toContain('tok-set-step-secret-1234');
  // The masked record is what later steps read, so the header carries the mask, not the secret: a secret is used where it is read.
  expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer [secret]');
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
