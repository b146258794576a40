import type { Locator, Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { createDashboard, createSalesSource } from './dashboard-fixtures';
import { as, expectStatus } from './harness';

/**
 * The query builder in a real browser (console/src/pages/dashboards/query-builder): a bar chart built from a
 * measure, a dimension and a filter (the field's own values suggested), previewed as a table and a chart, exported
 * and saved, then drawn on the dashboard with the same numbers; the widget edited (measure and chart type) and
 * drawn anew; chart types that cannot draw the query say why; the API's refusal shown in the preview; a 390 px screen;
 * and an organization with no data source sent to create one.
 */

type Json = Record<string, any>;

let stack: ConsoleStack;
let org: TestOrg;
let dashboard: Json;
let ds: string;

/** Sales of 42 in all: EU 15 (two orders), US 20 (one), APAC 7 (one). */
const SALES = {
  k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
  k2: { at: '2026-03-10T05:15:00Z', amount: 20, region: 'US' },
  k3: { at: '2026-03-10T05:45:00Z', amount: 5, region: 'EU' },
  k4: { at: '2026-03-11T12:00:00Z', amount: 7, region: 'APAC' },
};

const owner = () => as(stack.harness.app, org.ownerToken);
const widgetsOf = async (): Promise<Json[]> => (await owner().get(`/dashboards/${dashboard.id}`)).body.widgets;

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  const source = await createSalesSource(stack.harness.app, org, SALES, 'Web shop orders');
  ds = source.servingRelation;
  dashboard = await createDashboard(stack.harness.app, org, { name: 'Builder dashboard', timezone: 'UTC' });
}, 180_000);
afterAll(() => stack?.close());

const preview = (page: Page) => page.locator('.qb-preview');
/** The preview once it shows the answer to the query as it stands. */
async function previewReady(page: Page): Promise<Locator> {
  await page.locator('.qb-preview[data-state="ready"]').waitFor();
  return preview(page);
}
/** The preview table's body rows, as cell texts. */
async function previewRows(page: Page): Promise<string[][]> {
  const rows = (await previewReady(page)).getByRole('region', { name: 'Preview rows' }).locator('tbody tr');
  await rows.first().waitFor();
  const out: string[][] = [];
  for (const row of await rows.all()) out.push(await row.getByRole('cell').allTextContents());
  return out;
}
const tile = (page: Page, title: string) => page.locator('article.tile', { has: page.getByRole('heading', { name: title, exact: true }) });

