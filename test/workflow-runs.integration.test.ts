import request from 'supertest';
import type { Harness } from './harness';
import type { TestOrg } from './factories';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startWorkflowHarness, type WorkflowApi } from './workflow-api';

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({
    fallback: (req, res) => sendJson(res, 200, { method: req.method, url: req.url, items: [{ name: 'first' }], echo: req.body ? JSON.parse(req.body) : null }),
  });
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h.close();
  await stub.close();
});

test('a synchronous webhook answers with the return step, built from the HTTP step output', async () => {
  const wf = await a.createWorkflow(
    [
      {
        stepId: 'fetch',
        stepType: 'core.http',
        input: { url: `${stub.url}/items`, method: 'POST', searchParams: { q: '{{ initial.q }}' }, body: { hello: '{{ initial.q }}' } },
      },
      {
        stepId: 'answer',
        stepType: 'core.return',
        input: { webhookResponse: { statusCode: 201, body: { first: '{{ fetch.body.items[0].name }}', all: '{{ fetch.body }}' } } },
      },
    ],
    { name: 'sync-smoke' },
  );
  await a.createTrigger(wf.id, { name: 'sync-smoke', method: 'POST' });
  const res = await request(h.app).post(`/w/@${org.organizationSuid}/sync-smoke`).send({ q: 'a b' });
  expect(res.status).toBe(201);
  expect(res.body.first).toBe('first');
  expect(res.body.all).toMatchObject({ method: 'POST', url: '/items?q=a+b', echo: { hello: 'a b' } });
  const executionId = res.headers['x-execution-id'];
  const read = await a.readExecution(executionId);
  expect(read).toMatchObject({ status: 'completed', mode: 'webhook', input: { q: 'a b' }, trigger: { name: 'sync-smoke' } });
  expect(read.steps.map((s) => s.stepId)).toEqual(['fetch', 'answer']);
});

test('a webhook without a return step answers 202 with the execution id', async () => {
  const wf = await a.createWorkflow([{ stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/x` } }], { name: 'async-smoke' });
  await a.createTrigger(wf.id, { name: 'async-smoke', method: 'POST' });
  const res = await request(h.app).post(`/w/@${org.organizationSuid}/async-smoke`).send({});
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'running' });
});
