import request from 'supertest';
import { as, expectError, type Harness } from './harness';
import { createTestOrg, eventually, type TestOrg } from './factories';
import { echo, startHttpStub, type HttpStub } from './stubs/http-stub';
import { historyText, httpStep, returnStep, startWorkflowHarness, stepOf, type Execution, type WorkflowApi } from './workflow-api';

/** `core.wait`: timers, deadlines and events (the API and one-time resume links), on the real PostgreSQL and Temporal. */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: echo });
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const wait = (stepId: string, input: Record<string, unknown>) => ({ stepId, stepType: 'core.wait', input });
const set = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });
const approvalSchema = { type: 'object', required: ['approved'], properties: { approved: { type: 'boolean' }, by: { type: 'string' } } };

/** Starts a run (202) and returns its id once it waits. */
async function startWaiting(workflowId: string, input: Record<string, unknown> = {}): Promise<Execution> {
  const res = await as(h.app, org.ownerToken).post(`/workflows/${workflowId}/runs`).send({ input });
  expect(res.status).toBe(202);
  return eventually(
    () => a.readExecution(res.body.executionId),
    (e) => e.status !== 'running',
    20_000,
  );
}

const sendEvent = (executionId: string, name: string, payload: unknown, token = org.ownerToken) =>
  as(h.app, token)
    .post(`/executions/${executionId}/events/${name}`)
    .send(payload as object);

describe('event waits through the API', () => {
  test('a synchronous webhook caller hears at once that the run waits; an event that matches the schema resumes it and becomes the output', async () => {
    const { path, workflow } = await a.createHook([
      set('prepare', { order: '{{ initial.order }}' }),
      wait('approval', { event: { name: 'approved', schema: approvalSchema }, timeoutSeconds: 3600 }),
      returnStep('answer', { approved: '{{ approval.approved }}', by: '{{ approval.by }}' }),
    ]);
    const started = Date.now();
    const call = await request(h.app).post(path).send({ order: 7 });
    // Not after the sync timeout: as soon as the run parks.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(call.status).toBe(202);
    expect(call.body).toMatchObject({ status: 'waiting', waitingFor: { stepId: 'approval', event: 'approved' } });
    const id = call.body.executionId as string;

    const parked = await a.readExecution(id);
    expect(parked.status).toBe('waiting');
    expect(parked.waiting).toEqual([
      { stepId: 'approval', event: 'approved', schema: approvalSchema, until: expect.any(String), startedAt: expect.any(String) },
    ]);
    expect(Date.parse(parked.waiting![0].until) - Date.now()).toBeGreaterThan(3500_000);
    expect((await a.listExecutions({ workflowId: workflow.id, status: 'waiting' })).data.map((e) => e.id)).toEqual([id]);
    // Findable in the Temporal UI while it waits.
    const query = `WorkflowName="${workflow.name}" AND WaitingFor="event:approved"`;
    await eventually(
      async () => {
        const ids: string[] = [];
        for await (const run of h.services.temporal.client.workflow.list({ query })) ids.push(run.workflowId);
        return ids;
      },
      (ids) => ids.includes(id),
      20_000,
    );

    // The payload is checked against the step's schema before the run hears of it.
    const bad = await sendEvent(id, 'approved', { approved: 'yes' });
    expectError(bad, 400, 'invalid_payload');
    expect(bad.body.error.details).toEqual([{ path: 'payload.approved', message: 'must be boolean' }]);
    expectError(await sendEvent(id, 'approved', { by: 'ann' }), 400, 'invalid_payload');
    expectError(await sendEvent(id, 'rejected', { approved: true }), 409, 'not_waiting');

    const sent = await sendEvent(id, 'approved', { approved: true, by: 'ann' });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ executionId: id, stepId: 'approval', event: 'approved', status: 'resumed' });
    const done = await eventually(
      () => a.readExecution(id),
      (e) => e.status === 'completed',
      20_000,
    );
    expect(done.waiting).toBeUndefined();
    expect(stepOf(done, 'approval').output).toEqual({ approved: true, by: 'ann' });
    expect(stepOf(done, 'approval').input).toEqual({ event: 'approved', via: 'api' });
    expect(stepOf(done, 'answer').output.body).toEqual({ approved: true, by: 'ann' });
    // A second event finds nothing waiting.
    expectError(await sendEvent(id, 'approved', { approved: false }), 409, 'not_waiting');
  });

  test("an event needs workflows:admin; another organization's execution is a 404", async () => {
    const wf = await a.createWorkflow([wait('gate', { event: { name: 'go' } })]);
    const parked = await startWaiting(wf.id);
    expectError(await sendEvent(parked.id, 'go', {}, org.tokens.viewer), 403, 'missing_permission');
    const other = await createTestOrg(h.services);
    expectError(await sendEvent(parked.id, 'go', {}, other.ownerToken), 404, 'not_found');
    expect((await a.readExecution(parked.id)).status).toBe('waiting');
    await as(h.app, org.ownerToken).post(`/executions/${parked.id}/cancel`).expect(200);
    await eventually(
      () => a.readExecution(parked.id),
      (e) => e.status === 'cancelled',
      20_000,
    );
  });

  test('a timed-out event wait takes its onTimeout steps and goes on; without them the step fails', async () => {
    const withPath = await a.createWorkflow([
      wait('reply', { event: { name: 'reply' }, timeoutSeconds: 1, onTimeout: [set('reminder', { sent: true })] }),
      set('after', { timedOut: '{{ reply.timedOut }}', reminded: '{{ reminder.sent }}' }),
    ]);
    const failing = await a.createWorkflow([wait('reply', { event: { name: 'reply' }, timeoutSeconds: 1 }), set('never', { x: 1 })]);
    const [tookPath, failed] = await Promise.all([startWaiting(withPath.id), startWaiting(failing.id)]);
    const ended = await eventually(
      () => a.readExecution(tookPath.id),
      (e) => e.status === 'completed',
      30_000,
    );
    expect(stepOf(ended, 'after').output).toEqual({ timedOut: true, reminded: true });
    const gone = await eventually(
      () => a.readExecution(failed.id),
      (e) => e.status === 'failed',
      30_000,
    );
    expect(gone.error).toEqual({ stepId: 'reply', code: 'WaitTimedOut', message: expect.stringContaining('No event "reply" came within 1 seconds') });
    expect(gone.steps.map((s) => s.stepId)).toEqual(['reply']);
  });
});

