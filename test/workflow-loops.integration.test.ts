import request from 'supertest';
import { as, expectError, type Harness } from './harness';
import { eventually, type TestOrg } from './factories';
import { reply, sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { budgetPaddedBody, httpStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';

/** `core.loop`: a body per item with a concurrency limit, item errors failing or collected, large loops in batches. */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { got: req.body ? JSON.parse(req.body) : null }) });
  // Held a moment, so concurrent items overlap here and the most seen at once is the loop's concurrency.
  stub.on('/slow', async (req, res) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 150));
    inFlight -= 1;
    sendJson(res, 200, { got: JSON.parse(req.body) });
  });
  stub.on('/fail', reply(500, { error: 'boom' }));
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const set = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });
const loop = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.loop', input });

test('each item runs the body, at most `concurrency` at once; results come in item order; each item step is a sub-step of the loop', async () => {
  mostInFlight = 0;
  const wf = await a.createWorkflow([
    set('prepare', { prefix: 'order' }),
    loop('each', {
      items: '{{ initial.orders }}',
      concurrency: 3,
      steps: [
        httpStep('post', { url: `${stub.url}/slow`, method: 'POST', body: { id: '{{ item.id }}', n: '{{ index }}' } }),
        set('shape', { label: '{{ prepare.prefix }}-{{ item.id }}', sent: '{{ post.body.got.n }}', qty: '{{ item.qty }}' }),
      ],
    }),
    set('after', { count: '{{ each.count }}', second: '{{ each.results[1].label }}' }),
  ]);
  const orders = Array.from({ length: 7 }, (_, i) => ({ id: `o${i}`, qty: i * 2 }));
  const execution = await a.runAndWait(wf.id, { orders });
  expect(execution.status).toBe('completed');
  expect(mostInFlight).toBe(3);
  const output = stepOf(execution, 'each').output;
  expect(output.count).toBe(7);
  expect(output.errors).toEqual([]);
  // A lone {{ }} keeps numbers (the typed-values patch): qty and the index come back as numbers.
  expect(output.results).toEqual(orders.map((o, i) => ({ label: `order-${o.id}`, sent: i, qty: o.qty })));
  expect(stepOf(execution, 'after').output).toEqual({ count: 7, second: 'order-o1' });
  expect(stepOf(execution, 'each').input).toEqual({ items: 7, concurrency: 3, onItemError: 'fail' });
  const subSteps = execution.steps.filter((s) => s.parentStepId === 'each');
  expect(subSteps).toHaveLength(14);
  expect(subSteps.slice(0, 4).map((s) => s.stepId)).toEqual(['each[0].post', 'each[0].shape', 'each[1].post', 'each[1].shape']);
  expect(subSteps.map((s) => s.itemIndex)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
  expect(stepOf(execution, 'each').itemIndex).toBeNull();
  expect(stepOf(execution, 'each[3].post').input.body).toEqual({ id: 'o3', n: 3 });
});

test('onItemError continue collects failures and the other items go on; fail ends the loop and the run, naming the item', async () => {
  const body = [
    {
      stepId: 'route',
      stepType: 'core.if',
      input: { condition: 'item.bad', then: [httpStep('boom', { url: `${stub.url}/fail` })], else: [set('fine', { v: '{{ item.v }}' })] },
    },
  ];
  const items = [{ v: 1 }, { v: 2, bad: true }, { v: 3 }];
  const collecting = await a.createWorkflow([loop('each', { items: '{{ initial.items }}', onItemError: 'continue', steps: body })]);
  const collected = await a.runAndWait(collecting.id, { items });
  expect(collected.status).toBe('completed');
  const output = stepOf(collected, 'each').output;
  expect(output.results).toEqual([{ v: 1 }, null, { v: 3 }]);
  expect(output.errors).toEqual([{ index: 1, stepId: 'boom', message: expect.stringContaining('500') }]);

  const failing = await a.createWorkflow([loop('each', { items: '{{ initial.items }}', steps: body }), set('never', { x: 1 })]);
  const failed = await a.runAndWait(failing.id, { items });
  expect(failed.status).toBe('failed');
  expect(failed.error?.stepId).toBe('each');
  expect(failed.error?.message).toContain('Item 1 failed');
  expect(failed.steps.map((s) => s.stepId)).not.toContain('never');
  // Item 2 never started: concurrency 1 and the failure came first.
  expect(failed.steps.map((s) => s.stepId)).not.toContain('each[2].route');
});

test('a loop past the inline limit runs in child batches: the run history stays small, every item is recorded, results in order', async () => {
  // Each item counts as 46 events though it runs 3 steps (budgetPaddedBody): the run's 3,000 hold 65 items,
  // a batch's 6,000 hold 130, and 140 items take two batches in 420 steps (the same with 2-step items took
  // 3,200 steps, over two minutes on a busy machine). `npm run bench:engine` runs loops of 10,000 items.
  const wf = await a.createWorkflow([
    loop('each', {
      items: '{{ initial.items }}',
      concurrency: 20,
      steps: budgetPaddedBody([set('double', { n: '{{ item | times: 2 }}' }), set('shape', { n: '{{ double.n }}', i: '{{ index }}' })]),
    }),
  ]);
  const items = Array.from({ length: 140 }, (_, i) => i);
  const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: { items } });
  expect(res.status).toBe(202);
  const id = res.body.executionId as string;
  const done = await eventually(
    () => a.readExecution(id),
    (e) => e.status !== 'running',
    120_000,
  );
  expect(done.status).toBe('completed');
  const output = (await as(h.app, org.ownerToken).get(`/executions/${id}/steps/each/output`)).body;
  expect(output.count).toBe(140);
  expect(output.results[0]).toEqual({ n: 0, i: 0 });
  expect(output.results[139]).toEqual({ n: 278, i: 139 });
  expect(output.errors).toEqual([]);
  // The read lists the first 100 items' steps and counts the rest; each stays readable alone.
  expect(done.steps.filter((s) => s.parentStepId === 'each')).toHaveLength(300);
  expect(done.subStepsOmitted).toBe(120);
  expect((await as(h.app, org.ownerToken).get(`/executions/${id}/steps/${encodeURIComponent('each[135].shape')}/output`)).body).toEqual({
    n: 270,
    i: 135,
  });
  const history = await h.services.temporal.client.workflow.getHandle(id).fetchHistory();
  // Two batches (of 130 and 10 items): the run's own history holds two children, not hundreds of activities.
  expect(history.events!.length).toBeLessThan(60);
  const children = history.events!.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  expect(children.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!.replace(/^.*\./, ''))).toEqual(['0', '130']);
}, 180_000);

