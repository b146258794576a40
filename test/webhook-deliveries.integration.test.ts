import request from 'supertest';
import Stripe from 'stripe';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import { deliveryExecutionId } from '../src/webhooks/delivery-ids';
import { NOT_STARTED_MESSAGE } from '../src/executions/executions.repository';
import { DuplicateStart } from '../src/executions/duplicate-starts';
import { RunStarter } from '../src/executions/run-starter';
import { as, expectError, type Harness } from './harness';
import { startHttpStub, sendJson, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type WorkflowApi } from './workflow-api';
import { createTestOrg, eventually, type TestOrg } from './factories';

/**
 * Exactly-once starts by delivery id, end to end: a delivery's retries and
 * concurrent duplicates ask Temporal to start the same workflow id, and
 * only one run exists whatever the callers do.
 */

let stub: HttpStub;
let h: Harness;
let org: TestOrg;
let a: WorkflowApi;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (_req, res) => sendJson(res, 200, { ok: true }) });
  ({ h, org, a } = await startWorkflowHarness(stub));
});

afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const req = request(h.app).post(path);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req.send(body as object);
};

async function hook(steps: unknown[], trigger: Record<string, unknown> = {}) {
  const workflow = await a.createWorkflow(steps);
  return a.createTrigger(workflow.id, trigger);
}

const runsOf = async (deliveryId: string) => (await a.listExecutions({ deliveryId })).data;

/** Temporal's own count of runs carrying this delivery id (its visibility store catches up shortly after a start). */
async function temporalRuns(deliveryId: string): Promise<number> {
  const client = h.services.temporal.client;
  const { count } = await client.workflow.count(`DeliveryId = "${deliveryId}" AND OrganizationId = "${org.organizationId}"`);
  return count;
}

describe('by the Idempotency-Key header, the default', () => {
  test('an async delivery sent twice starts one run; both callers get 202 naming it; the run shows its delivery id', async () => {
    const trigger = await hook([{ stepId: 'note', stepType: 'core.set', input: { values: { n: '{{ initial.n }}' } } }]);
    const key = `order-${Date.now()}-a`;
    const first = await post(trigger.path, { n: 1 }, { 'Idempotency-Key': key });
    const second = await post(trigger.path, { n: 1 }, { 'Idempotency-Key': key });

    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.executionId).toBe(first.body.executionId);
    expect(first.headers['x-delivery-duplicate']).toBeUndefined();
    expect(second.headers['x-delivery-duplicate']).toBe('true');
    const execution = await a.awaitEnd(first.body.executionId);
    expect(execution).toMatchObject({ status: 'completed', deliveryId: key, input: { n: 1 } });

    // A retry after the run ended is answered from its record, not started again.
    const third = await post(trigger.path, { n: 1 }, { 'Idempotency-Key': key });
    expect(third.body.executionId).toBe(first.body.executionId);
    expect((await runsOf(key)).map((e) => e.id)).toEqual([first.body.executionId]);
    await eventually(
      () => temporalRuns(key),
      (n) => n === 1,
    );
  });

  test("a sync duplicate gets the first run's answer, the same status and body (a sealed one too)", async () => {
    const env = await a.createEnvironment({ TOKEN: { value: 'tok-sealed-answer-1', secret: true } });
    const workflow = await a.createWorkflow([returnStep('answer', { order: '{{ initial.order }}', token: '{{ $env.TOKEN }}' }, 201)], { environment: env });
    const trigger = await a.createTrigger(workflow.id, {});
    const key = `sync-${Date.now()}`;
    const first = await post(trigger.path, { order: 7 }, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ order: 7, token: 'tok-sealed-answer-1' });
    await a.awaitEnd(first.headers['x-execution-id']);

    const again = await post(trigger.path, { order: 7 }, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-execution-id']).toBe(first.headers['x-execution-id']);
    expect(again.headers['x-delivery-duplicate']).toBe('true');
  });

  test('a sync duplicate while the run has not answered yet gets 202 naming the run', async () => {
    const gate = stub.gate();
    const trigger = await hook([httpStep('slow', { url: gate.url, method: 'GET', timeoutMs: 30_000 }), returnStep('answer', { done: true })]);
    const key = `slow-${Date.now()}`;
    // supertest sends when asked for the result: then() sends it now.
    const firstCall = post(trigger.path, {}, { 'Idempotency-Key': key }).then((res) => res);
    await gate.arrived;
    const second = await post(trigger.path, {}, { 'Idempotency-Key': key });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ status: 'running' });
    gate.open();
    const first = await firstCall;
    expect(first.status).toBe(200);
    expect(second.body.executionId).toBe(first.headers['x-execution-id']);
    expect(await runsOf(key)).toHaveLength(1);
  });

  test('20 concurrent duplicates, sync and async, start exactly one run and all name it', async () => {
    for (const steps of [[returnStep('answer', { ok: true })], [{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }]]) {
      const trigger = await hook(steps);
      const key = `race-${Date.now()}-${steps.length}-${Math.random()}`;
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(trigger.path, { race: true }, { 'Idempotency-Key': key })));
      const ids = new Set(answers.map((r) => r.headers['x-execution-id']));
      expect(ids.size).toBe(1);
      for (const r of answers) expect([200, 202]).toContain(r.status);
      expect(answers.filter((r) => r.headers['x-delivery-duplicate'] !== 'true').length).toBeGreaterThanOrEqual(1);
      const [id] = [...ids];
      await a.awaitEnd(id);
      expect(await runsOf(key)).toHaveLength(1);
      await eventually(
        () => temporalRuns(key),
        (n) => n === 1,
      );
    }
  });

  test('without the header every call starts its own run; deduplication off ignores the header', async () => {
    const trigger = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }]);
    const one = await post(trigger.path, {});
    const two = await post(trigger.path, {});
    expect(one.body.executionId).not.toBe(two.body.executionId);

    const off = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }], { deduplication: { enabled: false } });
    expect((off as unknown as { deduplication: unknown }).deduplication).toMatchObject({ enabled: false, deliveryId: null });
    const key = `off-${Date.now()}`;
    const x = await post(off.path, {}, { 'Idempotency-Key': key });
    const y = await post(off.path, {}, { 'Idempotency-Key': key });
    expect(x.body.executionId).not.toBe(y.body.executionId);
    expect(await runsOf(key)).toHaveLength(0);
  });

  test('the same id with another body is 409 delivery_id_reused: nothing starts and the first answer is not given away', async () => {
    const trigger = await hook([returnStep('answer', { order: '{{ initial.order }}' })]);
    const key = `reused-${Date.now()}`;
    const first = await post(trigger.path, { order: 1 }, { 'Idempotency-Key': key });
    expect(first.body).toEqual({ order: 1 });
    // The same JSON written differently is the same body.
    const respaced = await request(h.app).post(trigger.path).set('Content-Type', 'application/json').set('Idempotency-Key', key).send('{ "order" : 1 }');
    expect(respaced.body).toEqual({ order: 1 });
    const other = await post(trigger.path, { order: 2 }, { 'Idempotency-Key': key });
    expectError(other, 409, 'delivery_id_reused');
    expect(JSON.stringify(other.body)).not.toContain('"order"');
    expect(await runsOf(key)).toHaveLength(1);
  });

  test('an unusable delivery id is a 400 naming where it was read, and starts nothing', async () => {
    const trigger = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }], {
      deduplication: { deliveryId: { bodyField: 'event.id' } },
    });
    const res = await post(trigger.path, { event: { id: { nested: true } } });
    expectError(res, 400, 'invalid_delivery_id');
    expect(res.body.error.message).toContain("body's event.id");
    expectError(await post(trigger.path, { event: { id: 'x'.repeat(201) } }), 400, 'invalid_delivery_id');
    expect((await a.listExecutions({ triggerId: trigger.id })).total).toBe(0);
    // No id at all: the delivery starts a run like any other.
    expect((await post(trigger.path, { event: {} })).status).toBe(202);
  });
});

