import request from 'supertest';
import type { Locator, Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { createDashboard, createSalesSource } from './dashboard-fixtures';
import { as, expectStatus } from './harness';
import { workflowApi, type WorkflowApi } from './workflow-api';

/**
 * The console on a phone held upright (390×844) and the runs list kept current: every page lays out at the
 * screen's width (the frame's areas behind a Menu button, the runs as a list, a run's timeline stacked, a
 * dashboard's tiles in one column, the graph inside the screen), the runs list shows a new run and a status change
 * without a reload, a whole row opens its run, the first run is a few Tab presses from the top, and cancelling a
 * run asks first.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1400, height: 900 };

let stack: ConsoleStack;
let org: TestOrg;
let a: WorkflowApi;
let page: Page;
const orders = { id: '', name: uniqueName('orders'), runId: '' };
const approval = { id: '', name: uniqueName('approval') };
let dashboardId = '';

const owner = () => as(stack.harness.app, org.ownerToken);
const rows = () => page.locator('table.runs-table tbody tr');
const rowOf = (runId: string) => rows().filter({ has: page.locator(`a[href="/console/runs/${encodeURIComponent(runId)}"]`) });

/** Neither the page nor anything on it is wider than the screen (what the browser would scroll sideways). */
async function expectNoPageOverflow() {
  const { scrollWidth, viewport } = await page.evaluate(() => ({
    scrollWidth: (globalThis as any).document.documentElement.scrollWidth as number,
    viewport: (globalThis as any).innerWidth as number,
  }));
  expect({ scrollWidth }).toEqual({ scrollWidth: viewport });
}

/** The element lies within the screen's width. */
async function expectWithinWidth(locator: Locator) {
  const box = (await locator.boundingBox())!;
  expect(box).not.toBeNull();
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
}

/** Starts a run of the approval workflow (it waits for its event) through the API; its id. */
async function startWaitingRun(): Promise<string> {
  const started = await owner().post(`/workflows/${approval.id}/runs`).send({ input: {} });
  expectStatus(started, 202);
  const id = started.body.executionId as string;
  await eventually(
    () => a.readExecution(id),
    (e) => e.status === 'waiting',
  );
  return id;
}

/** Tab presses from a fresh load of the runs list until the first run's link has focus (the skip link taken with Enter). */
async function tabsToFirstRun(): Promise<number> {
  await page.goto('/console/runs');
  const first = rows().first().getByRole('link');
  await first.waitFor();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to main content' });
  expect(await skip.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
  await expect(skip.isVisible()).resolves.toBe(true);
  await page.keyboard.press('Enter');
  for (let tabs = 2; tabs <= 12; tabs++) {
    await page.keyboard.press('Tab');
    if (await first.evaluate((el) => el === (globalThis as any).document.activeElement)) return tabs;
  }
  throw new Error('the first run link was not reached within 12 Tab presses');
}

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
  a = workflowApi(stack.harness.app, org);
  const hook = await a.createHook(
    [
      { stepId: 'greet', stepType: 'core.set', input: { values: { message: 'Hello {{ initial.customer }}' } } },
      { stepId: 'archive', stepType: 'core.set', input: { values: { done: true } } },
      { stepId: 'reply', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { message: '{{ greet.message }}' } } } },
    ],
    { name: orders.name },
  );
  orders.id = hook.workflow.id;
  expect((await request(stack.harness.app).post(hook.path).send({ customer: 'Ada' })).status).toBe(200);
  const listed = await eventually(
    () => a.listExecutions({ workflowId: orders.id }),
    (l) => l.total === 1 && l.data[0].status === 'completed',
  );
  orders.runId = listed.data[0].id;

  approval.id = (await a.createWorkflow([{ stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'approved' } } }], { name: approval.name })).id;

  const source = await createSalesSource(stack.harness.app, org, {
    k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
    k2: { at: '2026-03-10T05:15:00Z', amount: 20, region: 'US' },
    k3: { at: '2026-03-11T12:00:00Z', amount: 7, region: 'APAC' },
  });
  const dashboard = await createDashboard(stack.harness.app, org, { name: 'Sales on a phone' });
  dashboardId = dashboard.id;
  const m = (field: string) => `${source.servingRelation}.${field}`;
  const widget = async (title: string, chartType: string, queryConfig: Record<string, unknown>) => {
    const res = await owner().post(`/dashboards/${dashboardId}/widgets`).send({ title, chartType, dataSourceId: source.id, queryConfig });
    expectStatus(res, 201);
    return res.body.id as string;
  };
  const total = await widget('Total sales', 'stat-card', { measures: [m('amount')] });
  const share = await widget('Region share', 'pie', { measures: [m('amount')], dimensions: [m('region')] });
  const byRegion = await widget('Sales by region', 'bar', { measures: [m('amount')], dimensions: [m('region')] });
  // Side by side on a wide screen: three tiles on one row.
  const layout = [
    { widgetId: total, x: 0, y: 0, w: 3, h: 3 },
    { widgetId: share, x: 3, y: 0, w: 5, h: 4 },
    { widgetId: byRegion, x: 8, y: 0, w: 4, h: 4 },
  ];
  expectStatus(await owner().patch(`/dashboards/${dashboardId}/layout`).send({ layout }), 200);

  page = await stack.signedInPage(org.ownerToken);
  await page.setViewportSize(PHONE);
}, 180_000);
afterAll(() => stack?.close());

