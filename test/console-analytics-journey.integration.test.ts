import type { Page } from 'playwright-core';
import { inspectPdf } from '../src/dashboards/pdf/testing/pdf-inspect';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { createTestOrg, uniqueName, type TestOrg } from './factories';

/**
 * A first dashboard as a new user makes it, through the console only (issue 40): a CSV imported into a new
 * table, a data source over it, a bar chart with a filter built in the query builder, a dashboard filter every
 * widget over the source follows, the widget edited, the time zone changed, and the report printed with the
 * filter in it. Each area's own tests cover its details; this one proves the pieces meet.
 */

let stack: ConsoleStack;
let org: TestOrg;
let page: Page;

/** Orders of 100 in all: EU 30 (3 orders), US 60 (2), APAC 10 (1). */
const CSV = [
  'key,region,amount,placedAt',
  'o1,EU,10,2026-03-01T09:00:00Z',
  'o2,EU,5,2026-03-01T10:00:00Z',
  'o3,US,40,2026-03-02T11:00:00Z',
  'o4,EU,15,2026-03-02T12:00:00Z',
  'o5,US,20,2026-03-03T13:00:00Z',
  'o6,APAC,10,2026-03-03T14:00:00Z',
].join('\n');

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  page = await stack.signedInPage(org.ownerToken);
}, 120_000);

afterAll(() => stack?.close());

const tile = (title: string) => page.locator('article.tile', { has: page.getByRole('heading', { name: title, exact: true }) });
/** The category axis labels of a drawn bar chart tile. */
const barLabels = async (title: string) => {
  await tile(title).locator('.echart[data-drawn="true"]').waitFor();
  return tile(title).locator('svg text').allTextContents();
};

