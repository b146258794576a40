import type { Locator, Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { createDashboard, createSalesSource } from './dashboard-fixtures';
import { as, expectStatus } from './harness';

/**
 * The dashboards area in a real browser: a dashboard over a data-store-backed
 * source with known records, every chart type drawn with the right numbers,
 * filters and the time zone in the URL, edit mode (drag saved through the
 * layout route, a widget added through the query builder), a mistyped field's hint in
 * its tile, and a viewer who sees no edit controls.
 */

type Json = Record<string, any>;

let stack: ConsoleStack;
let org: TestOrg;
let dashboard: Json;
let ds: string;
const widgets: Record<string, Json> = {};

/** Sales of 42 in all: EU 15, US 20, APAC 7; three hours on 10 March (UTC), one on the 11th. */
const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-10T05:15:00Z', amount: 20, region: 'US' },
  k3: { at: '2026-03-10T05:45:00Z', amount: 5, region: 'EU' },
  k4: { at: '2026-03-11T12:00:00Z', amount: 7, region: 'APAC' },
};

const owner = () => as(stack.harness.app, org.ownerToken);

async function addWidget(title: string, chartType: string, queryConfig: Json, sourceId: string): Promise<Json> {
  const res = await owner().post(`/dashboards/${dashboard.id}/widgets`).send({ title, chartType, dataSourceId: sourceId, queryConfig });
  expectStatus(res, 201);
  return res.body;
}

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  const source = await createSalesSource(stack.harness.app, org, SALES, 'Web shop orders');
  ds = source.servingRelation;
  const m = (field: string) => `${ds}.${field}`;
  // No fixed zone: each viewer's own, so the switch decides the hours.
  dashboard = await createDashboard(stack.harness.app, org, { name: 'Sales overview', description: 'Orders of the web shop' });
  expectStatus(
    await owner()
      .patch(`/dashboards/${dashboard.id}`)
      .send({ filterConfig: [{ id: 'region', dataSourceId: source.id, dimension: 'region', label: 'Region' }] }),
    200,
  );
  widgets.stat = await addWidget('Total sales', 'stat-card', { measures: [m('amount')] }, source.id);
  widgets.line = await addWidget(
    'Sales by hour',
    'line',
    { measures: [m('amount')], timeDimensions: [{ dimension: m('at'), granularity: 'hour' }] },
    source.id,
  );
  widgets.bar = await addWidget('Sales by region', 'bar', { measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } }, source.id);
  widgets.pie = await addWidget('Region share', 'pie', { measures: [m('amount')], dimensions: [m('region')] }, source.id);
  widgets.table = await addWidget('Sales table', 'table', { measures: [m('amount')], dimensions: [m('region')], order: { [m('region')]: 'asc' } }, source.id);
  widgets.broken = await addWidget('Broken widget', 'bar', { measures: [m('amuont')], dimensions: [m('region')] }, source.id);
  const place = (w: Json, x: number, y: number, width: number, h: number) => ({ widgetId: w.id, x, y, w: width, h });
  expectStatus(
    await owner()
      .patch(`/dashboards/${dashboard.id}/layout`)
      .send({
        layout: [
          place(widgets.stat, 0, 0, 3, 2),
          place(widgets.broken, 0, 2, 3, 3),
          place(widgets.line, 3, 0, 9, 5),
          place(widgets.bar, 0, 5, 6, 4),
          place(widgets.pie, 6, 5, 6, 4),
          place(widgets.table, 0, 9, 6, 4),
        ],
      }),
    200,
  );
}, 180_000);
afterAll(() => stack?.close());

const tile = (page: Page, title: string) => page.locator('article.tile', { has: page.getByRole('heading', { name: title, exact: true }) });
const statText = (page: Page) => tile(page, 'Total sales').locator('.stat-value');
/** The texts of what `locator` finds, once there is at least one. */
async function texts(locator: Locator): Promise<string[]> {
  await locator.first().waitFor({ state: 'attached' });
  return locator.allTextContents();
}
const axisTexts = (page: Page) => texts(tile(page, 'Sales by hour').locator('svg text'));

