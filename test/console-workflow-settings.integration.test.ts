import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';
import { workflowApi, type Trigger, type WorkflowApi } from './workflow-api';
import { STARTER_TEMPLATES } from '../console/src/pages/workflows/starter-templates';

let stack: ConsoleStack;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;
const name = uniqueName('billing');
let workflowId: string;
let hook: Trigger;
let hourly: { id: string; name: string };
let envs: { first: string; second: string };

const steps = [
  { stepId: 'greet', stepType: 'core.set', input: { values: { message: 'Hello {{ initial.customer }}' } } },
  { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { message: '{{ greet.message }}' } } } },
];

const owner = () => as(stack.harness.app, org.ownerToken);

/** The workflow's schedule triggers as the API lists them. */
async function schedulesOf(id: string): Promise<Array<{ id: string; name: string; schedule: unknown; paused: boolean; environmentId: string | null }>> {
  const res = await owner().get(`/schedule-triggers?workflowId=${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function environmentId(envName: string): Promise<string> {
  const res = await owner().get('/environments?limit=1000');
  return res.body.data.find((e: { name: string }) => e.name === envName).id;
}

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);
  envs = { first: await a.createEnvironment({ REGION: 'eu' }), second: await a.createEnvironment({ REGION: 'us' }) };
  workflowId = (await a.createWorkflow(steps, { name, environment: envs.first, initial: { customer: 'Ada' } })).id;
  hook = await a.createTrigger(workflowId);
  const created = await owner()
    .post(`/workflows/${workflowId}/triggers`)
    .send({ type: 'schedule', name: uniqueName('hourly'), schedule: { intervalSeconds: 3600 } });
  expect(created.status).toBe(201);
  hourly = created.body;
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(() => stack?.close());

test('a schedule trigger: a bad time zone refused at its field; created with cron and zone, paused, edited, resumed and deleted, as the API reads it', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=triggers`);
  await page.getByRole('button', { name: 'New schedule trigger' }).click();
  const form = page.getByRole('form', { name: 'New schedule trigger' });
  const scheduleName = uniqueName('weekdays');
  await form.getByLabel('Schedule name').fill(scheduleName);
  await form.getByLabel('On a cron expression').check();
  await form.getByLabel('Cron expression', { exact: true }).fill('0 9 * * MON-FRI');
  const zone = form.getByLabel('Time zone');
  await zone.fill('Mars/Olympus_Mons');
  await form.getByLabel('Environment').selectOption(envs.second);
  await form.getByRole('button', { name: 'Add schedule trigger' }).click();

  // The API's 400 names schedule.timezone: its message is beside the field, which points at it.
  await form.locator('.field-problem').waitFor();
  await expect(zone.getAttribute('aria-invalid')).resolves.toBe('true');
  const note = form.locator(`[id="${(await zone.getAttribute('aria-describedby'))!.split(' ')[0]}"]`);
  await expect(note.innerText()).resolves.toMatch(/Mars\/Olympus_Mons/);
  expect(await schedulesOf(workflowId)).toHaveLength(1);
  await screenshot(page, 'workflow-schedule-form-error');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Any case is accepted and stored as the IANA name.
  await zone.fill('europe/paris');
  await form.getByRole('button', { name: 'Add schedule trigger' }).click();
  const card = page.getByRole('listitem', { name: `Schedule ${scheduleName}` });
  await card.waitFor();
  await expect(card.locator('.badge').first().innerText()).resolves.toBe('cron 0 9 * * MON-FRI (Europe/Paris)');
  await eventually(
    () => card.innerText(),
    (text) => /Next runs:\s+\w{3} \d+, \d{4}/.test(text),
    10_000,
  );
  await expect(card.innerText()).resolves.toContain(`Runs in ${envs.second}`);
  let saved = (await schedulesOf(workflowId)).find((s) => s.name === scheduleName)!;
  expect(saved).toMatchObject({
    schedule: { cron: '0 9 * * MON-FRI', timezone: 'Europe/Paris' },
    paused: false,
    environmentId: await environmentId(envs.second),
  });
  await screenshot(page, 'workflow-schedules');
  expect(await accessibilityViolations(page)).toEqual([]);

  await card.getByRole('button', { name: 'Pause' }).click();
  await card.getByRole('button', { name: 'Resume' }).waitFor();
  await eventually(
    () => card.innerText(),
    (text) => text.includes('none while paused'),
    10_000,
  );
  expect((await schedulesOf(workflowId)).find((s) => s.id === saved.id)!.paused).toBe(true);
  const detail = await owner().get(`/schedule-triggers/${saved.id}`);
  expect(detail.body.nextRunTimes).toEqual([]);

  // Edited to an interval: the edit leaves it paused (pausing has its own button).
  await card.getByRole('button', { name: 'Edit' }).click();
  const edit = card.getByRole('form', { name: `Edit schedule ${scheduleName}` });
  await expect(edit.getByLabel('Cron expression', { exact: true }).inputValue()).resolves.toBe('0 9 * * MON-FRI');
  await edit.getByLabel('At a fixed interval').check();
  await edit.getByLabel('Every').fill('90');
  await edit.getByLabel('Unit').selectOption('minutes');
  await edit.getByLabel('Environment').selectOption({ label: 'The workflow’s default' });
  await screenshot(page, 'workflow-schedule-edit');
  expect(await accessibilityViolations(page)).toEqual([]);
  await edit.getByRole('button', { name: 'Save schedule' }).click();
  await edit.waitFor({ state: 'detached' });
  await eventually(
    () => card.locator('.badge').first().innerText(),
    (text) => text === 'every 90 min',
    10_000,
  );
  saved = (await schedulesOf(workflowId)).find((s) => s.id === saved.id)!;
  expect(saved).toMatchObject({ schedule: { intervalSeconds: 5400 }, paused: true, environmentId: null });

  await card.getByRole('button', { name: 'Resume' }).click();
  await card.getByRole('button', { name: 'Pause' }).waitFor();
  expect((await schedulesOf(workflowId)).find((s) => s.id === saved.id)!.paused).toBe(false);

  await card.getByRole('button', { name: 'Delete' }).click();
  await expect(card.innerText()).resolves.toContain(`Delete the schedule trigger ${scheduleName}? Its Temporal Schedule goes with it`);
  await card.getByRole('button', { name: 'Delete schedule trigger' }).click();
  await card.waitFor({ state: 'detached' });
  expect((await owner().get(`/schedule-triggers/${saved.id}`)).status).toBe(404);
  expect((await schedulesOf(workflowId)).map((s) => s.id)).toEqual([hourly.id]);
});

