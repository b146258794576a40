import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { createDashboard, createSalesSource } from './dashboard-fixtures';
import { as, expectStatus } from './harness';

/**
 * A dashboard run from the console alone (issue 40): filters added and
 * edited in place (every widget over the filtered source follows, the others
 * do not, and each tile says which filters narrow it), the time zone of a
 * dashboard created with a fixed one changed both ways, name, description
 * and default changed, text tiles written with a preview (their Markdown
 * inert where it is unsafe), tiles and dashboards deleted with a
 * confirmation, and the tiles in one column on a phone.
 */

type Json = Record<string, any>;

let stack: ConsoleStack;
let org: TestOrg;
let sales: Json;
let board: Json;
const widgets: Record<string, Json> = {};

/** Sales of 42 in all: EU 15, US 20, APAC 7. */
const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-10T05:15:00Z', amount: 20, region: 'US' },
  k3: { at: '2026-03-10T05:45:00Z', amount: 5, region: 'EU' },
  k4: { at: '2026-03-11T12:00:00Z', amount: 7, region: 'APAC' },
};
/** Another source, which a filter over the sales leaves alone: 100 in all, in EU too. */
const RETURNS = { r1: { at: '2026-03-10T08:00:00Z', amount: 100, region: 'EU' } };

const owner = () => as(stack.harness.app, org.ownerToken);

async function addWidget(dashboardId: string, title: string, chartType: string, source: Json, queryConfig: Json): Promise<Json> {
  const res = await owner().post(`/dashboards/${dashboardId}/widgets`).send({ title, chartType, dataSourceId: source.id, queryConfig });
  expectStatus(res, 201);
  return res.body;
}

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  sales = await createSalesSource(stack.harness.app, org, SALES, 'Shop sales');
  const returns = await createSalesSource(stack.harness.app, org, RETURNS, 'Shop returns');
  const m = (source: Json, field: string) => `${source.servingRelation}.${field}`;
  // Created with a fixed zone: before issue 40 the console could never change it.
  board = await createDashboard(stack.harness.app, org, { name: 'Shop board', timezone: 'Europe/Paris' });
  widgets.total = await addWidget(board.id, 'Total sales', 'stat-card', sales, { measures: [m(sales, 'amount')] });
  widgets.regions = await addWidget(board.id, 'Sales by region', 'table', sales, {
    measures: [m(sales, 'amount')],
    dimensions: [m(sales, 'region')],
    order: { [m(sales, 'region')]: 'asc' },
  });
  widgets.returns = await addWidget(board.id, 'Total returns', 'stat-card', returns, { measures: [m(returns, 'amount')] });
  widgets.hourly = await addWidget(board.id, 'Sales by hour', 'line', sales, {
    measures: [m(sales, 'amount')],
    timeDimensions: [{ dimension: m(sales, 'at'), granularity: 'hour' }],
  });
}, 180_000);
afterAll(() => stack?.close());

const tile = (page: Page, title: string) => page.locator('article.tile', { has: page.getByRole('heading', { name: title, exact: true }) });
const stat = (page: Page, title: string) => tile(page, title).locator('.stat-value');
/** Waits until the stat tile `title` shows `value`. */
const statIs = (page: Page, title: string, value: string) =>
  page.waitForFunction(
    ([t, v]) =>
      [...(globalThis as any).document.querySelectorAll('article.tile')].some(
        (a: any) => a.querySelector('.tile-title')?.textContent === t && a.querySelector('.stat-value')?.textContent === v,
      ),
    [title, value],
  );
const hourLabel = (page: Page, text: string) => tile(page, 'Sales by hour').locator('svg text', { hasText: text }).waitFor();
const stored = async () => (await owner().get(`/dashboards/${board.id}`)).body;

