import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { workflowApi, type Trigger, type WorkflowApi } from './workflow-api';

let stack: ConsoleStack;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;
const orders = { name: uniqueName('orders'), id: '', runId: '', trigger: undefined as unknown as Trigger };
const broken = { name: uniqueName('broken'), id: '', runId: '', trigger: undefined as unknown as Trigger };

/** The body rows of the runs table (none when the empty state shows). */
const rows = () => page.locator('table.runs-table tbody tr');
/** Waits until the list shows exactly these workflows' runs, in this order. */
async function expectRuns(names: string[]) {
  if (names.length === 0) {
    await page.getByText('No run matches these filters.').waitFor();
    return;
  }
  await eventually(
    async () => (await rows().allInnerTexts()).map((r) => r.split('\t')[1]?.split(' ')[0]?.trim()),
    (shown) => JSON.stringify(shown) === JSON.stringify(names),
    15_000,
  );
}

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);
  const ordersHook = await a.createHook(
    [
      { stepId: 'greet', stepType: 'core.set', input: { values: { message: 'Hello {{ initial.customer }}' } } },
      { stepId: 'archive', stepType: 'core.set', input: { values: { notes: '{{ initial.notes }}' } } },
      { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { message: '{{ greet.message }}' } } } },
    ],
    { name: orders.name },
  );
  Object.assign(orders, { id: ordersHook.workflow.id, trigger: ordersHook.trigger });
  const brokenHook = await a.createHook(
    [
      { stepId: 'prepare', stepType: 'core.set', input: { values: { target: 'localhost' } } },
      { stepId: 'call', stepType: 'core.http', input: { url: 'http://localhost/' } },
    ],
    { name: broken.name },
  );
  Object.assign(broken, { id: brokenHook.workflow.id, trigger: brokenHook.trigger });

  // The calls come in as webhooks do: the orders one answers synchronously (it has a return step), the broken one at once with 202.
  const answered = await request(stack.harness.app)
    .post(orders.trigger.path)
    .send({ customer: 'Ada', notes: 'n'.repeat(140_000) });
  expect(answered.status).toBe(200);
  expect(answered.body).toEqual({ message: 'Hello Ada' });
  expect((await request(stack.harness.app).post(broken.trigger.path).send({ customer: 'Bob' })).status).toBe(202);
  for (const workflow of [orders, broken]) {
    const listed = await eventually(
      () => a.listExecutions({ workflowId: workflow.id }),
      (l) => l.total === 1,
    );
    workflow.runId = (await a.awaitEnd(listed.data[0].id)).id;
  }
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(() => stack?.close());

test('the runs list shows webhook runs; status and workflow filters narrow it, live in the URL, and survive reload and back/forward', async () => {
  await page.goto('/console/runs');
  await expectRuns([broken.name, orders.name]);
  const brokenRow = rows().filter({ hasText: broken.name });
  await expect(brokenRow.innerText()).resolves.toMatch(/failed\s+\S+ v1\s+webhook\s+hook_/);
  await screenshot(page, 'runs-list');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The filters are folded behind one button until one applies.
  await expect(page.getByLabel('Status').isVisible()).resolves.toBe(false);
  await page.getByRole('button', { name: 'Filters' }).click();
  await page.getByLabel('Status').selectOption('failed');
  await expectRuns([broken.name]);
  expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
  await page.reload();
  await expectRuns([broken.name]);
  await expect(page.getByLabel('Status').inputValue()).resolves.toBe('failed');

  await page.getByLabel('Workflow').selectOption({ label: orders.name });
  await expectRuns([]);
  await page.getByLabel('Status').selectOption('completed');
  await expectRuns([orders.name]);

  await page.goBack();
  await expectRuns([]);
  await page.goBack();
  await expectRuns([broken.name]);
  await expect(page.getByLabel('Workflow').inputValue()).resolves.toBe('');
  await page.goBack();
  await expectRuns([broken.name, orders.name]);
  await page.goForward();
  await expectRuns([broken.name]);
});

