import request from 'supertest';
import { as, expectError, quietTemporalRuntime, type Harness } from './harness';
import { reply, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type Trigger, workflowApi, type WorkflowApi } from './workflow-api';
import { createTestOrg, type TestOrg } from './factories';

/**
 * GET /executions by mode and by trigger, with the other filters; how each
 * start path presents its run in Temporal (static summary and details); and
 * where an execution says its run is in Temporal. Real runs on the real stack.
 */

const UI_URL = 'http://temporal-ui.test:8233';

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  // Failed runs are expected here; the worker's WARN lines about them are noise.
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub();
  stub.on('/fail', reply(500, { error: 'boom' }));
  ({ h, org, a } = await startWorkflowHarness(stub, { configure: (config) => (config.temporal.uiUrl = UI_URL) }));
});
afterAll(async () => {
  stub?.openGates();
  await h?.close();
  await stub?.close();
});

/** Fails at its first step when `initial.fail` is true, else answers. */
const failOnDemand = () => [
  { stepId: 'check', stepType: 'core.if', input: { condition: 'initial.fail == true', then: [httpStep('boom', { url: `${stub.url}/fail` })] } },
  returnStep('answer', { ok: true }),
];

/** Calls a webhook trigger (its run answers or fails before the caller returns); the ended execution's id. */
async function callHook(trigger: Trigger, body: Record<string, unknown> = {}, api = a): Promise<string> {
  const res = await request(h.app).post(trigger.path).send(body);
  const id = res.headers['x-execution-id'] as string;
  expect(id).toEqual(expect.any(String));
  await api.awaitEnd(id);
  return id;
}

const ids = (list: { data: Array<{ id: string }> }) => list.data.map((e) => e.id);
const describeRun = (id: string) => h.services.temporal.client.workflow.getHandle(id).describe();