test('filters are added and edited in the console: every widget over the filtered source follows, and each tile says which filters apply', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${board.id}?edit=1`);
  await statIs(page, 'Total sales', '42');
  await expect(stat(page, 'Total returns').textContent()).resolves.toBe('100');
  const editor = page.getByRole('region', { name: 'Filters', exact: true });
  await editor.getByText('No filters yet.').waitFor();

  await editor.getByRole('button', { name: 'Add filter' }).click();
  await editor.getByLabel('Filter data source').selectOption({ label: 'Shop sales' });
  // The source's fields come from the analytics metadata; the label follows the field's title.
  await editor.getByLabel('Filter field').locator('option', { hasText: 'Region' }).waitFor({ state: 'attached' });
  await editor.getByLabel('Filter field').selectOption({ label: 'Region' });
  await expect(editor.getByLabel('Filter label').inputValue()).resolves.toBe('Region');
  // The default's suggestions are the field's distinct values.
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.filter-form datalist option').length === 3);
  expect(await editor.locator('datalist option').evaluateAll((os) => os.map((o: any) => o.value))).toEqual(['APAC', 'EU', 'US']);
  await editor.getByLabel('Add a default value').fill('EU');
  await editor.getByRole('button', { name: 'Add value' }).click();
  await screenshot(page, 'dashboard-filter-editor');
  expect(await accessibilityViolations(page)).toEqual([]);
  await editor.getByRole('button', { name: 'Save filter' }).click();

  // Both widgets over the sales follow the default; the returns, over another source, do not.
  await statIs(page, 'Total sales', '15');
  await tile(page, 'Sales by region').getByRole('row').nth(2).waitFor({ state: 'detached' });
  await expect(tile(page, 'Sales by region').getByRole('row').count()).resolves.toBe(2);
  await expect(stat(page, 'Total returns').textContent()).resolves.toBe('100');
  for (const title of ['Total sales', 'Sales by region', 'Sales by hour']) {
    await expect(
      tile(page, title)
        .getByRole('list', { name: `Dashboard filters on ${title}` })
        .textContent(),
    ).resolves.toBe('Region: EU');
  }
  expect(await tile(page, 'Total returns').getByRole('list').count()).toBe(0);
  const saved = await stored();
  expect(saved.filterConfig).toEqual([{ id: 'region', dataSourceId: sales.id, dimension: 'region', label: 'Region' }]);
  expect(saved.filterDefaults).toEqual({ region: ['EU'] });

  // A viewer's pick in the filter bar applies over the default, and the tiles say so.
  await page.getByRole('combobox', { name: 'Region', exact: true }).selectOption('US');
  await statIs(page, 'Total sales', '20');
  await expect(tile(page, 'Total sales').getByRole('list').textContent()).resolves.toBe('Region: US');
  await page.goto(`/console/dashboards/${board.id}?edit=1`);

  // Edited: another label and default.
  await editor.getByRole('button', { name: 'Edit filter Region' }).click();
  await editor.getByRole('button', { name: 'Remove default value EU' }).click();
  await editor.getByLabel('Add a default value').fill('APAC');
  await editor.getByLabel('Filter label').fill('Market');
  await editor.getByRole('button', { name: 'Save filter' }).click();
  await statIs(page, 'Total sales', '7');
  await expect(tile(page, 'Total sales').getByRole('list').textContent()).resolves.toBe('Market: APAC');
  expect((await stored()).filterDefaults).toEqual({ region: ['APAC'] });

  // Removed: every number is whole again.
  await editor.getByRole('button', { name: 'Remove filter Market' }).click();
  await statIs(page, 'Total sales', '42');
  expect(await tile(page, 'Total sales').getByRole('list').count()).toBe(0);
  expect(await stored()).toEqual(expect.objectContaining({ filterConfig: [], filterDefaults: {} }));
  await page.context().close();
});

test('a dashboard created with a fixed zone is switched to each viewer’s own and back; renamed, described and made default', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${board.id}`);
  // 03:30 UTC is 04:30 in Paris.
  await hourLabel(page, 'Mar 10, 2026, 04:00 AM');
  const zone = page.getByLabel('Time zone', { exact: true });
  await expect(zone.isDisabled()).resolves.toBe(true);
  await page.getByText('This dashboard shows times in Europe/Paris for everyone.').waitFor();

  await page.getByRole('button', { name: 'Change time zone' }).click();
  const settings = page.getByRole('form', { name: 'Dashboard settings' });
  await settings.getByLabel('Dashboard time zone').selectOption({ label: "Each viewer's own" });
  await settings.getByLabel('Name').fill('Shop board, renamed');
  await settings.getByLabel('Description').fill('What the shop sold');
  await settings.getByLabel('Default dashboard').check();
  await screenshot(page, 'dashboard-settings');
  expect(await accessibilityViolations(page)).toEqual([]);
  await settings.getByRole('button', { name: 'Save settings' }).click();

  await page.getByRole('heading', { level: 1, name: 'Shop board, renamed' }).waitFor();
  await page.locator('.page-subtitle', { hasText: 'What the shop sold' }).getByText('Default').waitFor();
  // Each viewer's own now: the browser's (UTC), and the viewer's pick in the URL works as before.
  await hourLabel(page, 'Mar 10, 2026, 03:00 AM');
  await expect(zone.isEnabled()).resolves.toBe(true);
  await zone.selectOption('America/New_York');
  await hourLabel(page, 'Mar 9, 2026, 11:00 PM');
  expect(new URL(page.url()).searchParams.get('tz')).toBe('America/New_York');
  expect(await stored()).toEqual(expect.objectContaining({ name: 'Shop board, renamed', description: 'What the shop sold', isDefault: true, timezone: null }));

  // Fixed again, to another zone: it wins over the viewer's pick still in the URL.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await settings.getByLabel('Dashboard time zone').selectOption('Asia/Tokyo');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await hourLabel(page, 'Mar 10, 2026, 12:00 PM');
  await page.getByText('This dashboard shows times in Asia/Tokyo for everyone.').waitFor();
  await expect(zone.isDisabled()).resolves.toBe(true);
  expect((await stored()).timezone).toBe('Asia/Tokyo');
  await page.context().close();
});