test('the list shows the dashboard; a dashboard draws every widget with the right numbers', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto('/console/dashboards');
  const row = page.getByRole('row', { name: /Sales overview/ });
  await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('Orders of the web shop');
  await screenshot(page, 'dashboards-list');
  expect(await accessibilityViolations(page)).toEqual([]);

  await row.getByRole('link', { name: 'Sales overview' }).click();
  await page.getByRole('heading', { level: 1, name: 'Sales overview' }).waitFor();
  await expect(statText(page).textContent()).resolves.toBe('42');
  // Each chart is an SVG drawn by ECharts, named for assistive technology by its title and type.
  for (const [title, type] of [
    ['Sales by hour', 'line'],
    ['Sales by region', 'bar'],
    ['Region share', 'pie'],
  ]) {
    const chart = tile(page, title).getByRole('img', { name: `${title} (${type} chart)` });
    await chart.locator('svg path').first().waitFor({ state: 'attached' });
    expect(await chart.locator('svg path').count()).toBeGreaterThan(0);
  }
  await tile(page, 'Sales by region').locator('svg text', { hasText: 'APAC' }).waitFor();
  await expect(texts(tile(page, 'Sales by region').locator('svg text'))).resolves.toEqual(expect.arrayContaining(['APAC', 'EU', 'US']));
  const table = tile(page, 'Sales table').getByRole('table');
  await expect(texts(table.getByRole('columnheader'))).resolves.toEqual(['Region', 'Amount']);
  await expect(texts(table.getByRole('row', { name: /EU/ }).getByRole('cell'))).resolves.toEqual(['EU', '15']);
  // Hours in the browser's zone (UTC in these tests).
  await expect(axisTexts(page)).resolves.toEqual(expect.arrayContaining(['Mar 10, 2026, 03:00 AM', 'Mar 10, 2026, 05:00 AM']));

  // The mistyped field: the tile says what matched nothing, and the validate endpoint's hint says what was meant.
  const broken = tile(page, 'Broken widget');
  await broken.getByRole('listitem').filter({ hasText: 'Unknown field "amuont"; did you mean "amount"?' }).waitFor();
  await expect(broken.textContent()).resolves.toContain('No data: amuont matched no field of the source');

  await screenshot(page, 'dashboards-dashboard');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.context().close();
});

test('a filter and the time zone switch redraw with new numbers, kept in the URL', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${dashboard.id}`);
  await expect(statText(page).textContent()).resolves.toBe('42');
  await page.getByRole('combobox', { name: 'Region' }).selectOption('EU');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('.tile-stat-card .stat-value')?.textContent === '15');
  expect(new URL(page.url()).searchParams.get('filter.region')).toBe('EU');
  await expect(tile(page, 'Sales table').getByRole('row').count()).resolves.toBe(2);

  await page.getByLabel('Time zone').selectOption('America/New_York');
  await tile(page, 'Sales by hour').locator('svg text', { hasText: 'Mar 9, 2026, 11:00 PM' }).waitFor();
  expect(await axisTexts(page)).not.toContain('Mar 10, 2026, 03:00 AM');
  expect(new URL(page.url()).searchParams.get('tz')).toBe('America/New_York');

  // Reload keeps both; back returns to the unfiltered dashboard.
  await page.reload();
  await expect(statText(page).textContent()).resolves.toBe('15');
  await expect(page.getByLabel('Time zone').inputValue()).resolves.toBe('America/New_York');

  // Exports carry the same filters and zone: a widget's rows as CSV, the dashboard as the server's report PDF.
  const csv = await downloaded(page, () => tile(page, 'Sales table').getByRole('button', { name: 'Export Sales table as CSV' }).click());
  expect(csv.name).toMatch(/^Sales table.*\.csv$/);
  expect(csv.body.toString('utf8').trim().split(/\r?\n/)).toEqual(['Region,Amount', 'EU,15']);
  const reportRequest = page.waitForRequest((r) => r.url().endsWith(`/dashboards/${dashboard.id}/report.pdf`));
  const pdf = await downloaded(page, () => page.getByRole('button', { name: 'Export PDF' }).click());
  expect((await reportRequest).postDataJSON()).toEqual({ filters: { region: ['EU'] }, timezone: 'America/New_York' });
  expect(pdf.name).toMatch(/\.pdf$/);
  expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  await page.goBack();
  await page.goBack();
  await page.waitForFunction(() => (globalThis as any).document.querySelector('.tile-stat-card .stat-value')?.textContent === '42');
  await page.context().close();
});

test('edit mode: a dragged tile is saved, a widget is added through the query builder', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${dashboard.id}`);
  await page.getByRole('button', { name: 'Edit dashboard' }).click();
  const handle = tile(page, 'Sales table').locator('.tile-drag-handle');
  await handle.waitFor();
  await screenshot(page, 'dashboards-edit');
  expect(await accessibilityViolations(page)).toEqual([]);

  // Six columns to the right: into the free space beside the table, on the same row.
  await handle.scrollIntoViewIfNeeded();
  const gridBox = (await page.locator('.react-grid-layout').boundingBox())!;
  const box = (await handle.boundingBox())!;
  const start = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const layoutSaved = page.waitForResponse((r) => r.url().endsWith('/layout') && r.request().method() === 'PATCH');
  await drag(page, start, gridBox.width / 2);
  expect((await layoutSaved).status()).toBe(200);
  expect(await tableItem()).toEqual({ widgetId: widgets.table.id, x: 6, y: 9, w: 6, h: 4 });

  // Add widget opens the query builder (test/console-query-builder.integration.test.ts covers it); saving returns here, still in edit mode.
  await page.getByRole('link', { name: 'Add widget' }).click();
  await page.getByLabel('Data source').selectOption({ label: 'Web shop orders' });
  await page.getByLabel('Title').fill('Orders per region');
  await page.getByRole('group', { name: 'Measures' }).getByLabel('Count', { exact: true }).check();
  await page.getByRole('group', { name: 'Group by' }).getByLabel('Region').check();
  await page.getByRole('radio', { name: 'Table' }).check();
  await page.locator('.qb-preview[data-state="ready"]').waitFor();
  await screenshot(page, 'dashboards-add-widget');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Save widget' }).click();
  const added = tile(page, 'Orders per region');
  await expect(texts(added.getByRole('row', { name: /APAC/ }).getByRole('cell'))).resolves.toEqual(['APAC', '1']);
  const titles = async () => (await owner().get(`/dashboards/${dashboard.id}`)).body.widgets.map((w: Json) => w.title);
  expect(await titles()).toContain('Orders per region');

  // Deleting asks first.
  await added.getByRole('button', { name: 'Delete Orders per region' }).click();
  await added.getByRole('button', { name: 'Delete', exact: true }).click();
  await added.waitFor({ state: 'detached' });
  expect(await titles()).not.toContain('Orders per region');

  // A layout the API refuses (it names a widget deleted meanwhile, elsewhere) is reported and the grid goes back to the stored one.
  expectStatus(await owner().delete(`/dashboards/widgets/${widgets.bar.id}`), 200);
  await handle.scrollIntoViewIfNeeded();
  const moved = (await handle.boundingBox())!;
  const refused = page.waitForResponse((r) => r.url().endsWith('/layout') && r.request().method() === 'PATCH');
  await drag(page, { x: moved.x + moved.width / 2, y: moved.y + moved.height / 2 }, -gridBox.width / 2);
  expect((await refused).status()).toBe(400);
  await page.getByRole('alert').filter({ hasText: 'is not a widget of this dashboard' }).waitFor();
  await page.waitForFunction((id) => {
    const item = (globalThis as any).document.querySelector(`[data-widget-id="${id}"]`)?.parentElement;
    return item && item.style.transform.startsWith('translate(') && !item.style.transform.startsWith('translate(0px');
  }, widgets.table.id);
  expect(await tableItem()).toEqual(expect.objectContaining({ x: 6, y: 9 }));
  await page.context().close();
});

