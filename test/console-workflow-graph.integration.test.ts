import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { workflowApi, type WorkflowApi } from './workflow-api';

/**
 * The workflow graph in a real Chromium (issue 39): a workflow built with the
 * mouse and called through its webhook; branches and a loop added on the
 * graph; a step tested, its output pinned and the next step tested from the
 * pin (the stub counts the calls); a failed run drawn on its graph and
 * replayed from the failed node; a viewer's read-only graph; a step added
 * with the keyboard alone.
 */

let stack: ConsoleStack;
let stub: HttpStub;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;
let served = 0;

const set = (stepId: string, values: Record<string, unknown>) => ({ stepId, stepType: 'core.set', input: { values } });
const owner = () => as(stack.harness.app, org.ownerToken);
const node = (p: Page, id: string) => p.locator(`.react-flow__node[data-id="${id}"]`);

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (_req, res) => sendJson(res, 404, {}) });
  stub.on('/count', (_req, res) => sendJson(res, 200, { n: ++served }));
  stack = await startConsoleStack({ httpAllowList: [stub.host] });
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(async () => {
  await stack?.close();
  await stub?.close();
});

test("the README's hello workflow, built with the mouse on the graph, answers its webhook", async () => {
  const name = uniqueName('hello');
  await page.goto('/console/workflows/new');
  await node(page, 'greeting').waitFor();
  await page.locator('#field-_name').fill(name);
  await page.locator('#field-_description').fill('Says hello');

  await node(page, 'greeting').click();
  await page.locator('#step-id').fill('greet');
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByRole('status').filter({ hasText: 'Renamed greeting to greet; 1 template now reads greet' }).waitFor();
  const values = page.getByRole('group', { name: 'values' });
  await values.getByLabel('Name 1').fill('text');
  await page.locator('#field-steps_0_input_values-0').fill('Hello, {{ initial.name }}!');

  await node(page, 'reply').click();
  const body = page.locator('#field-steps_1_input_webhookResponse_body');
  await body.fill('{ "greeting": "{{ greet.text }}" }');
  await body.blur();
  await screenshot(page, 'workflow-graph-new');
  expect(await accessibilityViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Create workflow' }).click();
  await page.getByRole('heading', { name }).waitFor();
  const id = new URL(page.url()).pathname.split('/').pop()!;
  await page.getByRole('tab', { name: 'Triggers' }).click();
  await page.getByLabel('New trigger name').fill('hello');
  // As the README's: no token needed to call it.
  await page.getByLabel('Require a secret').uncheck();
  await page.getByRole('button', { name: 'Add webhook trigger' }).click();
  await page.getByRole('listitem', { name: 'Webhook hello' }).waitFor();

  const answer = await request(stack.harness.app).post(`/w/@${org.organizationSuid}/hello`).send({ name: 'Ada' });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ greeting: 'Hello, Ada!' });
  const saved = (await owner().get(`/workflows/${id}`)).body;
  expect(saved.definition.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['greet', 'reply']);
});