test('a text tile is added with a preview, edited and deleted; its script and javascript: link stay inert; charts link to the query builder', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${board.id}?edit=1`);
  await statIs(page, 'Total sales', '42');
  // Charts are added and edited in the query builder, under this dashboard's address.
  await expect(page.getByRole('link', { name: 'Add widget' }).getAttribute('href')).resolves.toBe(`/console/dashboards/${board.id}/widgets/new`);
  await expect(tile(page, 'Total sales').getByRole('link', { name: 'Edit Total sales' }).getAttribute('href')).resolves.toBe(
    `/console/dashboards/${board.id}/widgets/${widgets.total.id}/edit`,
  );

  await page.getByRole('button', { name: 'Add text' }).click();
  const form = page.getByRole('form', { name: 'Add text', exact: true });
  await form.getByLabel('Tile title').fill('About these numbers');
  const markdown = [
    '## Read me first',
    '',
    'Sales are **net of refunds**.',
    '',
    '<script>globalThis.__injected = 1</script> <img src=x onerror="globalThis.__injected = 2">',
    '',
    '[bad link](javascript:globalThis.__injected=3) [the docs](https://example.com/docs)',
  ].join('\n');
  await form.getByLabel('Text (Markdown)').fill(markdown);
  const preview = form.getByRole('region', { name: 'Preview of the text' });
  await preview.getByRole('heading', { name: 'Read me first' }).waitFor();
  await screenshot(page, 'dashboard-text-editor');
  expect(await accessibilityViolations(page)).toEqual([]);
  await form.getByRole('button', { name: 'Add text tile' }).click();

  const text = tile(page, 'About these numbers');
  await text.getByRole('heading', { name: 'Read me first' }).waitFor();
  await expect(text.locator('strong').textContent()).resolves.toBe('net of refunds');
  // Raw HTML is shown as its characters, never made into elements; the javascript: link is no link.
  await expect(text.textContent()).resolves.toContain('<script>globalThis.__injected = 1</script>');
  expect(await text.locator('script, img').count()).toBe(0);
  expect(await text.getByRole('link').evaluateAll((links) => links.map((a: any) => a.getAttribute('href')))).toEqual(['https://example.com/docs']);
  await expect(text.textContent()).resolves.toContain('[bad link](javascript:globalThis.__injected=3)');
  expect(await page.evaluate(() => (globalThis as any).__injected)).toBeUndefined();
  const created = (await stored()).widgets.find((w: Json) => w.chartType === 'text');
  expect(created).toEqual(expect.objectContaining({ title: 'About these numbers', dataSourceId: null, queryConfig: null, displayConfig: { markdown } }));
  // No filter narrows a text tile, and it has nothing to export.
  expect(await text.getByRole('button', { name: /CSV/ }).count()).toBe(0);

  await text.getByRole('button', { name: 'Edit text of About these numbers' }).click();
  const edit = page.getByRole('form', { name: 'Edit text of About these numbers' });
  await expect(edit.getByLabel('Text (Markdown)').inputValue()).resolves.toBe(markdown);
  await edit.getByLabel('Text (Markdown)').fill('# Quarter one\n\n- EU\n- US');
  await edit.getByRole('button', { name: 'Save text' }).click();
  await text.getByRole('heading', { name: 'Quarter one' }).waitFor();
  await expect(text.getByRole('listitem').allTextContents()).resolves.toEqual(['EU', 'US']);

  // Deleting the tile asks first.
  await text.getByRole('button', { name: 'Delete About these numbers' }).click();
  await text.getByRole('button', { name: 'Delete', exact: true }).click();
  await text.waitFor({ state: 'detached' });
  expect((await stored()).widgets.some((w: Json) => w.chartType === 'text')).toBe(false);
  await page.context().close();
});

test('on a phone the tiles stack in one column', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto(`/console/dashboards/${board.id}`);
  await statIs(page, 'Total sales', '42');
  const boxes = await page.locator('article.tile').evaluateAll((tiles) =>
    tiles.map((t: any) => {
      const r = t.getBoundingClientRect();
      return { x: Math.round(r.x), width: Math.round(r.width), top: Math.round(r.top) };
    }),
  );
  expect(boxes.length).toBe(4);
  expect(new Set(boxes.map((b) => b.x)).size).toBe(1);
  expect(new Set(boxes.map((b) => b.width)).size).toBe(1);
  expect(boxes.map((b) => b.top)).toEqual([...boxes.map((b) => b.top)].sort((a, b) => a - b));
  await screenshot(page, 'dashboard-phone');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.context().close();
});

test('a dashboard is deleted from its settings and from the list, each after a confirmation', async () => {
  const doomed = await createDashboard(stack.harness.app, org, { name: 'Old board' });
  const listed = await createDashboard(stack.harness.app, org, { name: 'Spare board' });
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${doomed.id}`);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const zone = page.getByRole('region', { name: 'Delete this dashboard' });
  await zone.getByRole('button', { name: 'Delete…' }).click();
  await zone.getByText('Delete “Old board” and its 0 widgets for everyone? Its data sources stay.').waitFor();
  await zone.getByRole('button', { name: 'Delete dashboard' }).click();
  await page.getByRole('heading', { level: 1, name: 'Dashboards' }).waitFor();
  expectStatus(await owner().get(`/dashboards/${doomed.id}`), 404);

  const row = page.getByRole('row', { name: /Spare board/ });
  await row.getByRole('button', { name: 'Delete Spare board…' }).click();
  await row.getByText('Delete “Spare board” and its widgets for everyone?').waitFor();
  await screenshot(page, 'dashboards-list-delete');
  expect(await accessibilityViolations(page)).toEqual([]);
  await row.getByRole('button', { name: 'Cancel' }).click();
  await row.getByRole('button', { name: 'Delete Spare board…' }).click();
  await row.getByRole('button', { name: 'Delete dashboard' }).click();
  await row.waitFor({ state: 'detached' });
  expectStatus(await owner().get(`/dashboards/${listed.id}`), 404);
  // The others stay.
  await page.getByRole('row', { name: /Shop board/ }).waitFor();
  await page.context().close();
});