test('a bar chart built from a measure, a dimension and a filter is previewed, exported and saved onto the dashboard', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${dashboard.id}/widgets/new`);
  await page.getByRole('heading', { level: 1, name: 'Add a widget' }).waitFor();
  // The organization's one source is already chosen.
  await expect(page.getByLabel('Data source').inputValue()).resolves.not.toBe('');
  await page.getByLabel('Title').fill('Sales by region');
  await page.getByRole('group', { name: 'Measures' }).getByLabel('Amount', { exact: true }).check();
  await page.getByRole('group', { name: 'Group by' }).getByLabel('Region', { exact: true }).check();
  await expect(previewRows(page)).resolves.toEqual(
    expect.arrayContaining([
      ['APAC', '7'],
      ['EU', '15'],
      ['US', '20'],
    ]),
  );

  // A filter: the field, an operator it takes, and values with the field's own values suggested.
  await page.getByRole('button', { name: 'Add filter' }).click();
  const filter = page.getByRole('group', { name: 'Filter 1' });
  await filter.getByLabel('Field').selectOption({ label: 'Region' });
  await filter.getByLabel('Operator').selectOption({ label: 'does not equal' });
  expect(await filter.getByLabel('Operator').locator('option').allTextContents()).not.toContain('is greater than');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.qb-filter datalist option').length === 3);
  expect(await filter.locator('datalist option').evaluateAll((os) => os.map((o) => (o as any).value))).toEqual(['APAC', 'EU', 'US']);
  await filter.getByLabel('Values').fill('APAC');
  await filter.getByLabel('Values').press('Enter');
  await filter.getByRole('button', { name: 'Remove value APAC' }).waitFor();
  await page.getByLabel('Order by').selectOption({ label: 'Region' });
  await page.getByLabel('Direction of Region').selectOption('asc');

  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.qb-preview[data-state="ready"] tbody tr').length === 2);
  await expect(previewRows(page)).resolves.toEqual([
    ['EU', '15'],
    ['US', '20'],
  ]);
  const chart = preview(page).getByRole('img', { name: 'Sales by region (bar chart)' });
  await page.locator('.qb-preview .echart[data-drawn="true"]').waitFor();
  const axis = await chart.locator('svg text').allTextContents();
  expect(axis).toEqual(expect.arrayContaining(['EU', 'US']));
  expect(axis).not.toContain('APAC');
  await screenshot(page, 'query-builder-new');
  expect(await accessibilityViolations(page)).toEqual([]);

  // CSV of the query as it stands.
  const csv = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
  expect(csv.name).toMatch(/^Sales by region.*\.csv$/);
  expect(csv.body.toString('utf8').trim().split(/\r?\n/)).toEqual(['Region,Amount', 'EU,15', 'US,20']);

  await page.getByRole('button', { name: 'Save widget' }).click();
  await page.waitForURL(new RegExp(`/console/dashboards/${dashboard.id}\\?edit=1$`));
  const saved = tile(page, 'Sales by region');
  await saved.locator('.echart[data-drawn="true"]').waitFor();
  const tileAxis = await saved.locator('svg text').allTextContents();
  expect(tileAxis).toEqual(expect.arrayContaining(['EU', 'US']));
  expect(tileAxis).not.toContain('APAC');
  const [widget] = await widgetsOf();
  expect(widget).toEqual(
    expect.objectContaining({
      title: 'Sales by region',
      chartType: 'bar',
      queryConfig: {
        measures: [`${ds}.amount`],
        dimensions: [`${ds}.region`],
        filters: [{ member: `${ds}.region`, operator: 'notEquals', values: ['APAC'] }],
        order: [[`${ds}.region`, 'asc']],
        timeDimensions: [],
      },
    }),
  );
  // The widget's own data call answers the numbers the preview showed.
  const data = await owner().post(`/dashboards/widgets/${widget.id}/data`).send({});
  expect(data.body.data.map((r: Json) => [r[`${ds}.region`], Number(r[`${ds}.amount`])])).toEqual([
    ['EU', 15],
    ['US', 20],
  ]);
  await page.context().close();
});

test('editing opens the widget in the builder; a new measure and chart type are saved and drawn', async () => {
  const [widget] = await widgetsOf();
  const page = await stack.signedInPage(org.ownerToken);
  await page.goto(`/console/dashboards/${dashboard.id}/widgets/${widget.id}/edit`);
  await page.getByRole('heading', { level: 1, name: 'Edit widget: Sales by region' }).waitFor();
  const measures = page.getByRole('group', { name: 'Measures' });
  await expect(measures.getByLabel('Amount', { exact: true }).isChecked()).resolves.toBe(true);
  await expect(page.getByRole('group', { name: 'Filter 1' }).getByRole('button', { name: 'Remove value APAC' }).count()).resolves.toBe(1);
  await expect(previewRows(page)).resolves.toEqual([
    ['EU', '15'],
    ['US', '20'],
  ]);

  await measures.getByLabel('Amount', { exact: true }).uncheck();
  await measures.getByLabel('Count', { exact: true }).check();
  await page.getByRole('radio', { name: 'Table' }).check();
  await page.getByLabel('Title').fill('Orders by region');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('.qb-preview[data-state="ready"] thead')?.textContent?.includes('Count'));
  await expect(previewRows(page)).resolves.toEqual([
    ['EU', '2'],
    ['US', '1'],
  ]);
  await screenshot(page, 'query-builder-edit');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(new RegExp(`/console/dashboards/${dashboard.id}\\?edit=1$`));
  const euRow = tile(page, 'Orders by region').getByRole('table').getByRole('row', { name: /EU/ });
  await euRow.waitFor();
  await expect(euRow.getByRole('cell').allTextContents()).resolves.toEqual(['EU', '2']);
  expect((await widgetsOf())[0]).toEqual(
    expect.objectContaining({
      id: widget.id,
      title: 'Orders by region',
      chartType: 'table',
      queryConfig: expect.objectContaining({ measures: [`${ds}.count`] }),
    }),
  );
  await page.context().close();
});

test('chart types that cannot draw the query say why; a query the API refuses is explained in the preview; a 390 px screen stacks', async () => {
  const page = await stack.signedInPage(org.ownerToken);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/console/dashboards/${dashboard.id}/widgets/new`);
  await page.getByLabel('Title').fill('Two measures');
  const measures = page.getByRole('group', { name: 'Measures' });
  await measures.getByLabel('Amount', { exact: true }).check();
  await measures.getByLabel('Count', { exact: true }).check();
  await page.getByRole('group', { name: 'Group by' }).getByLabel('Region', { exact: true }).check();
  const pie = page.getByRole('radio', { name: 'Pie' });
  await expect(pie.isDisabled()).resolves.toBe(true);
  await expect(page.locator('#qb-chart-pie-why').textContent()).resolves.toBe('A pie chart shows one measure; the query has 2');
  await expect(page.locator('#qb-chart-line-why').textContent()).resolves.toBe('A line chart needs a time dimension with a granularity for its x axis');
  // Giving it a time dimension by day makes a line chart possible.
  await page.getByLabel('Time dimension').selectOption({ label: 'At' });
  await page.getByLabel('Granularity').selectOption('day');
  await expect(page.getByRole('radio', { name: 'Line' }).isDisabled()).resolves.toBe(false);

  // The chosen bar chart loses its grouping: it says why it cannot be drawn, and cannot be saved so.
  await page.getByLabel('Granularity').selectOption('');
  await page.getByRole('group', { name: 'Group by' }).getByLabel('Region', { exact: true }).uncheck();
  const why = 'A bar chart needs something to group by: a dimension, or a time dimension with a granularity';
  await preview(page).getByRole('alert').filter({ hasText: why }).waitFor();
  await expect(page.getByRole('button', { name: 'Save widget' }).isDisabled()).resolves.toBe(true);

  // A filter value that does not fit its field: the API's refusal, in place of the preview.
  await page.getByRole('radio', { name: 'Table' }).check();
  await page.getByRole('button', { name: 'Add filter' }).click();
  const filter = page.getByRole('group', { name: 'Filter 1' });
  await filter.getByLabel('Field').selectOption({ label: 'Count' });
  await filter.getByLabel('Operator').selectOption({ label: 'is greater than' });
  await filter.getByLabel('Value').fill('1.5');
  await page.locator('.qb-preview[data-state="error"]').waitFor();
  await expect(preview(page).getByRole('alert').textContent()).resolves.toContain('Invalid query');

  // Narrow: the controls come first, the preview under them, nothing wider than the screen.
  const controls = (await page.locator('.qb-controls').boundingBox())!;
  const side = (await page.locator('.qb-side').boundingBox())!;
  expect(side.y).toBeGreaterThanOrEqual(controls.y + controls.height);
  expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await screenshot(page, 'query-builder-narrow');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.context().close();
});

test('an organization without data sources is sent to create one', async () => {
  const empty = await createTestOrg(stack.harness.services);
  const board = await createDashboard(stack.harness.app, empty, { name: 'Empty board' });
  const page = await stack.signedInPage(empty.ownerToken);
  await page.goto(`/console/dashboards/${board.id}/widgets/new`);
  const link = page.getByRole('link', { name: 'Create a data source' });
  await link.waitFor();
  expect(await link.getAttribute('href')).toBe('/console/data/sources/new');
  await screenshot(page, 'query-builder-no-sources');
  expect(await accessibilityViolations(page)).toEqual([]);
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

test('the builder is its own chunk: the dashboards list does not load it', async () => {
  expectStatus(await owner().get('/dashboards'), 200);
  const page = await stack.signedInPage(org.ownerToken);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
  await page.goto('/console/dashboards');
  await page.getByRole('link', { name: 'Builder dashboard' }).waitFor();
  expect(scripts.filter((s) => /builder-page/.test(s))).toEqual([]);
  await page.context().close();
});
