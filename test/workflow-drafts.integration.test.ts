import { as, expectError, type Harness } from './harness';
import type { TestOrg } from './factories';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';

/**
 * Drafts (issue 39): a person's draft saved as they edit, published as the
 * next version; one step tested through Temporal with the steps before it
 * taken from pins or from a run (the vendor is not called again); the whole
 * draft tested without publishing.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let served = 0;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (_req, res) => sendJson(res, 404, {}) });
  // Each call answers a new number: a step that took its input from a pin shows the pinned one, not a fresh call's.
  stub.on('/count', (_req, res) => sendJson(res, 200, { n: ++served, items: ['a', 'b'] }));
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const owner = () => as(h.app, org.ownerToken);
const set = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });
const calls = () => stub.calls('/count').length;

/** A workflow whose draft fetches a count, then shapes it. */
async function draftOf(extra: unknown[] = []) {
  const wf = await a.createWorkflow([set('hello', { v: 1 })]);
  const definition = {
    name: wf.name,
    description: 'draft',
    steps: [
      httpStep('fetch', { url: `${stub.url}/count` }),
      set('shape', { doubled: '{{ fetch.body.n | times: 2 }}', first: '{{ fetch.body.items[0] }}' }),
      ...extra,
    ],
    initial: { who: 'ada' },
  };
  const saved = await owner().put(`/workflows/${wf.id}/draft`).send({ baseVersion: 1, definition });
  expect(saved.status).toBe(200);
  return { wf, definition };
}

test('a draft is kept as written, per person, and publishing makes it the next version and ends it', async () => {
  const { wf, definition } = await draftOf();
  const read = await owner().get(`/workflows/${wf.id}/draft`);
  expect(read.status).toBe(200);
  // Key order as sent, at every depth (description after steps, input after stepType).
  expect(JSON.stringify(read.body.definition)).toBe(JSON.stringify(definition));
  expect(read.body).toMatchObject({ workflowId: wf.id, baseVersion: 1, pins: {}, others: [] });

  // Another editor has a draft of their own, and each sees that the other edits it.
  expectError(await as(h.app, org.tokens.admin).get(`/workflows/${wf.id}/draft`), 404, 'not_found');
  await as(h.app, org.tokens.admin)
    .put(`/workflows/${wf.id}/draft`)
    .send({ baseVersion: 1, definition: { name: wf.name, steps: [set('mine', { v: 2 })] } })
    .expect(200);
  expect((await owner().get(`/workflows/${wf.id}/draft`)).body.others).toEqual([{ email: expect.stringContaining('admin-'), updatedAt: expect.any(String) }]);
  expect((await owner().get(`/workflows/${wf.id}`)).body.version).toBe(1);

  const published = await owner().post(`/workflows/${wf.id}/draft/publish`).send({});
  expect(published.status).toBe(200);
  expect(published.body.version).toBe(2);
  expect(published.body.definition.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['fetch', 'shape']);
  expectError(await owner().get(`/workflows/${wf.id}/draft`), 404, 'not_found');

  // The admin's draft started from version 1: publishing it over version 2 needs force.
  expectError(await as(h.app, org.tokens.admin).post(`/workflows/${wf.id}/draft/publish`).send({}), 409, 'draft_outdated');
  const forced = await as(h.app, org.tokens.admin).post(`/workflows/${wf.id}/draft/publish`).send({ force: true });
  expect(forced.status).toBe(200);
  expect(forced.body).toMatchObject({ version: 3, definition: { steps: [{ stepId: 'mine' }] } });
});

test('an unfinished draft saves; publishing it is refused at the fields it gets wrong, and the draft stays', async () => {
  const wf = await a.createWorkflow([set('hello', { v: 1 })]);
  const definition = { name: wf.name, steps: [{ stepId: 'call', stepType: 'core.http', input: { method: 'GET' } }] };
  await owner().put(`/workflows/${wf.id}/draft`).send({ baseVersion: 1, definition }).expect(200);
  const refused = await owner().post(`/workflows/${wf.id}/draft/publish`).send({});
  expectError(refused, 400, 'invalid_definition');
  expect(refused.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'steps.0.input.url' })]));
  expect((await owner().get(`/workflows/${wf.id}/draft`)).body.definition).toEqual(definition);
  expect((await owner().get(`/workflows/${wf.id}`)).body.version).toBe(1);
  expectError(await owner().put(`/workflows/${wf.id}/draft`).send({ baseVersion: 9, definition }), 400);
});