test('a loop after the run answered (its steps regular activities) reads item, index and its own earlier steps alike', async () => {
  const { path } = await a.createHook([
    { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { ok: true } } } },
    loop('each', {
      items: '{{ initial.items }}',
      concurrency: 2,
      steps: [
        httpStep('post', { url: `${stub.url}/echo`, method: 'POST', body: { id: '{{ item.id }}', n: '{{ index }}' } }),
        set('shape', { id: '{{ post.body.got.id }}', n: '{{ post.body.got.n }}' }),
      ],
    }),
  ]);
  const call = await request(h.app)
    .post(path)
    .send({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
  expect(call.status).toBe(200);
  const id = call.headers['x-execution-id'] as string;
  const done = await eventually(
    () => a.readExecution(id),
    (e) => e.status !== 'running',
    30_000,
  );
  expect(done.status).toBe('completed');
  expect(stepOf(done, 'each').output.results).toEqual([
    { id: 'a', n: 0 },
    { id: 'b', n: 1 },
    { id: 'c', n: 2 },
  ]);
});

test('a loop body refuses steps that cannot run per item, item and index are reserved ids, and items must be an array', async () => {
  const refused = await as(h.app, org.ownerToken)
    .post('/workflows')
    .send({
      name: 'bad-loop',
      steps: [loop('each', { items: [1], steps: [{ stepId: 'r', stepType: 'core.return', input: { webhookResponse: { statusCode: 200 } } }] })],
    });
  expectError(refused, 400, 'invalid_definition');
  expect(refused.body.error.details).toEqual([
    { path: 'steps.0.input.steps.0.stepType', message: expect.stringContaining('core.return cannot run inside a loop') },
  ]);
  const reserved = await as(h.app, org.ownerToken)
    .post('/workflows')
    .send({ name: 'reserved-item', steps: [set('item', { x: 1 })] });
  expect(reserved.status).toBe(400);
  expect(JSON.stringify(reserved.body)).toContain('is reserved');
  const concurrency = await as(h.app, org.ownerToken)
    .post('/workflows')
    .send({ name: 'too-wide', steps: [loop('each', { items: [1], concurrency: 51, steps: [set('s', { x: 1 })] })] });
  expect(concurrency.status).toBe(400);
  expect(JSON.stringify(concurrency.body)).toContain('steps.0.input.concurrency');

  const notArray = await a.createWorkflow([loop('each', { items: '{{ initial.items }}', steps: [set('s', { x: '{{ item }}' })] })]);
  const failed = await a.runAndWait(notArray.id, { items: 'abc' });
  expect(failed.status).toBe('failed');
  expect(failed.error?.message).toContain('items must be an array');
});