/** The file a click downloads: its name and bytes. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; body: Buffer }> {
  const download = page.waitForEvent('download');
  await click();
  const file = await download;
  const stream = await file.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { name: file.suggestedFilename(), body: Buffer.concat(chunks) };
}

/** Drags by the mouse from `start`, `dx` pixels sideways, as a person does. */
async function drag(page: Page, start: { x: number; y: number }, dx: number) {
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + dx, start.y, { steps: 12 });
  await page.mouse.up();
}

/** The table widget's item of the stored layout. */
async function tableItem(): Promise<Json> {
  const res = await owner().get(`/dashboards/${dashboard.id}`);
  return res.body.layout.find((l: Json) => l.widgetId === widgets.table.id);
}

test('a viewer sees the charts and no edit controls', async () => {
  const page = await stack.signedInPage(org.tokens.viewer);
  await page.goto(`/console/dashboards/${dashboard.id}?edit=1`);
  await expect(statText(page).textContent()).resolves.toBe('42');
  expect(await page.getByRole('button', { name: /Edit dashboard|Add widget|Delete/ }).count()).toBe(0);
  expect(await page.locator('.tile-drag-handle').count()).toBe(0);
  await page.goto('/console/dashboards');
  await page.getByRole('link', { name: 'Sales overview' }).waitFor();
  expect(await page.getByRole('button', { name: 'New dashboard' }).count()).toBe(0);
  await page.context().close();
});

test('an admin creates a dashboard from the list and lands on it in edit mode', async () => {
  const page = await stack.signedInPage(org.tokens.admin);
  await page.goto('/console/dashboards');
  await page.getByRole('button', { name: 'New dashboard' }).click();
  await page.getByLabel('Name').fill('Regional review');
  await page.getByLabel('Description').fill('Quarterly numbers');
  await page.getByLabel('Time zone').selectOption('Europe/Paris');
  await page.getByRole('button', { name: 'Create dashboard' }).click();
  await page.getByRole('heading', { level: 1, name: 'Regional review' }).waitFor();
  await page.getByText('This dashboard has no widgets yet.').waitFor();
  expect(new URL(page.url()).searchParams.get('edit')).toBe('1');
  await page.getByRole('link', { name: 'Add widget' }).waitFor();
  // A dashboard with its own zone shows it to everyone: the switch says so instead of changing it (an editor changes it in the settings).
  await expect(page.getByLabel('Time zone').isDisabled()).resolves.toBe(true);
  const list = await as(stack.harness.app, org.tokens.admin).get('/dashboards');
  expect(list.body.find((d: Json) => d.name === 'Regional review')).toEqual(
    expect.objectContaining({ description: 'Quarterly numbers', timezone: 'Europe/Paris' }),
  );
  await page.context().close();
});