test("a failed run's page shows each step with its status and duration, and the error in full", async () => {
  await page.goto('/console/runs?status=failed');
  await rows().filter({ hasText: broken.name }).getByRole('link').click();
  await page.getByRole('heading', { name: `Run of ${broken.name}` }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/console/runs/${broken.runId}`);
  const steps = page.getByRole('list', { name: 'Steps' }).getByRole('button');
  await expect(steps.allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/prepare\s+core\.set\s+completed\s+\d+ ms/),
    expect.stringMatching(/call\s+core\.http\s+failed\s+\d+(\.\d+)? m?s/),
  ]);
  const stepError = page.getByRole('note', { name: 'Error of call' });
  await expect(stepError.innerText()).resolves.toContain('address not allowed');
  const runError = page.getByRole('note', { name: 'Run error' });
  await expect(runError.innerText()).resolves.toMatch(/Failed at step call:[\s\S]*address not allowed/);
  await screenshot(page, 'runs-run-failed');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test("a run's page opens a step to its output, loads a large value on demand, and shows the run's response", async () => {
  await page.goto(`/console/runs/${orders.runId}`);
  await page.getByRole('heading', { name: `Run of ${orders.name}` }).waitFor();
  const steps = page.getByRole('list', { name: 'Steps' }).getByRole('button');
  await expect(steps.allInnerTexts()).resolves.toEqual([
    expect.stringMatching(/greet\s+core\.set\s+completed\s+\d+(\.\d+)? m?s/),
    expect.stringMatching(/archive\s+core\.set\s+completed\s+\d+(\.\d+)? m?s/),
    expect.stringMatching(/reply\s+core\.return\s+completed\s+\d+(\.\d+)? m?s/),
  ]);
  // The response the webhook caller got.
  await expect(page.getByLabel('Answer of the run').innerText()).resolves.toContain('"message": "Hello Ada"');
  await expect(page.getByText('Answered by step reply with HTTP 200').isVisible()).resolves.toBe(true);
  // The same run in the Temporal Web UI (the embedded dev server's, in this stack).
  await expect(page.getByRole('link', { name: 'Open in Temporal' }).getAttribute('href')).resolves.toMatch(
    new RegExp(`/namespaces/default/workflows/${orders.runId}(/|$)`),
  );

  await page.getByRole('button', { name: /^greet/ }).click();
  await expect(page.getByLabel('Output of greet', { exact: true }).innerText()).resolves.toContain('"message": "Hello Ada"');

  // archive's output (140,000 characters) is over the inline limit: a reference, fetched when asked.
  await page.getByRole('button', { name: /^archive/ }).click();
  const load = page.getByRole('button', { name: /Load Output of archive \(13\d KB\)/ });
  await load.click();
  const output = page.locator('pre[aria-label="Output of archive"]');
  await output.waitFor();
  await expect(output.innerText()).resolves.toContain('n'.repeat(1000));
  await screenshot(page, 'runs-run');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('rerun from the run page starts a new run and opens it', async () => {
  await page.goto(`/console/runs/${orders.runId}`);
  await page.getByRole('button', { name: 'Rerun' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/console/runs/') && !url.pathname.endsWith(orders.runId));
  const rerunId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
  const facts = page.locator('dl.run-facts');
  await eventually(
    () => facts.innerText(),
    (text) => /Mode\s+rerun/i.test(text) && /Status\s+completed/i.test(text),
    20_000,
  );
  expect(await a.readExecution(rerunId)).toMatchObject({ rerunOf: orders.runId, mode: 'rerun', status: 'completed' });
  await page.getByRole('link', { name: 'earlier run' }).waitFor();
});

test('mode and trigger filters narrow the list (GET /executions mode and triggerId)', async () => {
  await page.goto('/console/runs');
  await page.getByRole('button', { name: 'Filters' }).click();
  await page.getByLabel('Mode').selectOption('webhook');
  await expectRuns([broken.name, orders.name]);
  await page.getByLabel('Mode').selectOption('rerun');
  await expectRuns([orders.name]);
  await page.getByLabel('Mode').selectOption('');
  await page.getByLabel('Trigger').selectOption({ label: broken.trigger.name });
  await expectRuns([broken.name]);
  expect(new URL(page.url()).searchParams.get('triggerId')).toBe(broken.trigger.id);
});

test('a viewer sees runs but no rerun or cancel', async () => {
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/runs/${orders.runId}`);
  await viewer.getByRole('heading', { name: `Run of ${orders.name}` }).waitFor();
  await viewer.getByRole('list', { name: 'Steps' }).waitFor();
  expect(await viewer.getByRole('button', { name: /Rerun|Cancel run/ }).count()).toBe(0);
  await screenshot(viewer, 'runs-run-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.context().close();
});

test('a waiting run shows what it waits for and, to an admin, a form built from the event schema; sending it resumes the run', async () => {
  const approval = await a.createWorkflow(
    [
      {
        stepId: 'approval',
        stepType: 'core.wait',
        input: {
          event: {
            name: 'approved',
            schema: {
              type: 'object',
              required: ['approved', 'level'],
              properties: { approved: { type: 'boolean' }, level: { enum: ['low', 'high'] }, note: { type: 'string', description: 'Why' } },
            },
          },
        },
      },
      { stepId: 'after', stepType: 'core.set', input: { values: { level: '{{ approval.level }}', note: '{{ approval.note }}' } } },
    ],
    { name: uniqueName('approval') },
  );
  const started = await request(stack.harness.app).post(`/workflows/${approval.id}/runs`).set('Authorization', `Bearer ${org.ownerToken}`).send({ input: {} });
  const id = started.body.executionId as string;
  await eventually(
    () => a.readExecution(id),
    (e) => e.status === 'waiting',
  );

  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/runs/${id}`);
  await viewer.getByRole('heading', { name: 'Waiting for “approved”' }).waitFor();
  expect(await viewer.getByRole('form', { name: 'Send event approved' }).count()).toBe(0);
  await viewer.context().close();

  await page.goto(`/console/runs/${id}`);
  const form = page.getByRole('form', { name: 'Send event approved' });
  await form.waitFor();
  await form.getByLabel('approved').check();
  await form.getByLabel('level').selectOption('high');
  await form.getByLabel('note (optional)').fill('looks fine');
  await screenshot(page, 'runs-run-waiting');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Send approved' }).click();
  await eventually(
    () => page.locator('.run-facts').innerText(),
    (text) => /Status\s+completed/i.test(text),
    20_000,
  );
  expect((await a.readExecution(id)).steps.find((s) => s.stepId === 'after')?.output).toEqual({ level: 'high', note: 'looks fine' });
});

test('the delivery id filter (GET /executions deliveryId) shows only the run a delivery started; its page shows the id', async () => {
  const hook = await a.createHook(
    [{ stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { order: '{{ initial.order }}' } } } }],
    { name: uniqueName('deliveries') },
  );
  // Two deliveries as a sender with an Idempotency-Key sends them (the default delivery id source), and a retry of the first.
  const first = uniqueName('order-1001');
  const second = uniqueName('order-1002');
  const deliver = (key: string, order: number) => request(stack.harness.app).post(hook.path).set('Idempotency-Key', key).send({ order });
  expect((await deliver(first, 1001)).body).toEqual({ order: 1001 });
  expect((await deliver(second, 1002)).body).toEqual({ order: 1002 });
  expect((await deliver(first, 1001)).body).toEqual({ order: 1001 });
  const runs = await eventually(
    () => a.listExecutions({ workflowId: hook.workflow.id }),
    (l) => l.total === 2 && l.data.every((r) => r.status === 'completed'),
  );
  const firstRun = runs.data.find((r) => r.deliveryId === first)!;

  await page.goto(`/console/runs?workflowId=${hook.workflow.id}`);
  await expectRuns([hook.workflow.name, hook.workflow.name]);
  const field = page.getByLabel('Delivery id');
  await field.fill(first);
  const listed = page.waitForRequest((r) => r.url().includes('/executions?') && new URL(r.url()).searchParams.get('deliveryId') === first);
  await field.press('Enter');
  await listed;
  expect(new URL(page.url()).searchParams.get('deliveryId')).toBe(first);
  await expectRuns([hook.workflow.name]);
  await expect(rows().getByRole('link').getAttribute('href')).resolves.toBe(`/console/runs/${encodeURIComponent(firstRun.id)}`);
  await screenshot(page, 'runs-list-delivery-id');
  expect(await accessibilityViolations(page)).toEqual([]);

  // The filter lives in the URL: a reload keeps it, in the field too.
  await page.reload();
  await expectRuns([hook.workflow.name]);
  await expect(field.inputValue()).resolves.toBe(first);

  await rows().getByRole('link').click();
  await page.getByRole('heading', { name: `Run of ${hook.workflow.name}` }).waitFor();
  const facts = page.locator('dl.run-facts');
  await eventually(
    () => facts.innerText(),
    // The facts' labels are drawn in capitals (text-transform), which innerText keeps.
    (text) => new RegExp(`Delivery id\\s+${first}`, 'i').test(text),
    10_000,
  );
  await screenshot(page, 'runs-run-delivery-id');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Back to the filtered list; emptying the field shows every run again.
  await page.goBack();
  await expectRuns([hook.workflow.name]);
  await field.fill('');
  await expectRuns([hook.workflow.name, hook.workflow.name]);
  expect(new URL(page.url()).searchParams.get('deliveryId')).toBeNull();
  // A run not started by a delivery shows no delivery id.
  await page.goto(`/console/runs/${broken.runId}`);
  await page.getByRole('heading', { name: `Run of ${broken.name}` }).waitFor();
  await expect(facts.innerText()).resolves.not.toMatch(/Delivery id/i);
});