describe('the window', () => {
  test('a delivery id seen again after its window starts a new run under a new id; within it, still the first', async () => {
    const trigger = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }], { deduplication: { windowSeconds: 60 } });
    const key = `window-${Date.now()}`;
    const first = await post(trigger.path, {}, { 'Idempotency-Key': key });
    await a.awaitEnd(first.body.executionId);
    // The first delivery, moved two minutes into the past: its window has passed.
    await h.services.db.query(`UPDATE executions SET started_at = now() - interval '2 minutes' WHERE id = $1`, [first.body.executionId]);

    const later = await post(trigger.path, {}, { 'Idempotency-Key': key });
    expect(later.status).toBe(202);
    expect(later.body.executionId).not.toBe(first.body.executionId);
    expect(later.body.executionId).toBe(deliveryExecutionId(trigger.id, key, 1));
    const duplicate = await post(trigger.path, {}, { 'Idempotency-Key': key });
    expect(duplicate.body.executionId).toBe(later.body.executionId);
    expect((await runsOf(key)).map((e) => e.id).sort()).toEqual([first.body.executionId, later.body.executionId].sort());
  });

  test('a delivery whose run Temporal never accepted starts it when retried', async () => {
    const trigger = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }]);
    const key = `never-started-${Date.now()}`;
    const id = deliveryExecutionId(trigger.id, key, 0);
    // What a start refused by Temporal leaves: the execution, marked failed as not started.
    await h.services.executionsRepository.insert({
      id,
      organizationId: org.organizationId,
      workflowId: (await as(h.app, org.ownerToken).get(`/webhook-triggers/${trigger.id}`)).body.workflowId,
      workflowName: 'x',
      workflowVersion: 1,
      triggerId: trigger.id,
      triggerName: trigger.name,
      environmentId: null,
      mode: 'webhook',
      input: {},
      rerunOf: null,
      deliveryId: key,
    });
    await h.services.executionsRepository.finish(org.organizationId, id, 'failed', { message: NOT_STARTED_MESSAGE });

    const retry = await post(trigger.path, {}, { 'Idempotency-Key': key });
    expect(retry.status).toBe(202);
    expect(retry.body.executionId).toBe(id);
    expect(retry.headers['x-delivery-duplicate']).toBeUndefined();
    expect(await a.awaitEnd(id)).toMatchObject({ status: 'completed', error: null });
  });
});