test('branches and a loop are added on the graph and published', async () => {
  const wf = await a.createWorkflow([set('start', { amount: 5 })]);
  await page.goto(`/console/workflows/${wf.id}`);
  await node(page, 'start').waitFor();
  // The editor (not a read-only view) is up: its draft has loaded.
  await page.getByRole('button', { name: 'Publish', exact: true }).waitFor();

  const add = async (after: string, label: string) => {
    await page
      .getByRole('button', { name: after })
      .click({ timeout: 20_000 })
      .catch(async (error: Error) => {
        // What the graph held when the button was not there: its screenshot, and the nodes and edges drawn.
        await screenshot(page, 'workflow-graph-insert-missing');
        const drawn = await page.evaluate(() =>
          [...(globalThis as any).document.querySelectorAll('.react-flow__node, .react-flow__edge, .graph-insert')].map(
            (e: any) => `${e.className.baseVal ?? e.className} ${e.dataset?.id ?? e.getAttribute('aria-label') ?? ''}`,
          ),
        );
        throw new Error(`${error.message}\ndrawn: ${drawn.join(' | ')}`);
      });
    const palette = page.getByRole('dialog', { name: /Add a step after/ });
    await palette.getByRole('button', { name: new RegExp(`^${label}`) }).click();
    await palette.waitFor({ state: 'detached' });
  };
  await add('Add a step after start', 'Branch \\(if\\)');
  await node(page, 'check').waitFor();
  await add('Add a step after check (then)', 'Set values');
  await add('Add a step after check (else)', 'Set values');
  await add('Add a step after the branches', 'Loop over items');
  await node(page, 'each').waitFor();
  await screenshot(page, 'workflow-graph-branches');
  expect(await accessibilityViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await page.getByText('version 2 · updated').waitFor();
  const steps = (await owner().get(`/workflows/${wf.id}`)).body.definition.steps;
  expect(steps).toMatchObject([
    { stepId: 'start' },
    { stepId: 'check', stepType: 'core.if', input: { then: [{ stepId: 'values', stepType: 'core.set' }], else: [{ stepId: 'values_2' }] } },
    { stepId: 'each', stepType: 'core.loop', input: { steps: [{ stepId: 'item_value' }] } },
  ]);
});

test('a step is tested and pinned; the next step tests from the pin without calling the vendor again', async () => {
  const wf = await a.createWorkflow([
    { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/count` } },
    set('shape', { doubled: '{{ fetch.body.n | times: 2 }}' }),
  ]);
  await page.goto(`/console/workflows/${wf.id}`);
  await node(page, 'fetch').click();
  const before = stub.calls('/count').length;
  await page.getByRole('button', { name: 'Test fetch' }).click();
  const tested = page.locator('pre[aria-label="Tested output of fetch"]');
  await tested.waitFor();
  expect(stub.calls('/count').length).toBe(before + 1);
  const n = JSON.parse(await tested.innerText()).body.n as number;
  await page.getByRole('button', { name: 'Pin this output' }).click();
  await node(page, 'fetch').getByText('pinned').waitFor();

  await node(page, 'shape').click();
  // Field completion reads the tested output's fields.
  const field = page.locator('#field-steps_1_input_values-0');
  await field.fill('{{ fetch.bo');
  await page.getByRole('option', { name: /^fetch\.body\.n/ }).waitFor();
  await field.press('Escape');
  await field.fill('{{ fetch.body.n | times: 2 }}');
  await page.getByRole('button', { name: 'Test shape' }).click();
  const shaped = page.locator('pre[aria-label="Tested output of shape"]');
  await shaped.waitFor();
  expect(JSON.parse(await shaped.innerText())).toEqual({ doubled: n * 2 });
  expect(stub.calls('/count').length).toBe(before + 1);
  await screenshot(page, 'workflow-graph-step-test');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The draft survives a reload, pins included.
  await page.reload();
  await node(page, 'fetch').getByText('pinned').waitFor();
  const draft = (await as(stack.harness.app, org.tokens.developer).get(`/workflows/${wf.id}/draft`)).body;
  expect(draft.pins.fetch.output.body.n).toBe(n);
});

test('a failed run is drawn on its graph, and replayed from the failed node', async () => {
  const wf = await a.createWorkflow([
    set('prepare', { x: 1 }),
    { stepId: 'call', stepType: 'core.http', input: { url: `${stub.url}/missing`, retry: { limit: 0 } } },
  ]);
  const run = await a.runAndWait(wf.id, {});
  expect(run.status).toBe('failed');
  await page.goto(`/console/runs/${run.id}?view=graph`);
  await node(page, 'call').getByText('failed').waitFor();
  await node(page, 'prepare').getByText('completed').waitFor();
  await screenshot(page, 'run-graph-failed');
  expect(await accessibilityViolations(page)).toEqual([]);
  await node(page, 'call').click();
  await page.getByRole('link', { name: 'Replay from here' }).click();
  expect(new URL(page.url()).searchParams.get('replay')).toBe('call');
  await page.getByRole('button', { name: 'Replay from call' }).click();
  await eventually(
    () => Promise.resolve(new URL(page.url()).pathname),
    (path) => path !== `/console/runs/${run.id}`,
    15_000,
  );
  const replayId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  expect(await a.readExecution(replayId)).toMatchObject({ replayOf: run.id, replayFromStepId: 'call' });
});

test("a viewer's graph is read only: no insert, no step actions, no publish", async () => {
  const wf = await a.createWorkflow([set('only', { v: 1 })]);
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/workflows/${wf.id}`);
  await node(viewer, 'only').click();
  await viewer.getByRole('heading', { name: /Set values only/ }).waitFor();
  expect(await viewer.locator('.graph-insert').count()).toBe(0);
  expect(await viewer.getByRole('button', { name: /^(Publish|Rename|Delete|Duplicate|Move up|Test only)$/ }).count()).toBe(0);
  await expect(viewer.locator('#field-steps_0_input_values-0').getAttribute('readonly')).resolves.not.toBeNull();
  await screenshot(viewer, 'workflow-graph-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.goto('/console/workflows/new');
  await viewer.getByText(/cannot create workflows|can view workflows/).waitFor();
  expect(await viewer.locator('.react-flow').count()).toBe(0);
  await viewer.context().close();
});

test('a step is added with the keyboard alone, and opened from its node', async () => {
  const wf = await a.createWorkflow([set('first', { v: 1 })]);
  await page.goto(`/console/workflows/${wf.id}`);
  await node(page, 'first').waitFor();
  const insert = page.getByRole('button', { name: 'Add a step after first' });
  await page.locator('body').focus();
  for (let i = 0; i < 60 && !(await insert.evaluate((el) => el === (globalThis as any).document.activeElement)); i++) await page.keyboard.press('Tab');
  expect(await insert.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
  await page.keyboard.press('Enter');
  const palette = page.getByRole('dialog', { name: 'Add a step after first' });
  await palette.waitFor();
  await page.keyboard.type('wait');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await palette.waitFor({ state: 'detached' });
  await node(page, 'wait').waitFor();
  // The new step's node takes focus from the keyboard too, and Enter opens it.
  await node(page, 'wait').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: /Wait wait/ }).waitFor();
  await eventually(
    async () => (await as(stack.harness.app, org.tokens.developer).get(`/workflows/${wf.id}/draft`)).body,
    (draft) => draft?.definition?.steps?.[1]?.stepType === 'core.wait',
    10_000,
  );
});

test('the JSON view completes a step type with every type there is', async () => {
  await page.goto('/console/workflows/new?view=json');
  const editor = page.locator('.cm-content');
  await editor.waitFor();
  // The caret goes between the quotes of the stepType: four places left of the text's end.
  await editor.fill('{"name": "typed", "steps": [{"stepId": "a", "input": {}, "stepType": ""}]}');
  await page.keyboard.press('Control+End');
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Control+Space');
  const options = page.locator('.cm-tooltip-autocomplete li');
  await options.first().waitFor();
  const offered = await options.allInnerTexts();
  expect(offered).toEqual(expect.arrayContaining(['core.http', 'core.if', 'core.loop', 'core.wait', 'ai.agent', 'data-store.set']));
  await page.keyboard.type('core.lo');
  await page.keyboard.press('Enter');
  await expect(editor.innerText()).resolves.toContain('"stepType": "core.loop"');
});
