import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { as, createTestOrg, Harness, startHarness, TestOrg } from './harness';

let h: Harness;
let org: TestOrg;
let stub: http.Server;
let stubUrl: string;

beforeAll(async () => {
  h = await startHarness();
  org = await createTestOrg(h.services);
  stub = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, items: [{ name: 'first' }], echo: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  const port = (stub.address() as AddressInfo).port;
  stubUrl = `http://127.0.0.1:${port}`;
  await h.startWorker({ httpAllowList: [`127.0.0.1:${port}`] });
});
afterAll(async () => {
  await h.close();
  stub.close();
});

async function createWorkflow(definition: Record<string, unknown>) {
  const res = await as(h.app, org.ownerToken).post('/workflows').send(definition);
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

async function createTrigger(workflowId: string, body: Record<string, unknown>) {
  const res = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/triggers`).send(body);
  expect(res.status).toBe(201);
  return res.body as { name: string; secret?: string };
}

test('a synchronous webhook answers with the return step, built from the HTTP step output', async () => {
  const wf = await createWorkflow({
    name: 'sync-smoke',
    steps: [
      { stepId: 'fetch', stepType: 'core.http', input: { url: `${stubUrl}/items`, method: 'POST', searchParams: { q: '{{ initial.q }}' }, body: { hello: '{{ initial.q }}' } } },
      { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 201, body: { first: '{{ fetch.body.items[0].name }}', all: '{{ fetch.body }}' } } } },
    ],
  });
  await createTrigger(wf.id, { name: 'sync-smoke', method: 'POST' });
  const res = await request(h.app).post(`/w/@${org.organizationSuid}/sync-smoke`).send({ q: 'a b' });
  expect(res.status).toBe(201);
  expect(res.body.first).toBe('first');
  expect(res.body.all).toMatchObject({ method: 'POST', url: '/items?q=a+b', echo: { hello: 'a b' } });
  const executionId = res.headers['x-execution-id'];
  const read = await as(h.app, org.ownerToken).get(`/executions/${executionId}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ status: 'completed', mode: 'webhook', input: { q: 'a b' }, trigger: { name: 'sync-smoke' } });
  expect(read.body.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['fetch', 'answer']);
});

test('a webhook without a return step answers 202 with the execution id', async () => {
  const wf = await createWorkflow({ name: 'async-smoke', steps: [{ stepId: 'fetch', stepType: 'core.http', input: { url: `${stubUrl}/x` } }] });
  await createTrigger(wf.id, { name: 'async-smoke', method: 'POST' });
  const res = await request(h.app).post(`/w/@${org.organizationSuid}/async-smoke`).send({});
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'running' });
});
