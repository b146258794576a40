import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';
import { signDelivery } from '../src/webhooks/signatures/sign-delivery';
import type { VerificationConfig } from '../src/webhooks/signatures/scheme-config';
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

/** A delivery of `payload` to `triggerName`, signed with `secret` as the scheme's vendor signs (a fresh delivery id, unless given). */
function signedDelivery(triggerName: string, config: VerificationConfig, secret: string, payload: unknown, deliveryId = uniqueName('delivery')) {
  const body = JSON.stringify(payload);
  return request(stack.harness.app)
    .post(`/w/@${org.organizationSuid}/${triggerName}`)
    .set({ 'Content-Type': 'application/json', 'X-GitHub-Delivery': deliveryId, ...signDelivery(config, secret, Buffer.from(body)) })
    .send(body);
}

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

test('a publish the API refuses shows its error at the field and in a list; fixed, it publishes as the next version', async () => {
  await page.goto(`/console/workflows/${workflowId}`);
  await page.getByRole('tab', { name: 'JSON' }).click();
  await page.locator('.cm-content').waitFor();
  await expect(page.locator('.cm-content').innerText()).resolves.toContain('"stepId": "greet"');
  const bad = {
    name,
    description: 'Greets a customer',
    initial: { customer: 'Ada' },
    steps: [steps[0], { stepId: 'notify', stepType: 'core.http', input: { method: 'POST' } }, steps[1]],
  };
  await setEditorText(JSON.stringify(bad, null, 2));
  await page.getByRole('button', { name: 'Publish', exact: true }).click();

  const alert = page.getByRole('alert');
  await expect(alert.innerText()).resolves.toContain('The draft has problems');
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
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
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

  // Rotating breaks every caller at once: it asks first.
  await card.getByRole('button', { name: 'Rotate secret', exact: true }).click();
  await card.getByText('The current secret stops working at once').waitFor();
  await card.getByRole('button', { name: 'Rotate the secret' }).click();
  const secret = (await page.locator('.secret-value').innerText()).trim();
  expect(secret).toMatch(/^whs_/);
  expect(secret).not.toBe(hook.secret);
  // While the secret is shown, the curl command carries it (copied, it works as it stands); once no longer shown, the placeholder again.
  await expect(card.locator('pre.curl').innerText()).resolves.toContain(`-H 'Authorization: Bearer ${secret}'`);
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
  await card.getByText('Call it with curl').click();
  await expect(card.locator('pre.curl').innerText()).resolves.toContain(`-H 'Authorization: Bearer <secret>'`);
});

const github = { name: uniqueName('github'), secret: 'gh-secret-one-0123456789', next: 'gh-secret-two-0123456789' };