test('settings: the default environment is changed, and the API reads the change', async () => {
  await page.goto(`/console/workflows/${workflowId}?tab=settings`);
  const form = page.getByRole('form', { name: 'Default environment' });
  const select = form.getByLabel('Environment');
  await eventually(
    () => select.inputValue(),
    (value) => value === envs.first,
    10_000,
  );
  const save = form.getByRole('button', { name: 'Save default environment' });
  await expect(save.isDisabled()).resolves.toBe(true);
  await select.selectOption(envs.second);
  await save.click();
  await form
    .getByRole('status')
    .filter({ hasText: `Saved: runs use ${envs.second} by default` })
    .waitFor();
  const read = await owner().get(`/workflows/${workflowId}`);
  expect(read.body.settings.defaultEnvironment).toBe(envs.second);
  // Settings make no new version.
  expect(read.body.version).toBe(1);
  await screenshot(page, 'workflow-settings');
  expect(await accessibilityViolations(page)).toEqual([]);

  await select.selectOption({ label: 'None' });
  await save.click();
  await form.getByRole('status').filter({ hasText: 'Saved: no default environment' }).waitFor();
  expect((await owner().get(`/workflows/${workflowId}`)).body.settings.defaultEnvironment).toBeNull();
});

test('deleting a workflow: the confirmation names its triggers and runs; afterwards it is 404, its runs stay, and the list opens', async () => {
  const doomed = await a.createWorkflow(steps, { name: uniqueName('doomed'), initial: { customer: 'Lin' } });
  const doomedHook = await a.createTrigger(doomed.id);
  const schedule = await owner()
    .post(`/workflows/${doomed.id}/triggers`)
    .send({ type: 'schedule', name: uniqueName('nightly'), schedule: { cron: '0 2 * * *', timezone: 'UTC' } });
  expect(schedule.status).toBe(201);
  for (const customer of ['Ann', 'Bo']) {
    const run = await owner().post(`/workflows/${doomed.id}/runs`).send({ input: { customer }, wait: true });
    expect(run.status).toBe(200);
  }

  await page.goto(`/console/workflows/${doomed.id}?tab=settings`);
  const zone = page.getByRole('region', { name: 'Delete workflow' });
  await zone.getByRole('button', { name: 'Delete…' }).click();
  const question = await zone.innerText();
  expect(question).toContain(`Delete ${doomed.name} and its 1 version?`);
  expect(question).toContain(`the webhook trigger ${doomedHook.name} (callers of its URL get 404)`);
  expect(question).toContain(`the schedule trigger ${schedule.body.name} (no more scheduled runs)`);
  expect(question).toContain('Its 2 runs stay in the run history');
  await screenshot(page, 'workflow-delete-confirmation');
  expect(await accessibilityViolations(page)).toEqual([]);

  await zone.getByRole('button', { name: 'Delete workflow' }).click();
  await page.waitForURL((url) => url.pathname === '/console/workflows');
  expect((await owner().get(`/workflows/${doomed.id}`)).status).toBe(404);
  expect((await owner().get(`/schedule-triggers/${schedule.body.id}`)).status).toBe(404);
  expect((await request(stack.harness.app).post(doomedHook.path).send({})).status).toBe(404);
  expect((await a.listExecutions({ workflowId: doomed.id })).total).toBe(2);
  await page.getByRole('link', { name }).waitFor();
  expect(await page.getByRole('link', { name: doomed.name }).count()).toBe(0);
});