describe('filtering by mode and trigger', () => {
  let wf: { id: string; name: string };
  let hookA: Trigger;
  let hookB: Trigger;
  const runs: Record<'hookA1' | 'hookA2Failed' | 'hookB' | 'api' | 'test' | 'rerun', string> = {} as never;

  beforeAll(async () => {
    wf = await a.createWorkflow(failOnDemand());
    hookA = await a.createTrigger(wf.id);
    hookB = await a.createTrigger(wf.id);
    runs.hookA1 = await callHook(hookA);
    runs.hookA2Failed = await callHook(hookA, { fail: true });
    runs.hookB = await callHook(hookB);
    runs.api = (await a.runAndWait(wf.id)).id;
    runs.test = (await a.testRun(wf.id)).id;
    const rerun = await as(h.app, org.ownerToken).post(`/executions/${runs.hookA1}/rerun`).send({});
    expect(rerun.status).toBe(202);
    runs.rerun = rerun.body.executionId;
    await a.awaitEnd(runs.rerun);
  });

  test('mode lists only the runs started that way, each with that mode, newest first', async () => {
    const webhook = await a.listExecutions({ workflowId: wf.id, mode: 'webhook' });
    expect(ids(webhook)).toEqual([runs.hookB, runs.hookA2Failed, runs.hookA1]);
    expect(webhook.total).toBe(3);
    expect(webhook.data.every((e) => e.mode === 'webhook')).toBe(true);
    expect(ids(await a.listExecutions({ workflowId: wf.id, mode: 'api' }))).toEqual([runs.api]);
    expect(ids(await a.listExecutions({ workflowId: wf.id, mode: 'test' }))).toEqual([runs.test]);
    expect(ids(await a.listExecutions({ workflowId: wf.id, mode: 'rerun' }))).toEqual([runs.rerun]);
    expect(await a.listExecutions({ workflowId: wf.id, mode: 'schedule' })).toEqual({ total: 0, data: [] });
  });

  test("triggerId lists that trigger's runs (and reruns of them), not another trigger's, nor runs started through the API", async () => {
    const ofA = await a.listExecutions({ triggerId: hookA.id });
    expect(ids(ofA)).toEqual([runs.rerun, runs.hookA2Failed, runs.hookA1]);
    expect(ofA.data.every((e) => e.trigger?.id === hookA.id && e.trigger.name === hookA.name)).toBe(true);
    expect(ids(await a.listExecutions({ triggerId: hookB.id }))).toEqual([runs.hookB]);
  });

  test('the filters combine: trigger and mode, trigger and status, with paging counting every match', async () => {
    expect(ids(await a.listExecutions({ triggerId: hookA.id, mode: 'webhook' }))).toEqual([runs.hookA2Failed, runs.hookA1]);
    expect(ids(await a.listExecutions({ triggerId: hookA.id, mode: 'rerun' }))).toEqual([runs.rerun]);
    expect(ids(await a.listExecutions({ triggerId: hookA.id, status: 'failed' }))).toEqual([runs.hookA2Failed]);
    expect(ids(await a.listExecutions({ triggerId: hookA.id, mode: 'webhook', status: 'completed' }))).toEqual([runs.hookA1]);
    expect(await a.listExecutions({ triggerId: hookB.id, status: 'failed' })).toEqual({ total: 0, data: [] });
    const page = await a.listExecutions({ triggerId: hookA.id, mode: 'webhook', limit: '1', offset: '1' });
    expect(page).toEqual({ total: 2, data: [expect.objectContaining({ id: runs.hookA1 })] });
  });

  test('the filters combine with the start time', async () => {
    const first = await a.readExecution(runs.hookA1);
    const second = await a.readExecution(runs.hookA2Failed);
    expect(ids(await a.listExecutions({ triggerId: hookA.id, mode: 'webhook', startedAfter: second.startedAt }))).toEqual([runs.hookA2Failed]);
    expect(ids(await a.listExecutions({ triggerId: hookA.id, startedBefore: second.startedAt }))).toEqual([first.id]);
  });

  test('a bad mode or trigger id is a 400 naming the field', async () => {
    for (const [query, field] of [
      ['mode=cron', 'query.mode'],
      ['mode=WEBHOOK', 'query.mode'],
      ['triggerId=hook-a', 'query.triggerId'],
      [`triggerId=${hookA.id}x`, 'query.triggerId'],
      [`triggerId=${hookA.name}`, 'query.triggerId'],
    ]) {
      const res = await as(h.app, org.ownerToken).get(`/executions?${query}`);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    }
  });

  describe('another organization', () => {
    let stranger: TestOrg;
    beforeAll(async () => {
      stranger = await createTestOrg(h.services);
    });

    test("filtering by this organization's trigger matches nothing, whatever the mode", async () => {
      expect(await a.listExecutions({ triggerId: hookA.id }, stranger.ownerToken)).toEqual({ total: 0, data: [] });
      expect(await a.listExecutions({ triggerId: hookA.id, mode: 'webhook' }, stranger.ownerToken)).toEqual({ total: 0, data: [] });
    });

    test("the organization's own trigger filter never reaches the stranger's runs", async () => {
      const theirs = workflowApi(h.app, stranger);
      const strangerWf = await theirs.createWorkflow([returnStep('answer', { ok: true })]);
      const strangerHook = await theirs.createTrigger(strangerWf.id);
      const strangerRun = await callHook(strangerHook, {}, theirs);
      expect(ids(await a.listExecutions({ triggerId: strangerHook.id }))).toEqual([]);
      expect(ids(await a.listExecutions({ mode: 'webhook', limit: '1000' }))).not.toContain(strangerRun);
      expect(ids(await a.listExecutions({ triggerId: strangerHook.id }, stranger.ownerToken))).toEqual([strangerRun]);
    });
  });

  describe('in Temporal, every start path summarizes its run the same way', () => {
    const orgId = () => org.organizationId;
    const named = () => `org ${orgId()}`;

    test('a webhook call: workflow, version, mode, trigger, organization', async () => {
      const description = await describeRun(runs.hookA1);
      expect(await description.staticSummary()).toBe(`${wf.name} v1 (webhook, trigger ${hookA.name}, ${named()})`);
      const details = await description.staticDetails();
      expect(details).toContain(`Workflow: ${wf.name} (${wf.id}), version 1`);
      expect(details).toContain(`Trigger: ${hookA.name} (${hookA.id})`);
      expect(details).toContain(`Organization: ${orgId()}`);
    });

    test('API runs and test runs: no trigger', async () => {
      expect(await (await describeRun(runs.api)).staticSummary()).toBe(`${wf.name} v1 (api, ${named()})`);
      expect(await (await describeRun(runs.test)).staticSummary()).toBe(`${wf.name} v1 (test, ${named()})`);
    });

    test('a rerun: its original trigger, and in the details the execution it reruns', async () => {
      const description = await describeRun(runs.rerun);
      expect(await description.staticSummary()).toBe(`${wf.name} v1 (rerun, trigger ${hookA.name}, ${named()})`);
      expect(await description.staticDetails()).toContain(`Started by: a rerun of execution ${runs.hookA1}`);
    });

    test('no secret reaches the summary or details', async () => {
      const secretHook = await a.createTrigger(wf.id, { authentication: true });
      expect(secretHook.secret).toEqual(expect.any(String));
      const res = await request(h.app).post(secretHook.path).set('Authorization', `Bearer ${secretHook.secret}`).send({});
      const id = res.headers['x-execution-id'] as string;
      await a.awaitEnd(id);
      const description = await describeRun(id);
      expect(await description.staticSummary()).toBe(`${wf.name} v1 (webhook, trigger ${secretHook.name}, ${named()})`);
      expect(await description.staticDetails()).not.toContain(secretHook.secret!);
    });
  });
});

describe("an execution's place in Temporal", () => {
  test('GET /executions/{id} names the namespace and workflow id, and links the run in the Web UI', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { ok: true })]);
    const ran = await a.runAndWait(wf.id);
    const namespace = h.services.temporal.client.options.namespace;
    const expected = {
      namespace,
      workflowId: ran.id,
      runId: null,
      url: `${UI_URL}/namespaces/${namespace}/workflows/${encodeURIComponent(ran.id)}`,
    };
    expect((await a.readExecution(ran.id)).temporal).toEqual(expected);
    // The answer of a run waited for is the same execution.
    expect(ran.temporal).toEqual(expected);
    // The execution id is the workflow id Temporal knows.
    expect((await describeRun(expected.workflowId)).status.name).toBe('COMPLETED');
  });

  test('a read that asks Temporal about a running run names the run id too', async () => {
    const held = stub.gate();
    const wf = await a.createWorkflow([httpStep('wait', { url: held.url })]);
    const res = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({});
    expect(res.status).toBe(202);
    const id: string = res.body.executionId;
    await held.arrived;
    const read = await a.readExecution(id);
    expect(read.status).toBe('running');
    const { runId } = await describeRun(id);
    expect(read.temporal).toEqual({
      namespace: h.services.temporal.client.options.namespace,
      workflowId: id,
      runId,
      url: `${UI_URL}/namespaces/${h.services.temporal.client.options.namespace}/workflows/${encodeURIComponent(id)}/${runId}`,
    });
    held.open();
    await a.awaitEnd(id);
  });
});