test('the runs list at 390 px: the areas behind a Menu button (Escape closes it), the run link on screen, nothing wider than the screen', async () => {
  await page.goto('/console/runs');
  const link = rowOf(orders.runId).getByRole('link');
  await link.waitFor();
  await expectWithinWidth(link);
  await expectNoPageOverflow();

  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
  const main = page.getByRole('navigation', { name: 'Main' });
  await expect(main.getByRole('link', { name: 'Data' }).isVisible()).resolves.toBe(false);
  await menu.click();
  await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
  for (const target of [
    main.getByRole('link', { name: 'Data' }),
    main.getByRole('link', { name: 'Settings' }),
    page.getByRole('button', { name: 'Sign out' }),
  ]) {
    await expect(target.isVisible()).resolves.toBe(true);
    await expectWithinWidth(target);
  }
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-runs-menu');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Escape closes it and gives the button its focus back.
  await main.getByRole('link', { name: 'Data' }).focus();
  await page.keyboard.press('Escape');
  await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
  expect(await menu.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
  await expect(main.getByRole('link', { name: 'Data' }).isVisible()).resolves.toBe(false);

  // By keyboard: Enter opens it, a link leads there and the menu folds again.
  await page.keyboard.press('Enter');
  await main.getByRole('link', { name: 'Settings' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/console/settings'));
  await expect(menu.getAttribute('aria-expanded')).resolves.toBe('false');
  await expectNoPageOverflow();

  await page.goto('/console/runs');
  await link.waitFor();
  await screenshot(page, 'narrow-runs');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test("a run's page at 390 px: the timeline stacked (each step's bar under its name), nothing wider than the screen", async () => {
  await page.goto(`/console/runs/${orders.runId}`);
  await page.getByRole('heading', { name: `Run of ${orders.name}` }).waitFor();
  const steps = page.getByRole('list', { name: 'Steps' }).locator('.step-row');
  await expect(steps.count()).resolves.toBe(3);
  for (const step of await steps.all()) {
    const name = (await step.locator('.step-name').boundingBox())!;
    const bar = (await step.locator('.step-track').boundingBox())!;
    expect(bar.y).toBeGreaterThanOrEqual(name.y + name.height - 1);
    await expectWithinWidth(step);
  }
  await steps.first().click();
  await page.getByLabel('Output of greet', { exact: true }).waitFor();
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-run');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('a dashboard at 390 px: its tiles in one column, nothing wider than the screen', async () => {
  await page.goto(`/console/dashboards/${dashboardId}`);
  const tiles = page.locator('.tile');
  await eventually(
    () => page.locator('.echart[data-drawn="true"]').count(),
    (n) => n === 2,
    20_000,
  );
  const boxes = await Promise.all((await tiles.all()).map(async (t) => (await t.boundingBox())!));
  expect(boxes).toHaveLength(3);
  // One column: every tile starts at the same left edge, takes most of the screen's width, and none sits beside another.
  for (const box of boxes) {
    expect(Math.round(box.x)).toBe(Math.round(boxes[0].x));
    expect(box.width).toBeGreaterThan(PHONE.width * 0.8);
  }
  const byTop = [...boxes].sort((p, q) => p.y - q.y);
  for (let i = 1; i < byTop.length; i++) expect(byTop[i].y).toBeGreaterThanOrEqual(byTop[i - 1].y + byTop[i - 1].height - 1);
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-dashboard');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('the other lists at 390 px scroll inside their own box, never the page', async () => {
  await page.setViewportSize(PHONE);
  for (const [path, table] of [
    ['/console/workflows', 'table.list'],
    [`/console/workflows/${orders.id}?tab=versions`, 'table.list'],
    ['/console/settings/members', 'table.list'],
    ['/console/settings/tokens', 'table.list'],
  ]) {
    await page.goto(path);
    await page.locator(table).first().waitFor();
    await expectNoPageOverflow();
  }
  await screenshot(page, 'narrow-settings-tokens');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test("a workflow's graph at 390 px: inside the screen, its steps on it, a step's panel opens under it", async () => {
  await page.goto(`/console/workflows/${orders.id}`);
  const graph = page.locator('.workflow-graph');
  await graph.waitFor();
  const greet = page.locator('.react-flow__node[data-id="greet"]');
  await greet.waitFor();
  await expectWithinWidth(graph);
  await expectWithinWidth(greet);
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-workflow-graph');
  expect(await accessibilityViolations(page)).toEqual([]);

  await greet.click();
  const panel = page.locator('aside.step-panel');
  await panel.waitFor();
  await panel.scrollIntoViewIfNeeded();
  await expectWithinWidth(panel);
  const graphBox = (await graph.boundingBox())!;
  expect((await panel.boundingBox())!.y).toBeGreaterThanOrEqual(graphBox.y + graphBox.height - 1);
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-workflow-step-panel');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('the runs list keeps itself current: a run started through the API appears and its status changes without a reload, focus stays put', async () => {
  await page.setViewportSize(DESKTOP);
  await page.goto('/console/runs');
  const older = rowOf(orders.runId).getByRole('link');
  await older.waitFor();
  // A reload would lose this; the link that has focus must keep it.
  await page.evaluate(() => ((globalThis as any).__notReloaded = true));
  await older.focus();

  const runId = await startWaitingRun();
  const row = rowOf(runId);
  await row.waitFor({ timeout: 15_000 });
  await eventually(
    () => row.locator('.badge').innerText(),
    (status) => status === 'waiting',
    15_000,
  );
  await expect(rows().first().innerText()).resolves.toContain(approval.name);

  expectStatus(await owner().post(`/executions/${runId}/events/approved`).send({}), 202);
  await eventually(
    () => row.locator('.badge').innerText(),
    (status) => status === 'completed',
    20_000,
  );
  expect(await page.evaluate(() => (globalThis as any).__notReloaded)).toBe(true);
  expect(await older.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
});

test('a click anywhere on a row opens its run; the link stays the one keyboard stop of the row', async () => {
  await page.goto('/console/runs');
  const row = rowOf(orders.runId);
  await row.waitFor();
  await expect(row.locator('a, button, [tabindex]').count()).resolves.toBe(1);
  // The Started cell: text, not the link.
  await row.locator('td').nth(4).click();
  await page.getByRole('heading', { name: `Run of ${orders.name}` }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/console/runs/${orders.runId}`);
});

test('the first run is at most 5 Tab presses from the top of the runs list, through "Skip to main content", wide and narrow', async () => {
  await page.setViewportSize(DESKTOP);
  expect(await tabsToFirstRun()).toBeLessThanOrEqual(5);
  await page.setViewportSize(PHONE);
  expect(await tabsToFirstRun()).toBeLessThanOrEqual(5);
  // The filters are one press away, and open by themselves on a filtered address.
  await page.getByRole('button', { name: 'Filters' }).click();
  await page.getByLabel('Status').selectOption('completed');
  await page.reload();
  await expect(page.getByLabel('Status').inputValue()).resolves.toBe('completed');
  await expect(page.getByRole('button', { name: 'Filters (1 applied)' }).getAttribute('aria-expanded')).resolves.toBe('true');
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-runs-filters');
  expect(await accessibilityViolations(page)).toEqual([]);
});

test('Cancel run asks first: keeping it running cancels nothing, confirming cancels the run', async () => {
  const runId = await startWaitingRun();
  await page.goto(`/console/runs/${runId}`);
  await page.getByRole('heading', { name: `Run of ${approval.name}` }).waitFor();
  await page.getByRole('button', { name: 'Cancel run' }).click();
  const prompt = page.getByRole('group', { name: 'Cancel the run?' });
  await prompt.waitFor();
  await expect(prompt.innerText()).resolves.toContain('Cancel this run?');
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-run-cancel-prompt');
  expect(await accessibilityViolations(page)).toEqual([]);

  await prompt.getByRole('button', { name: 'Keep it running' }).click();
  await prompt.waitFor({ state: 'detached' });
  const cancel = page.getByRole('button', { name: 'Cancel run' });
  await cancel.waitFor();
  expect(await cancel.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
  expect((await a.readExecution(runId)).status).toBe('waiting');

  await cancel.click();
  await prompt.getByRole('button', { name: 'Cancel run' }).click();
  await eventually(
    () => a.readExecution(runId),
    (e) => e.status === 'cancelled',
    20_000,
  );
  await eventually(
    () => page.locator('dl.run-facts').innerText(),
    (text) => /Status\s+cancelled/i.test(text),
    20_000,
  );
});

test("a workflow's triggers at 390 px; a webhook trigger's Delete and Turn authentication off ask first", async () => {
  const secured = await a.createTrigger(orders.id, { authentication: true });
  await page.setViewportSize(PHONE);
  await page.goto(`/console/workflows/${orders.id}?tab=triggers`);
  const card = page.getByRole('listitem', { name: `Webhook ${secured.name}` });
  await card.waitFor();
  await expectNoPageOverflow();

  await card.getByRole('button', { name: 'Turn authentication off' }).click();
  await card.getByText('Anyone who knows its URL can then start runs').waitFor();
  await card.getByRole('button', { name: 'Keep the secret' }).click();
  await card.getByRole('button', { name: 'Delete', exact: true }).click();
  await card.getByText('Callers of its URL get 404 from now on.').waitFor();
  await expectNoPageOverflow();
  await screenshot(page, 'narrow-workflow-triggers-delete');
  expect(await accessibilityViolations(page)).toEqual([]);
  await card.getByRole('button', { name: 'Keep it' }).click();
  const read = () => owner().get(`/webhook-triggers/${secured.id}`);
  expect((await read()).body).toMatchObject({ authentication: true });

  await card.getByRole('button', { name: 'Delete', exact: true }).click();
  await card.getByRole('button', { name: 'Delete webhook trigger' }).click();
  await card.waitFor({ state: 'detached' });
  expect((await read()).status).toBe(404);
});