test('a trigger created with GitHub verification shows its scheme, headers and deduplication; a too short secret is refused beside its field', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=triggers`);
  const form = page.getByRole('form', { name: 'New webhook trigger' });
  await form.getByLabel('New trigger name').fill(github.name);
  await form.getByLabel('Scheme').selectOption('github');
  // A vendor cannot send the bearer secret: picking a scheme turns "Require a secret" off.
  await expect(form.getByLabel('Require a secret').isChecked()).resolves.toBe(false);
  const secretField = form.getByLabel('Signing secret');
  await secretField.fill('short');
  await form.getByRole('button', { name: 'Add webhook trigger' }).click();

  // The API's 400 names signingSecret: its message is beside the field, which points at it.
  await form.locator('.field-problem').waitFor();
  await expect(secretField.getAttribute('aria-invalid')).resolves.toBe('true');
  const describedBy = (await secretField.getAttribute('aria-describedby'))!.split(' ');
  const note = form.locator(`[id="${describedBy[0]}"]`);
  await expect(note.innerText()).resolves.toBe('must be at least 8 characters');
  await expect(note.getAttribute('class')).resolves.toBe('field-problem');
  await screenshot(page, 'workflows-trigger-verification-error');
  expect(await accessibilityViolations(page)).toEqual([]);

  await secretField.fill(github.secret);
  await form.getByRole('button', { name: 'Add webhook trigger' }).click();
  const card = page.getByRole('listitem', { name: `Webhook ${github.name}` });
  const facts = card.getByRole('definition');
  await eventually(
    () => facts.allInnerTexts(),
    (texts) => texts.length === 4,
    10_000,
  );
  await expect(facts.allInnerTexts()).resolves.toEqual([
    'GitHub signature (X-Hub-Signature-256)',
    expect.stringMatching(/^Set \w{3} \d+, \d{4}, [\d:]+\s[AP]M$/),
    'Deduplicates by X-GitHub-Delivery (GitHub preset) for 4 days',
    "Continue the caller's trace: the call's spans join the trace its traceparent header names",
  ]);
  await expect(card.innerText()).resolves.toContain('No authentication');
  expect(await page.locator('.secret-value').count()).toBe(0);
  await expect(form.getByLabel('New trigger name').inputValue()).resolves.toBe('');

  // The trigger takes what GitHub would send, and nothing else.
  const config = { scheme: 'github' } as const;
  const accepted = await signedDelivery(github.name, config, github.secret, { customer: 'Octo' });
  expect(accepted.status).toBe(200);
  expect(accepted.body).toEqual({ message: 'Hello Octo' });
  expect((await signedDelivery(github.name, config, 'not-the-secret-at-all', {})).status).toBe(401);
});

test('rotating the signing secret with an overlap: the new one verifies at once, the old one until the overlap end the card shows', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=triggers`);
  const card = page.getByRole('listitem', { name: `Webhook ${github.name}` });
  await card.getByRole('button', { name: 'Rotate signing secret' }).click();
  const form = card.getByRole('form', { name: `Rotate the signing secret of ${github.name}` });
  await expect(form.getByLabel('Old secret keeps verifying for (hours)').inputValue()).resolves.toBe('24');
  await form.getByLabel('New signing secret').fill(github.next);
  await form.getByLabel('Old secret keeps verifying for (hours)').fill('2');
  await screenshot(page, 'workflows-trigger-rotate-form');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Rotate signing secret' }).click();
  await form.waitFor({ state: 'detached' });

  const trigger = (await as(stack.harness.app, org.ownerToken).get(`/webhook-triggers?workflowId=${workflowId}`)).body.data.find(
    (t: { name: string }) => t.name === github.name,
  );
  const overlapEnd = Date.parse(trigger.signingOverlapUntil);
  expect(Math.abs(overlapEnd - (Date.now() + 2 * 3600_000))).toBeLessThan(60_000);
  // As the page formats it (en-US, UTC); the space before AM/PM differs between ICU versions.
  const spaced = (text: string) => text.replace(/\s/g, ' ');
  const shown = spaced(new Date(overlapEnd).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }));
  const secretFact = card.getByRole('definition').nth(1);
  await eventually(
    async () => spaced(await secretFact.innerText()),
    (text) => text.endsWith(`; the previous one still verifies until ${shown}`),
    10_000,
  );
  // A vendor secret is pasted, never generated: nothing to show once.
  expect(await page.locator('.secret-value').count()).toBe(0);
  await screenshot(page, 'workflows-trigger-rotated');
  expect(await accessibilityViolations(page)).toEqual([]);

  const config = { scheme: 'github' } as const;
  expect((await signedDelivery(github.name, config, github.next, { customer: 'New' })).status).toBe(200);
  expect((await signedDelivery(github.name, config, github.secret, { customer: 'Old' })).status).toBe(200);
});

