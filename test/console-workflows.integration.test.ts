import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';
import { workflowApi, type Trigger, type WorkflowApi } from './workflow-api';

let stack: ConsoleStack;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;
const name = uniqueName('shop');
let workflowId: string;
let hook: Trigger;
let schedule: { id: string; name: string };

const steps = [
  { stepId: 'greet', stepType: 'core.set', input: { values: { message: 'Hello {{ initial.customer }}' } } },
  { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { message: '{{ greet.message }}' } } } },
];

/** Replaces the whole text of the definition editor, as a paste would. */
async function setEditorText(text: string) {
  await page.locator('.cm-content').fill(text);
}

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);
  workflowId = (await a.createWorkflow(steps, { name, description: 'Greets a customer', initial: { customer: 'Ada' } })).id;
  hook = await a.createTrigger(workflowId, { authentication: true });
  const created = await as(stack.harness.app, org.ownerToken)
    .post(`/workflows/${workflowId}/triggers`)
    .send({ type: 'schedule', name: uniqueName('hourly'), schedule: { intervalSeconds: 3600 }, paused: false });
  expect(created.status).toBe(201);
  schedule = created.body;
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(() => stack?.close());

test('the workflows list shows each workflow with its version and a New workflow button', async () => {
  await page.goto('/console/workflows');
  const row = page.getByRole('row', { name: new RegExp(name) });
  await row.waitFor();
  await expect(row.innerText()).resolves.toMatch(new RegExp(`${name}\\s+Greets a customer\\s+2\\s+1\\s+`));
  await page.getByRole('link', { name: 'New workflow' }).waitFor();
  await screenshot(page, 'workflows-list');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('a save the API refuses shows its error at the field and in a list; fixed, it saves as the next version', async () => {
  await page.goto(`/console/workflows/${workflowId}`);
  await page.locator('.cm-content').waitFor();
  await expect(page.locator('.cm-content').innerText()).resolves.toContain('"stepId": "greet"');
  const bad = {
    name,
    description: 'Greets a customer',
    initial: { customer: 'Ada' },
    steps: [steps[0], { stepId: 'notify', stepType: 'core.http', input: { method: 'POST' } }, steps[1]],
  };
  await setEditorText(JSON.stringify(bad, null, 2));
  await page.getByRole('button', { name: 'Save', exact: true }).click();

  const alert = page.getByRole('alert');
  await expect(alert.innerText()).resolves.toContain('Invalid request body');
  const problems = page.getByRole('list', { name: 'Problems' });
  await expect(problems.innerText()).resolves.toContain('steps.1.input.url');
  // The diagnostic in the editor: the lint panel lists it, and the field's text carries the error mark.
  const panel = page.locator('.cm-panel-lint');
  await eventually(
    () => panel.innerText(),
    (text) => text.includes('steps.1.input.url:'),
    10_000,
  );
  expect(await page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0);
  await problems.getByRole('button', { name: 'steps.1.input.url' }).click();
  await expect(page.locator('.cm-activeLine').innerText()).resolves.toContain('"input"');
  await screenshot(page, 'workflows-definition-error');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Fixed: the step becomes one that needs no outside call (the test network is closed).
  bad.steps[1] = { stepId: 'notify', stepType: 'core.set', input: { values: { channel: 'email' } } } as never;
  await setEditorText(JSON.stringify(bad, null, 2));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved as version 2' }).waitFor();
  await page.getByText('version 2 · updated').waitFor();
  expect(await page.getByRole('list', { name: 'Problems' }).count()).toBe(0);
  const saved = await as(stack.harness.app, org.ownerToken).get(`/workflows/${workflowId}`);
  expect(saved.body.version).toBe(2);
  expect(saved.body.definition.steps.map((s: { stepId: string }) => s.stepId)).toEqual(['greet', 'notify', 'reply']);
});

test('triggers: the webhook URL and a curl command, a rotated secret shown once that the webhook then accepts, the schedule with its next runs', async () => {
  await page.goto(`/console/workflows/${workflowId}`);
  await page.getByRole('tab', { name: 'Triggers' }).click();
  expect(new URL(page.url()).searchParams.get('tab')).toBe('triggers');
  const card = page.getByRole('listitem', { name: `Webhook ${hook.name}` });
  await expect(card.locator('.trigger-url code').innerText()).resolves.toBe(hook.url);
  await card.getByText('Call it with curl').click();
  await expect(card.locator('pre.curl').innerText()).resolves.toContain(`-H 'Authorization: Bearer <secret>'`);
  await expect(card.locator('pre.curl').innerText()).resolves.toContain(`curl -X POST '${hook.url}'`);

  await card.getByRole('button', { name: 'Rotate secret' }).click();
  const secret = (await page.locator('.secret-value').innerText()).trim();
  expect(secret).toMatch(/^whs_/);
  expect(secret).not.toBe(hook.secret);
  const call = await request(stack.harness.app).post(hook.path).set('Authorization', `Bearer ${secret}`).send({ customer: 'Lin' });
  expect(call.status).toBe(200);
  expect(call.body).toEqual({ message: 'Hello Lin' });
  expect((await request(stack.harness.app).post(hook.path).set('Authorization', `Bearer ${hook.secret}`).send({})).status).toBe(401);

  const scheduled = page.getByRole('listitem', { name: `Schedule ${schedule.name}` });
  await expect(scheduled.innerText()).resolves.toContain('every 1 h');
  await eventually(
    () => scheduled.innerText(),
    (text) => /Next runs:\s+\w{3} \d+, \d{4}/.test(text),
    10_000,
  );
  await screenshot(page, 'workflows-triggers');
  expect(await accessibilityViolations(page)).toEqual([]);
  // The secret is shown once: a reload no longer shows it.
  await page.reload();
  await card.waitFor();
  expect(await page.locator('.secret-value').count()).toBe(0);
});

test('a test run with an edited payload shows the answer and links to the run', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=test`);
  const payload = page.getByLabel('Initial payload');
  await expect(payload.inputValue()).resolves.toContain('"customer": "Ada"');
  await payload.fill('{ "customer": "Grace" }');
  await page.getByRole('button', { name: 'Run test' }).click();
  const answer = page.locator('pre[aria-label="Answer of the test run"]');
  await answer.waitFor();
  await expect(answer.innerText()).resolves.toContain('"message": "Hello Grace"');
  await expect(page.getByText('Response (HTTP 200)').isVisible()).resolves.toBe(true);
  const link = page.getByRole('link', { name: 'Open the run' });
  const runId = (await link.getAttribute('href'))!.split('/').pop()!;
  expect(await a.readExecution(decodeURIComponent(runId))).toMatchObject({ mode: 'test', status: 'completed', workflowVersion: 2 });
  await screenshot(page, 'workflows-test-run');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('versions: both versions listed, an old one viewed by URL', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=versions`);
  await page.getByRole('button', { name: 'View version 1' }).click();
  expect(new URL(page.url()).searchParams.get('version')).toBe('1');
  const old = page.locator('pre[aria-label="Definition of version 1"]');
  await old.waitFor();
  await expect(old.innerText()).resolves.not.toContain('notify');
  await expect(page.locator('table.list tbody tr').allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/^2\s*current\s.*greet, notify, reply/),
    expect.stringMatching(/^1\s.*greet, reply/),
  ]);
  await page.reload();
  await old.waitFor();
  await screenshot(page, 'workflows-versions');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('a new workflow is created from the editor and opens', async () => {
  await page.goto('/console/workflows');
  await page.getByRole('link', { name: 'New workflow' }).click();
  await page.locator('.cm-content').waitFor();
  await expect(page.locator('.cm-content').innerText()).resolves.toContain('"stepType": "core.set"');
  const fresh = uniqueName('fresh');
  await setEditorText(JSON.stringify({ name: fresh, steps }, null, 2));
  await page.getByRole('button', { name: 'Create workflow' }).click();
  await page.getByRole('heading', { name: fresh }).waitFor();
  expect(new URL(page.url()).pathname).toMatch(/^\/console\/workflows\/[0-9a-f-]{36}$/);
});

test('a viewer sees definitions read only, and no Save, New workflow, Rotate or Run control', async () => {
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto('/console/workflows');
  await viewer.getByRole('link', { name }).waitFor();
  expect(await viewer.getByRole('link', { name: 'New workflow' }).count()).toBe(0);
  await viewer.getByRole('link', { name }).click();
  await viewer.locator('.cm-content').waitFor();
  await expect(viewer.locator('.cm-content').getAttribute('contenteditable')).resolves.toBe('false');
  await viewer.getByText('Read only').waitFor();
  expect(await viewer.getByRole('button', { name: 'Save' }).count()).toBe(0);
  await screenshot(viewer, 'workflows-definition-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.getByRole('tab', { name: 'Triggers' }).click();
  await viewer.getByRole('listitem', { name: `Webhook ${hook.name}` }).waitFor();
  expect(await viewer.getByRole('button', { name: /Rotate secret|Delete|Add webhook trigger|Require a secret|Turn authentication off/ }).count()).toBe(0);
  await viewer.getByRole('tab', { name: 'Test run' }).click();
  await viewer.getByText('your role can view workflows').waitFor();
  expect(await viewer.getByRole('button', { name: 'Run test' }).count()).toBe(0);
  await viewer.context().close();
});