// One person's whole first dashboard in one test: many page loads, so twice a single page's time (120 s).
test('import a CSV, make a source, build a filtered bar chart, add a dashboard filter, edit the widget, change the zone, print the report', async () => {
  const table = uniqueName('orders').replace(/-/g, '_');

  // 1. A new table from a CSV file.
  await page.goto('/console/data/tables');
  await page.getByRole('link', { name: 'New table' }).click();
  await page.getByLabel('Table name').fill(table);
  await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await page.getByRole('button', { name: 'Import and create table' }).click();
  await page.getByRole('status').filter({ hasText: 'Imported 6 records' }).waitFor();

  // 2. A data source over it, from the tables list: amount a measure, placedAt the time dimension.
  await page.goto('/console/data/tables');
  await page.getByRole('link', { name: `Make a data source from ${table}` }).click();
  const field = (name: string) => page.getByRole('group', { name, exact: true });
  await field('amount').waitFor();
  await expect(field('amount').getByLabel('Role').inputValue()).resolves.toBe('measure');
  await expect(field('placedAt').getByLabel('Role').inputValue()).resolves.toBe('time');
  await field('region').getByLabel('Role').selectOption('dimension');
  await field('region').getByLabel('Label').fill('Region');
  await field('amount').getByLabel('Label').fill('Amount');
  await page.getByLabel('Name', { exact: true }).fill('Orders');
  await page.getByRole('button', { name: 'Create data source' }).click();
  await page.waitForURL(/\/console\/data\/sources\/[0-9a-f-]{36}$/);
  const sourceId = page.url().split('/').pop()!;

  // 3. A dashboard, made from the list in the viewer's own zone.
  await page.goto('/console/dashboards');
  await page.getByRole('button', { name: 'New dashboard' }).click();
  await page.getByLabel('Name').fill('Orders overview');
  await page.getByRole('button', { name: 'Create dashboard' }).click();
  await page.waitForURL(/\/console\/dashboards\/[0-9a-f-]{36}\?edit=1$/);
  const dashboardId = new URL(page.url()).pathname.split('/').pop()!;

  // 4. A bar chart of amount by region without APAC, built and previewed in the query builder.
  await page.getByRole('link', { name: 'Add widget' }).click();
  await page.getByRole('heading', { level: 1, name: 'Add a widget' }).waitFor();
  await page.getByLabel('Title').fill('Sales by region');
  await page.getByRole('group', { name: 'Measures' }).getByLabel('Amount', { exact: true }).check();
  await page.getByRole('group', { name: 'Group by' }).getByLabel('Region', { exact: true }).check();
  await page.getByRole('radio', { name: 'Bar' }).check();
  await page.getByRole('button', { name: 'Add filter' }).click();
  const filter = page.getByRole('group', { name: 'Filter 1' });
  await filter.getByLabel('Field').selectOption({ label: 'Region' });
  await filter.getByLabel('Operator').selectOption({ label: 'does not equal' });
  await filter.getByLabel('Values').fill('APAC');
  await filter.getByLabel('Values').press('Enter');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.qb-preview[data-state="ready"] tbody tr').length === 2);
  await page.getByRole('button', { name: 'Save widget' }).click();
  await page.waitForURL(new RegExp(`/console/dashboards/${dashboardId}\\?edit=1$`));
  expect(await barLabels('Sales by region')).toEqual(expect.arrayContaining(['EU', 'US']));
  expect(await barLabels('Sales by region')).not.toContain('APAC');

  // A second widget over the same source: the total, as a stat card.
  await page.getByRole('link', { name: 'Add widget' }).click();
  await page.getByLabel('Title').fill('Total sales');
  await page.getByRole('group', { name: 'Measures' }).getByLabel('Amount', { exact: true }).check();
  await page.getByRole('radio', { name: 'Stat card' }).check();
  await page.locator('.qb-preview[data-state="ready"]').waitFor();
  await page.getByRole('button', { name: 'Save widget' }).click();
  await page.waitForURL(new RegExp(`/console/dashboards/${dashboardId}\\?edit=1$`));
  await expect(tile('Total sales').locator('.stat-value').textContent()).resolves.toBe('100');

  // 5. A dashboard filter on region: every widget over the source follows the value picked.
  const editor = page.getByRole('region', { name: 'Filters', exact: true });
  await editor.getByRole('button', { name: 'Add filter' }).click();
  await editor.getByLabel('Filter data source').selectOption({ label: 'Orders' });
  await editor.getByLabel('Filter field').locator('option', { hasText: 'Region' }).waitFor({ state: 'attached' });
  await editor.getByLabel('Filter field').selectOption({ label: 'Region' });
  await editor.getByRole('button', { name: 'Save filter' }).click();
  await page.getByRole('combobox', { name: 'Region', exact: true }).selectOption('EU');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('article.tile .stat-value')?.textContent === '30');
  // Its chart is drawn again from the same answer: EU's bar alone.
  await page.waitForFunction(() => {
    const { document } = globalThis as any;
    const tiles = [...document.querySelectorAll('article.tile')] as any[];
    const chart = tiles.find((t) => t.querySelector('h2.tile-title')?.textContent === 'Sales by region');
    const labels = [...(chart?.querySelectorAll('svg text') ?? [])].map((t: any) => t.textContent);
    return labels.includes('EU') && !labels.includes('US');
  });
  for (const title of ['Total sales', 'Sales by region']) {
    await expect(
      tile(title)
        .getByRole('list', { name: `Dashboard filters on ${title}` })
        .textContent(),
    ).resolves.toBe('Region: EU');
  }
  await screenshot(page, 'journey-dashboard-filtered');
  expect(await accessibilityViolations(page)).toEqual([]);

  // 6. The bar chart edited in the same builder: orders counted instead of amounts summed.
  await tile('Sales by region').getByRole('link', { name: 'Edit Sales by region' }).click();
  await page.getByRole('heading', { level: 1, name: 'Edit widget: Sales by region' }).waitFor();
  const measures = page.getByRole('group', { name: 'Measures' });
  await measures.getByLabel('Amount', { exact: true }).uncheck();
  await measures.getByLabel('Count', { exact: true }).check();
  await page.getByRole('radio', { name: 'Table' }).check();
  await page.getByLabel('Title').fill('Orders by region');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('.qb-preview[data-state="ready"] thead')?.textContent?.includes('Count'));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(/\?edit=1$/);
  // The dashboard filter still applies to the edited widget.
  await page.getByRole('combobox', { name: 'Region', exact: true }).selectOption('EU');
  // The tile redraws when its data call answers: wait for the rows it ends with, EU's three orders alone.
  await page.waitForFunction(() => {
    const { document } = globalThis as any;
    const tiles = [...document.querySelectorAll('article.tile')] as any[];
    const table = tiles.find((t) => t.querySelector('h2.tile-title')?.textContent === 'Orders by region')?.querySelector('table');
    const rows = [...(table?.querySelectorAll('tbody tr') ?? [])].map((r: any) => r.innerText.split('\t').join('|'));
    return rows.length === 1 && rows[0] === 'EU|3';
  });

  // 7. The zone, each viewer's own at creation, fixed now.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('form', { name: 'Dashboard settings' });
  await settings.getByLabel('Dashboard time zone').selectOption('Asia/Tokyo');
  await settings.getByRole('button', { name: 'Save settings' }).click();
  await page.getByText('This dashboard shows times in Asia/Tokyo for everyone.').waitFor();

  // 8. The report, printed with the filter picked: the PDF names it, the zone and the widgets' numbers.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export PDF' }).click();
  const chunks: Buffer[] = [];
  for await (const chunk of await (await download).createReadStream()) chunks.push(chunk as Buffer);
  const pdf = await inspectPdf(Buffer.concat(chunks), { draw: false });
  const text = pdf.pages.map((p) => p.text).join(' ');
  expect(text).toContain('Orders overview');
  expect(text).toMatch(/Filters:\s+Region:\s+EU/);
  expect(text).toContain('Asia/Tokyo');
  expect(text).toContain('Orders by region');
  expect(text).toMatch(/Total sales\b.*\b30\b/);

  // Nothing was made through the API: the source the dashboard reads is the one the form created.
  const stored = (await (await page.request.get(`/dashboards/${dashboardId}`)).json()) as { widgets: { dataSourceId: string }[] };
  expect(stored.widgets.map((w) => w.dataSourceId)).toEqual([sourceId, sourceId]);
}, 120_000);