test('deduplication changed and turned off; verification removed, then set to hmac with a generated secret shown once', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=triggers`);
  const card = page.getByRole('listitem', { name: `Webhook ${github.name}` });
  // The facts are Signature, [Signing secret,] Deduplication and Trace context: the deduplication fact is the one before last.
  const dedupFact = card.getByRole('definition').nth(-2);

  await card.getByRole('button', { name: 'Change deduplication' }).click();
  let form = card.getByRole('form', { name: `Deduplication of ${github.name}` });
  await expect(form.getByLabel('Window', { exact: true }).inputValue()).resolves.toBe('4');
  await form.getByLabel('Window', { exact: true }).fill('2');
  await form.getByLabel('Window unit').selectOption({ label: 'hours' });
  await screenshot(page, 'workflows-trigger-deduplication-form');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Save deduplication' }).click();
  await eventually(
    () => dedupFact.innerText(),
    (text) => text === 'Deduplicates by X-GitHub-Delivery (GitHub preset) for 2 hours',
    10_000,
  );

  await card.getByRole('button', { name: 'Change deduplication' }).click();
  form = card.getByRole('form', { name: `Deduplication of ${github.name}` });
  await form.getByLabel('Deduplicate deliveries').uncheck();
  await form.getByRole('button', { name: 'Save deduplication' }).click();
  await eventually(
    () => dedupFact.innerText(),
    (text) => text === 'Off: every delivery starts a run',
    10_000,
  );
  const read = async () =>
    (await as(stack.harness.app, org.ownerToken).get(`/webhook-triggers?workflowId=${workflowId}`)).body.data.find(
      (t: { name: string }) => t.name === github.name,
    );
  expect((await read()).deduplication).toEqual({ enabled: false, deliveryId: null, preset: null, windowSeconds: 7200 });

  // A caller's traceparent: honoured by default, ignored once changed.
  const traceFact = card.getByRole('definition').last();
  await expect(traceFact.innerText()).resolves.toMatch(/^Continue the caller's trace/);
  await card.getByRole('button', { name: 'Change trace context' }).click();
  form = card.getByRole('form', { name: `Trace context of ${github.name}` });
  await form.getByRole('radio', { name: /Start a trace of the service's own/ }).check();
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Save trace context' }).click();
  await eventually(
    () => traceFact.innerText(),
    (text) => text.startsWith("Start a trace of the service's own"),
    10_000,
  );
  expect((await read()).traceContext).toBe('ignore');

  // Scheme "None" removes verification, after saying what that means.
  await card.getByRole('button', { name: 'Change verification' }).click();
  form = card.getByRole('form', { name: `Verification of ${github.name}` });
  await form.getByLabel('Scheme').selectOption('');
  await form.getByRole('button', { name: 'Save verification' }).click();
  await form.getByText('Deliveries will no longer be checked for a signature').waitFor();
  await form.getByRole('button', { name: 'Remove verification' }).click();
  await eventually(
    () => card.getByRole('definition').allInnerTexts(),
    (texts) => texts[0] === 'None: deliveries are not checked for a signature' && texts.length === 3,
    10_000,
  );

  // hmac without a secret: one is generated and shown once, as the bearer secret is.
  await card.getByRole('button', { name: 'Verify signatures' }).click();
  form = card.getByRole('form', { name: `Verification of ${github.name}` });
  await form.getByLabel('Scheme').selectOption('hmac');
  await form.getByLabel('Signature header').fill('X-Signature');
  await form.getByLabel('Prefix (optional)').fill('sha256=');
  await expect(form.getByLabel('Signing secret').getAttribute('aria-describedby')).resolves.toBeTruthy();
  await expect(form.innerText()).resolves.toContain('Leave it empty to have one generated (shown once).');
  await screenshot(page, 'workflows-trigger-hmac-form');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Save verification' }).click();
  const notice = card.getByRole('status', { name: `New signing secret of ${github.name}` });
  await expect(notice.innerText()).resolves.toContain('copy it now, it is not shown again');
  const generated = (await notice.locator('.secret-value').innerText()).trim();
  expect(generated).toMatch(/^whsig_/);
  await notice.getByRole('button', { name: `Copy signing secret of ${github.name}` }).waitFor();
  await eventually(
    () => card.getByRole('definition').first().innerText(),
    (text) => text === 'HMAC-SHA256 signature (X-Signature: sha256=<hex>) of {body}',
    10_000,
  );
  await screenshot(page, 'workflows-trigger-hmac-secret');
  expect(await accessibilityViolations(page)).toEqual([]);

  const hmac = {
    scheme: 'hmac',
    header: 'X-Signature',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
    payload: '{body}',
    toleranceSeconds: 300,
  } as const;
  expect((await signedDelivery(github.name, hmac, generated, { customer: 'Hmac' })).status).toBe(200);
  expect((await signedDelivery(github.name, hmac, github.next, { customer: 'Hmac' })).status).toBe(401);
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
  await page.getByRole('tab', { name: 'JSON' }).click();
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
  await viewer.getByRole('tab', { name: 'JSON' }).click();
  await viewer.locator('.cm-content').waitFor();
  await expect(viewer.locator('.cm-content').getAttribute('contenteditable')).resolves.toBe('false');
  await viewer.getByText('Read only').waitFor();
  expect(await viewer.getByRole('button', { name: /^(Save|Publish)$/ }).count()).toBe(0);
  await screenshot(viewer, 'workflows-definition-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.getByRole('tab', { name: 'Triggers' }).click();
  await viewer.getByRole('listitem', { name: `Webhook ${hook.name}` }).waitFor();
  expect(
    await viewer
      .getByRole('button', {
        name: /Rotate secret|Delete|Add webhook trigger|Require a secret|Turn authentication off|Verify signatures|Change verification|Rotate signing secret|Change deduplication|Change trace context/,
      })
      .count(),
  ).toBe(0);
  await expect(viewer.getByRole('listitem', { name: `Webhook ${github.name}` }).innerText()).resolves.toContain('HMAC-SHA256 signature');
  await viewer.getByRole('tab', { name: 'Test run' }).click();
  await viewer.getByText('your role can view workflows').waitFor();
  expect(await viewer.getByRole('button', { name: 'Run test' }).count()).toBe(0);
  await viewer.context().close();
});