test('a viewer gets no editor on /workflows/new, and no control on the settings tab or the schedules', async () => {
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto('/console/workflows');
  await viewer.getByRole('link', { name }).waitFor();
  expect(await viewer.getByRole('link', { name: 'New workflow' }).count()).toBe(0);

  await viewer.goto('/console/workflows/new');
  await viewer.getByText('Your role can view workflows and their runs, not create them').waitFor();
  expect(await viewer.locator('.cm-content').count()).toBe(0);
  expect(await viewer.getByRole('tablist', { name: 'Definition view' }).count()).toBe(0);
  expect(await viewer.getByRole('button', { name: 'Create workflow' }).count()).toBe(0);
  await screenshot(viewer, 'workflow-new-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.getByRole('link', { name: 'Back to workflows' }).click();
  await viewer.getByRole('link', { name }).waitFor();

  await owner().patch(`/workflows/${workflowId}/settings`).send({ defaultEnvironment: envs.first });
  await viewer.goto(`/console/workflows/${workflowId}?tab=settings`);
  const section = viewer.getByRole('region', { name: 'Default environment' });
  await expect(section.innerText()).resolves.toContain(envs.first);
  expect(await viewer.getByRole('combobox').count()).toBe(0);
  expect(await viewer.getByRole('button', { name: /Save|Delete/ }).count()).toBe(0);
  expect(await viewer.getByRole('region', { name: 'Delete workflow' }).count()).toBe(0);
  await screenshot(viewer, 'workflow-settings-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);

  await viewer.goto(`/console/workflows/${workflowId}?tab=triggers`);
  await viewer.getByRole('listitem', { name: `Webhook ${hook.name}` }).waitFor();
  const card = viewer.getByRole('listitem', { name: `Schedule ${hourly.name}` });
  await eventually(
    () => card.innerText(),
    (text) => /Next runs:\s+\w{3} \d+, \d{4}/.test(text),
    10_000,
  );
  expect(await viewer.getByRole('button', { name: /New schedule trigger|Pause|Resume|Edit|Delete/ }).count()).toBe(0);
  await viewer.context().close();
});

test('an empty organization is offered four starters and a blank start; each starter opens in the editor and creates a workflow', async () => {
  const fresh = await createTestOrg(stack.harness.services);
  const admin = await stack.signedInPage(fresh.tokens.developer);
  await admin.goto('/console/workflows');
  const starters = admin.getByRole('region', { name: 'Start from a template' });
  await starters.waitFor();
  const links = starters.getByRole('link', { name: /^Use this template: / });
  await expect(links.count()).resolves.toBe(STARTER_TEMPLATES.length);
  expect(STARTER_TEMPLATES.map((t) => t.title)).toEqual([
    'Webhook → HTTP → answer',
    'Schedule → HTTP → data store',
    'Approval by resume link',
    'AI agent with tools',
  ]);
  await expect(starters.getByRole('listitem', { name: 'AI agent with tools' }).innerText()).resolves.toContain('The connection "openai" must exist');
  await starters.getByRole('link', { name: 'Start from scratch' }).waitFor();
  await screenshot(admin, 'workflow-starters');
  expect(await accessibilityViolations(admin)).toEqual([]);

  // The first from the list itself; the others by their address (the list has workflows by then, and offers none).
  await links.first().click();
  for (const [i, template] of STARTER_TEMPLATES.entries()) {
    if (i > 0) await admin.goto(`/console/workflows/new?template=${template.id}`);
    expect(new URL(admin.url()).searchParams.get('template')).toBe(template.id);
    // The editor opens on its graph; the JSON view shows the text as the API will receive it.
    await admin.getByRole('tab', { name: 'JSON' }).click();
    await admin.locator('.cm-content').waitFor();
    await expect(admin.locator('.cm-content').innerText()).resolves.toContain(`"name": "${template.definition.name}"`);
    await admin.getByText(template.needs).waitFor();
    if (i === 0) {
      await screenshot(admin, 'workflow-new-from-starter');
      expect(await accessibilityViolations(admin)).toEqual([]);
    }
    await admin.getByRole('button', { name: 'Create workflow' }).click();
    await admin.getByRole('heading', { name: template.definition.name }).waitFor();
    const id = new URL(admin.url()).pathname.split('/').pop()!;
    const created = await as(stack.harness.app, fresh.ownerToken).get(`/workflows/${id}`);
    expect(created.status).toBe(200);
    expect(created.body.definition).toEqual(template.definition);
  }

  await admin.goto('/console/workflows');
  await admin.getByRole('link', { name: STARTER_TEMPLATES[3].definition.name }).waitFor();
  expect(await admin.getByRole('region', { name: 'Start from a template' }).count()).toBe(0);
  await admin.context().close();
});