describe('vendor presets', () => {
  test('github: X-GitHub-Delivery; stripe: the event id in the body', async () => {
    const ghSecret = 'gh-preset-secret';
    const gh = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }], {
      verification: { scheme: 'github' },
      signingSecret: ghSecret,
    });
    expect((gh as unknown as { deduplication: unknown }).deduplication).toMatchObject({ deliveryId: { header: 'X-GitHub-Delivery' }, preset: 'github' });
    const body = JSON.stringify({ action: 'opened' });
    const signature = await signGitHub({ secret: ghSecret, algorithm: 'sha256' }, body);
    const delivery = `72d3162e-cc78-11e3-81ab-${Date.now()}`;
    const send = () =>
      request(h.app).post(gh.path).set('Content-Type', 'application/json').set('X-Hub-Signature-256', signature).set('X-GitHub-Delivery', delivery).send(body);
    const [one, two] = [await send(), await send()];
    expect(two.body.executionId).toBe(one.body.executionId);
    expect(await runsOf(delivery)).toHaveLength(1);

    const stripeSecret = 'whsec_preset_secret_123';
    const st = await hook([returnStep('answer', { id: '{{ initial.id }}' })], { verification: { scheme: 'stripe' }, signingSecret: stripeSecret });
    const eventId = `evt_${Date.now()}`;
    const payload = JSON.stringify({ id: eventId, type: 'invoice.paid' });
    const stripe = new Stripe('sk_test_unused');
    // Stripe signs each retry afresh: a new timestamp and signature, the same event id.
    const deliveries = [0, 1].map((i) => ({
      'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: stripeSecret, timestamp: Math.floor(Date.now() / 1000) - i }),
    }));
    const answers = [];
    for (const headers of deliveries) answers.push(await request(h.app).post(st.path).set('Content-Type', 'application/json').set(headers).send(payload));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(answers[1].body).toEqual({ id: eventId });
    expect(answers[1].headers['x-execution-id']).toBe(answers[0].headers['x-execution-id']);
    expect(await runsOf(eventId)).toHaveLength(1);
  });

  test('the list filter is scoped: another organization sees none of these runs by their delivery id', async () => {
    const trigger = await hook([{ stepId: 'noop', stepType: 'core.set', input: { values: { one: 1 } } }]);
    const key = `scoped-${Date.now()}`;
    await post(trigger.path, {}, { 'Idempotency-Key': key });
    expect(await runsOf(key)).toHaveLength(1);
    const other = await createTestOrg(h.services);
    expect((await a.listExecutions({ deliveryId: key }, other.ownerToken)).total).toBe(0);
  });
});

describe('an API process without a worker of its own (update-with-start)', () => {
  test('10 concurrent starts of one delivery start one run; the others learn they are duplicates, and nothing is marked failed', async () => {
    const workflow = await a.createWorkflow([returnStep('answer', { ok: '{{ initial.n }}' })]);
    const trigger = await a.createTrigger(workflow.id, {});
    const { definition, version } = (await as(h.app, org.ownerToken).get(`/workflows/${workflow.id}`)).body;
    const steps = definition.steps;
    // A starter the worker never attached to: the path of `npm run start -- api` beside separate workers.
    const runs = new RunStarter(h.services.temporal.client, h.services.executionsRepository, h.services.config.temporal.taskQueue, h.services.logger);
    const key = `detached-${Date.now()}`;
    const executionId = deliveryExecutionId(trigger.id, key, 0);
    const request = {
      organizationId: org.organizationId,
      workflow: { id: workflow.id, name: workflow.name, version, steps },
      trigger: { id: trigger.id, name: trigger.name },
      environmentId: null,
      initial: { n: 5 },
      mode: 'webhook' as const,
      executionId,
      deliveryId: key,
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => runs.startAndAwaitReply(request, 30_000)));
    const answered = outcomes.filter((o) => o.status === 'fulfilled');
    expect(answered).toHaveLength(1);
    expect(answered[0].value).toMatchObject({ executionId, answer: { kind: 'response' } });
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect(o.reason).toBeInstanceOf(DuplicateStart);
    expect(await a.awaitEnd(executionId)).toMatchObject({ status: 'completed', deliveryId: key });
    // After the run closed: Temporal refuses the id again (REJECT_DUPLICATE).
    await expect(runs.startAndAwaitReply(request, 30_000)).rejects.toBeInstanceOf(DuplicateStart);
  });
});
