import request from 'supertest';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { returnStep, workflowApi, type WorkflowApi } from './workflow-api';
import { createDashboard, createSalesSource } from './dashboard-fixtures';

/**
 * The security review's bad-input findings, each as it was reproduced: a NUL
 * character or a body nested 20,000 levels in each field named there was a
 * 500. Each is now a 400 naming the path, before anything is written or
 * started; a webhook's payload is data the run is owed, so its unstorable
 * text is replaced (README "Bad input"). The route-wide version of these is
 * the hostile-input matrix.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
beforeAll(async () => {
  h = await startHarness();
  await h.startWorker();
  org = await createTestOrg(h.services, 'enterprise');
  a = workflowApi(h.app, org);
});
afterAll(() => h.close());

const NUL = 'a\u0000b';
const DEEP = 20_000;
/** JSON text with the placeholder string replaced by `levels` nested arrays. */
const deepJson = (body: unknown, levels = DEEP) => JSON.stringify(body).replace('"__deep__"', `${'['.repeat(levels)}${']'.repeat(levels)}`);
const owner = () => as(h.app, org.ownerToken);
const rawPost = (url: string, text: string) => owner().post(url).set('Content-Type', 'application/json').send(text);

/** Rows of the organization's run records: nothing may start when a call is refused. */
const executionCount = async () =>
  Number((await h.services.db.query(`SELECT count(*) AS n FROM executions WHERE organization_id = $1`, [org.organizationId]))[0].n);

test('a NUL character in any free-text field is a 400 naming it, not a 500', async () => {
  const workflow = await a.createWorkflow([returnStep('answer', { ok: true })]);
  const source = { body: await createSalesSource(h.app, org) };
  const dashboard = { body: await createDashboard(h.app, org) };
  const ended = await a.runAndWait(workflow.id);
  const cases: Array<[string, request.Test, string]> = [
    ['token name', owner().post('/tokens').send({ name: NUL }), 'name'],
    ['organization name', owner().patch('/organization').send({ name: NUL }), 'name'],
    ['new organization name', owner().post('/organizations').send({ name: NUL }), 'name'],
    ['dashboard name', owner().post('/dashboards').send({ name: NUL }), 'name'],
    ['dashboard description', owner().patch(`/dashboards/${dashboard.body.id}`).send({ description: NUL }), 'description'],
    [
      'widget title',
      owner()
        .post(`/dashboards/${dashboard.body.id}/widgets`)
        .send({ title: NUL, chartType: 'bar', dataSourceId: source.body.id, queryConfig: { measures: [] } }),
      'title',
    ],
    [
      'workflow description',
      owner()
        .post('/workflows')
        .send({ name: uniqueName('wf'), description: NUL, steps: [returnStep('r', {})] }),
      'description',
    ],
    [
      'core.set value',
      owner()
        .post('/workflows')
        .send({ name: uniqueName('wf'), steps: [{ stepId: 'v', stepType: 'core.set', input: { values: { x: NUL } } }] }),
      'steps.0.input.values.x',
    ],
    [
      'core.workflow input',
      owner()
        .post('/workflows')
        .send({ name: uniqueName('wf'), steps: [{ stepId: 'sub', stepType: 'core.workflow', input: { workflow: workflow.name, input: { note: NUL } } }] }),
      'steps.0.input.input.note',
    ],
    [
      'environment description',
      owner()
        .post('/environments')
        .send({ name: uniqueName('env'), description: NUL, variables: {} }),
      'description',
    ],
    ['data source name', owner().patch(`/dashboards/data-sources/${source.body.id}`).send({ name: NUL }), 'name'],
    [
      'package manifest',
      owner()
        .post('/packages')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ manifest: { name: 'kit', version: '1.0.0', description: NUL }, workflows: [] })),
      'manifest.description',
    ],
    [
      'schedule trigger initial',
      owner()
        .post(`/workflows/${workflow.id}/triggers`)
        .send({ type: 'schedule', name: uniqueName('s'), schedule: { intervalSeconds: 3600 }, initial: { note: NUL }, paused: true }),
      'initial.note',
    ],
    [
      'replayed output',
      owner()
        .post(`/executions/${ended.id}/replay`)
        .send({ fromStepId: 'answer', outputs: { before: { note: NUL } } }),
      'outputs.before.note',
    ],
    [
      'bulk replay filter',
      owner()
        .post('/executions/replay')
        .send({ filter: { workflowId: workflow.id, failedStepId: NUL }, fromStepId: 'answer' }),
      'filter.failedStepId',
    ],
  ];
  for (const [what, call, path] of cases) {
    const res = await call;
    const detail = res.body.error?.details?.[0];
    expect([what, res.status, res.body.error?.code, detail?.path, detail?.message]).toEqual([
      what,
      400,
      'validation_failed',
      path,
      'must not contain the NUL character (\\u0000)',
    ]);
  }
});