test('a run that answered and then parked: its awaiting caller hears waiting as soon as it parks, not at the sync timeout', async () => {
  const wf = await a.createWorkflow([
    { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { ok: true } } } },
    wait('gate', { event: { name: 'go' } }),
  ]);
  const started = Date.now();
  const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {}, wait: true });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'waiting' });
  // The sync timeout is 30 s: heard well before it, from the run itself.
  expect(Date.now() - started).toBeLessThan(10_000);
  await as(h.app, org.ownerToken).post(`/executions/${res.body.executionId}/events/go`).send({}).expect(202);
});

test('a run waited for through the API answers 202 waiting as soon as it parks, not at the sync timeout', async () => {
  const wf = await a.createWorkflow([wait('gate', { event: { name: 'go' } })]);
  const started = Date.now();
  const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {}, wait: true });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ executionId: expect.any(String), status: 'waiting' });
  expect(Date.now() - started).toBeLessThan(10_000);
  const tested = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/test`).send({});
  expect(tested.status).toBe(202);
  expect(tested.body.status).toBe('waiting');
  await as(h.app, org.ownerToken).post(`/executions/${res.body.executionId}/events/go`).send({}).expect(202);
});

describe('timers', () => {
  test('seconds and a templated until park the run, then it goes on; an until in the past does not wait; a bad until fails the step', async () => {
    const wf = await a.createWorkflow([
      wait('pause', { seconds: 1 }),
      wait('deadline', { until: '{{ initial.at }}' }),
      wait('past', { until: '2020-01-01T00:00:00Z' }),
      set('done', { ok: true }),
    ]);
    const at = new Date(Date.now() + 2_500).toISOString();
    const parked = await startWaiting(wf.id, { at });
    expect(parked.status).toBe('waiting');
    expect(parked.waiting![0]).toMatchObject({ stepId: 'pause', event: null, schema: null });
    const done = await eventually(
      () => a.readExecution(parked.id),
      (e) => e.status === 'completed',
      30_000,
    );
    expect(Date.parse(stepOf(done, 'deadline').output.resumedAt)).toBeGreaterThanOrEqual(Date.parse(at));
    expect(stepOf(done, 'past').output).toEqual({ resumedAt: expect.any(String) });

    const broken = await a.createWorkflow([wait('deadline', { until: 'tomorrow at nine' })]);
    const failed = await a.runAndWait(broken.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('until must be an ISO 8601 instant with a time zone');
  });
});

describe('resume links', () => {
  test('an http step sends the link before the wait; the link resumes the run once, answering with the next return; records and history mask it', async () => {
    const { path } = await a.createHook([
      httpStep('notify', { url: `${stub.url}/slack`, method: 'POST', body: { text: 'Approve: {{ $resume.approval }}' } }),
      wait('approval', { event: { name: 'approved', schema: approvalSchema } }),
      returnStep('answer', { decision: '{{ approval.approved }}' }, 201),
      set('later', { after: true }),
    ]);
    const call = await request(h.app).post(path).send({});
    expect(call.status).toBe(202);
    const id = call.body.executionId as string;
    const posted = JSON.parse(stub.calls('/slack').at(-1)!.body) as { text: string };
    const link = new URL(posted.text.replace('Approve: ', ''));
    expect(link.pathname).toMatch(/^\/resume\/[A-Za-z0-9_-]{43}$/);

    // What a holder learns from a wrong call: nothing about the run.
    const get = await request(h.app).get(link.pathname);
    expect(get.status).toBe(404);
    expect(JSON.stringify(get.body)).not.toContain(id);
    const wrong = await request(h.app).post(link.pathname).send({ approved: 'maybe' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: { code: 'invalid_payload', message: 'The payload was refused', requestId: expect.any(String) } });
    expect(wrong.headers['x-execution-id']).toBeUndefined();
    const forged = await request(h.app)
      .post(`/resume/${'A'.repeat(43)}`)
      .send({ approved: true });
    expect(forged.status).toBe(404);
    expect(forged.body.error).toMatchObject({ code: 'not_found', message: 'Not found' });

    // Paths match as written: the link in capitals is an unknown path, and the run still waits for the real one.
    const shouted = await request(h.app).post(link.pathname.replace('/resume/', '/RESUME/')).send({ approved: false, by: 'shouting' });
    expect(shouted.status).toBe(404);
    expect(shouted.body.error).toMatchObject({ code: 'route_not_found' });
    expect((await a.readExecution(id)).status).toBe('waiting');

    // Concurrent callers: one resumes the run, the others find the link used.
    const calls = await Promise.all([1, 2, 3].map(() => request(h.app).post(link.pathname).send({ approved: true, by: 'link' })));
    const winners = calls.filter((c) => c.status === 201);
    expect(winners).toHaveLength(1);
    expect(winners[0].body).toEqual({ decision: true });
    expect(calls.filter((c) => c.status === 404)).toHaveLength(2);
    expect((await request(h.app).post(link.pathname).send({ approved: true })).status).toBe(404);

    const done = await eventually(
      () => a.readExecution(id),
      (e) => e.status === 'completed',
      20_000,
    );
    expect(stepOf(done, 'approval').input).toEqual({ event: 'approved', via: 'link' });
    const token = link.pathname.split('/').pop()!;
    expect(JSON.stringify(done)).not.toContain(token);
    expect(stepOf(done, 'notify').input.body).toEqual({ text: 'Approve: [secret]' });
    expect(await historyText(h.services.temporal.client, id)).not.toContain(token);
  });

  test('a definition naming a resume link of no event wait is refused naming the field', async () => {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({
        name: 'resume-typo',
        steps: [httpStep('notify', { url: `${stub.url}/x?l={{ $resume.aproval }}` }), wait('approval', { event: { name: 'ok' } })],
      });
    expectError(res, 400, 'invalid_definition');
    expect(res.body.error.details).toEqual([
      { path: 'steps.0.input.url', message: 'reads $resume.aproval, but no core.wait step with an event has the id "aproval"' },
    ]);
  });
});