test('a step is tested through Temporal; its pinned output feeds the next step without calling the vendor again', async () => {
  const { wf } = await draftOf();
  const before = calls();
  const fetched = await owner().post(`/workflows/${wf.id}/draft/steps/fetch/test`).send({});
  expect(fetched.status).toBe(200);
  expect(fetched.body).toMatchObject({ mode: 'test', draft: true, status: 'completed', workflowVersion: 1, missing: [] });
  expect(calls()).toBe(before + 1);
  const n = stepOf(fetched.body, 'fetch').output.body.n;
  expect(fetched.body.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['fetch']);

  // Pin the tested output (as recorded by the test run), then test the step after it.
  const pinned = await owner().put(`/workflows/${wf.id}/draft/pins/fetch`).send({ executionId: fetched.body.id });
  expect(pinned.status).toBe(200);
  expect(pinned.body.pins.fetch).toMatchObject({ output: { body: { n } }, from: { executionId: fetched.body.id } });
  const shaped = await owner().post(`/workflows/${wf.id}/draft/steps/shape/test`).send({});
  expect(shaped.status).toBe(200);
  expect(calls()).toBe(before + 1);
  expect(stepOf(shaped.body, 'shape').output).toEqual({ doubled: n * 2, first: 'a' });
  expect(shaped.body.missing).toEqual([]);

  // Without the pin and without a run to take it from, the earlier step is named as missing.
  await owner().delete(`/workflows/${wf.id}/draft/pins/fetch`).expect(200);
  const bare = await owner().post(`/workflows/${wf.id}/draft/steps/shape/test`).send({});
  expect(bare.body.missing).toEqual(['fetch']);
  expect(calls()).toBe(before + 1);

  // From a run: its recorded output is taken, and its input is the test's initial.
  const run = await a.runAndWait(wf.id, {});
  // Version 1 has no fetch step: its run recorded none, so the step after it has nothing to take.
  const fromRun = await owner().post(`/workflows/${wf.id}/draft/steps/shape/test`).send({ executionId: run.id });
  expect(fromRun.body.missing).toEqual(['fetch']);
  await owner().post(`/workflows/${wf.id}/draft/publish`).send({}).expect(200);
  const published = await a.runAndWait(wf.id, {});
  expect(calls()).toBe(before + 2);
  await owner()
    .put(`/workflows/${wf.id}/draft`)
    .send({ baseVersion: 2, definition: (await owner().get(`/workflows/${wf.id}`)).body.definition })
    .expect(200);
  const replayed = await owner().post(`/workflows/${wf.id}/draft/steps/shape/test`).send({ executionId: published.id });
  expect(replayed.status).toBe(200);
  expect(replayed.body.missing).toEqual([]);
  expect(stepOf(replayed.body, 'shape').output.doubled).toBe(stepOf(published, 'fetch').output.body.n * 2);
  expect(calls()).toBe(before + 2);
});

test('the whole draft is tested without publishing; its run is marked draft and has no version to run again', async () => {
  const { wf } = await draftOf([
    { stepId: 'done', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { n: '{{ shape.doubled }}' } } } },
  ]);
  const tested = await owner()
    .post(`/workflows/${wf.id}/draft/test`)
    .send({ initial: { who: 'grace' } });
  expect(tested.status).toBe(200);
  expect(tested.body).toMatchObject({ mode: 'test', draft: true, status: 'completed', input: { who: 'grace' } });
  expect(tested.body.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['fetch', 'shape', 'done']);
  expect((await owner().get(`/workflows/${wf.id}`)).body.version).toBe(1);
  expectError(await owner().post(`/executions/${tested.body.id}/rerun`).send({ definition: 'original' }), 409, 'draft_run');
  // A step inside a loop body is tested with its loop.
  await owner()
    .put(`/workflows/${wf.id}/draft`)
    .send({
      baseVersion: 1,
      definition: { name: wf.name, steps: [{ stepId: 'each', stepType: 'core.loop', input: { items: [1, 2], steps: [set('inner', { v: '{{ item }}' })] } }] },
    })
    .expect(200);
  const inner = await owner().post(`/workflows/${wf.id}/draft/steps/inner/test`).send({});
  expectError(inner, 400);
  expect(inner.body.error.details[0]).toMatchObject({ path: 'stepId', message: expect.stringContaining('test the core.loop step') });
  const loop = await owner().post(`/workflows/${wf.id}/draft/steps/each/test`).send({});
  expect(stepOf(loop.body, 'each').output).toMatchObject({ count: 2, results: [{ v: 1 }, { v: 2 }] });
});

test("a step named like every object's own property (constructor) is refused at its field, in a test and as a pin", async () => {
  const wf = await a.createWorkflow([set('hello', { v: 1 })]);
  const definition = { name: wf.name, steps: [set('constructor', { v: 2 }), set('after', { got: '{{ constructor.v }}' })] };
  await owner().put(`/workflows/${wf.id}/draft`).send({ baseVersion: 1, definition }).expect(200);
  expectError(await owner().put(`/workflows/${wf.id}/draft/pins/constructor`).send({ output: {} }), 400);
  expectError(await owner().delete(`/workflows/${wf.id}/draft/pins/constructor`), 400);
  const refused = await owner().post(`/workflows/${wf.id}/draft/steps/after/test`).send({});
  expectError(refused, 400, 'invalid_definition');
  expect(refused.body.error.details).toEqual([expect.objectContaining({ path: 'steps.0.stepId' })]);
});