test('a body nested 20,000 levels is a 400 json_too_deep wherever it goes, and nothing is written or started', async () => {
  const workflow = await a.createWorkflow([returnStep('answer', { ok: true })]);
  const connections = await owner().get('/connections');
  const ended = await a.runAndWait(workflow.id);
  const runsBefore = await executionCount();
  const cases: Array<[string, string, unknown]> = [
    ['record insert', '/data-stores', { tableName: 'deep', key: 'k', value: { v: '__deep__' } }],
    ['record upsert', '/data-stores/tables/deep', { key: 'k', value: { v: '__deep__' } }],
    ['core.set value', '/workflows', { name: uniqueName('wf'), steps: [{ stepId: 'v', stepType: 'core.set', input: { values: { x: '__deep__' } } }] }],
    ['a run', `/workflows/${workflow.id}/runs`, { input: { x: '__deep__' } }],
    ['a test run', `/workflows/${workflow.id}/test`, { initial: { x: '__deep__' } }],
    ['a replayed output', `/executions/${ended.id}/replay`, { fromStepId: 'answer', outputs: { before: '__deep__' } }],
    ['custom connection config', '/connections', { name: uniqueName('c'), type: 'custom', config: { x: '__deep__' } }],
    [
      'schedule initial',
      `/workflows/${workflow.id}/triggers`,
      { type: 'schedule', name: uniqueName('s'), schedule: { intervalSeconds: 3600 }, initial: { x: '__deep__' } },
    ],
  ];
  for (const [what, url, body] of cases) {
    const res = await rawPost(url, deepJson(body));
    expect([what, res.status, res.body.error?.code, res.body.error?.details?.[0]?.message]).toEqual([
      what,
      400,
      'validation_failed',
      'nests deeper than 64 levels',
    ]);
  }
  expect(await executionCount()).toBe(runsBefore);
  expectError(await owner().get('/data-stores/tables/deep'), 404);
  expect((await owner().get('/connections')).body.total).toBe(connections.body.total);
});

describe('the public webhook', () => {
  test('a payload nested too deep is a 400 and starts nothing', async () => {
    const { path } = await a.createHook([returnStep('answer', '{{ initial }}')]);
    const before = await executionCount();
    const res = await request(h.app)
      .post(path)
      .set('Content-Type', 'application/json')
      .send(deepJson({ x: '__deep__' }));
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual([{ path: '(root)', message: 'nests deeper than 64 levels' }]);
    expect(await executionCount()).toBe(before);
  });

  test("NUL characters and unpaired surrogates in a payload are replaced with U+FFFD: the sender's delivery is accepted, the run sees the rest exactly", async () => {
    const { path } = await a.createHook([returnStep('answer', '{{ initial }}')]);
    const res = await request(h.app)
      .post(path)
      .set('Content-Type', 'application/json')
      .send('{"a":"x\\u0000y","b\\u0000":["\\ud800z",1],"c":"\\ud83d\\ude00"}');
    expectStatus(res, 200);
    expect(res.body).toEqual({ a: 'x\uFFFDy', ['b\uFFFD']: ['\uFFFDz', 1], c: '\u{1F600}' });
  });
});

test('the workflows a definition names and the executions filter by parent refuse malformed values, naming the field', async () => {
  const call = (stepInput: unknown) =>
    owner()
      .post('/workflows')
      .send({ name: uniqueName('wf'), steps: [{ stepId: 'sub', stepType: 'core.workflow', input: stepInput }] });
  const cases: Array<[string, request.Test, string]> = [
    ['core.workflow without a workflow', call({}), 'steps.0.input.workflow'],
    ['core.workflow naming a template', call({ workflow: '{{ initial.name }}' }), 'steps.0.input.workflow'],
    ['core.workflow wait as text', call({ workflow: 'x', wait: 'yes' }), 'steps.0.input.wait'],
    ['core.workflow input as a number', call({ workflow: 'x', input: 7 }), 'steps.0.input.input'],
    [
      'errorWorkflow of another type',
      owner()
        .post('/workflows')
        .send({ name: uniqueName('wf'), steps: [returnStep('r', {})], errorWorkflow: ['x'] }),
      'errorWorkflow',
    ],
    ['parentExecutionId too long', owner().get(`/executions?parentExecutionId=${'x'.repeat(101)}`), 'query.parentExecutionId'],
  ];
  for (const [what, pending, path] of cases) {
    const res = await pending;
    expect([what, res.status, res.body.error?.code, res.body.error?.details?.[0]?.path]).toEqual([what, 400, 'validation_failed', path]);
  }
});
