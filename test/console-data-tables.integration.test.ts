import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

/** Data → Tables from the console alone, in a fresh organization: creating tables (imported or empty), columns, the filter builder. */

let stack: ConsoleStack;
let org: TestOrg;
let owner: Page;
const sales = uniqueName('sales');

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  owner = await stack.signedInPage(org.tokens.owner);
}, 120_000);
afterAll(() => stack?.close());

const csvFile = (name: string, ...lines: string[]) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(`${lines.join('\n')}\n`) });
const HEADER = 'key,amount,region,paid,at,customer_name,notes';
const row = (key: string, amount: number, region: string, paid: boolean, day: number) =>
  `${key},${amount},${region},${paid},2026-03-0${day},Customer with a long name ${key},"a note long enough to need room, ${key}"`;

/** The keys the table page shows, in order. */
const shownKeys = (page: Page) => page.locator('table.records tbody th[scope="row"]').allTextContents();
const api = () => as(stack.harness.app, org.tokens.owner);

test('a table is created by importing a CSV: a bad row is named and nothing lands, the fixed file imports, records show as typed columns', async () => {
  await owner.goto('/console/data/tables');
  await owner.getByText('No tables yet.', { exact: false }).waitFor();
  await owner.getByRole('link', { name: 'New table' }).click();
  await owner.getByRole('heading', { name: 'New table' }).waitFor();
  await screenshot(owner, 'data-table-new');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await owner.getByLabel('Table name').fill(sales);
  await owner
    .getByLabel('File', { exact: true })
    .setInputFiles(
      csvFile(
        'sales.csv',
        HEADER,
        row('s1', 120, 'EU', true, 1),
        row('s2', 80, 'US', false, 2),
        row('__meta__', 5, 'EU', true, 3),
        row('s4', 300, 'EU', true, 4),
      ),
    );
  // The key column is offered from the file's own header.
  await expect(owner.getByLabel('Key column').inputValue()).resolves.toBe('key');
  await owner.getByRole('button', { name: 'Import and create table' }).click();
  const rejected = owner.getByRole('region', { name: 'Rejected rows' });
  // The row the API names, quoted from the file as it is written.
  await rejected.getByRole('columnheader', { name: 'In the file' }).waitFor();
  expect(await rejected.locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/^line 4\tkey\t.*reserved.*\t__meta__,5,EU,true,2026-03-03,/)]);
  await owner.getByRole('alert').filter({ hasText: 'nothing was imported' }).waitFor();
  expect((await api().get(`/data-stores/tables/${sales}`)).status).toBe(404);
  await screenshot(owner, 'data-table-import-rejected');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await owner
    .getByLabel('File', { exact: true })
    .setInputFiles(
      csvFile('sales.csv', HEADER, row('s1', 120, 'EU', true, 1), row('s2', 80, 'US', false, 2), row('s3', 5, 'EU', true, 3), row('s4', 300, 'EU', true, 4)),
    );
  await owner.getByRole('button', { name: 'Import and create table' }).click();
  const status = owner.getByRole('status').filter({ hasText: 'Imported 4 records' });
  await status.waitFor();
  await status.getByRole('link', { name: sales }).click();

  await owner.getByText('4 records', { exact: true }).waitFor();
  expect(await shownKeys(owner)).toEqual(['s1', 's2', 's3', 's4']);
  const headers = await owner.locator('table.records thead th').allInnerTexts();
  expect(headers.map((h) => h.replace(/\s+/g, ' ').trim())).toEqual([
    'Key',
    'amount number',
    'at date',
    'customer_name text',
    'notes text',
    'paid true/false',
    'region text',
    'Updated',
    'JSON',
  ]);
  const s1 = owner.locator('table.records tbody tr[data-key="s1"]');
  expect((await s1.locator('td').allInnerTexts()).slice(0, 6)).toEqual([
    '120',
    '2026-03-01',
    'Customer with a long name s1',
    'a note long enough to need room, s1',
    'true',
    'EU',
  ]);
  // The raw JSON is a click away; the record's own page is still the key's link.
  await owner.getByRole('button', { name: 'Expand s1' }).click();
  expect(JSON.parse((await owner.getByLabel('Value of s1').textContent())!)).toMatchObject({ amount: 120, region: 'EU', paid: true, at: '2026-03-01' });
  expect(await owner.getByRole('link', { name: 's1', exact: true }).getAttribute('href')).toBe(`/console/data/tables/${sales}/records/s1`);
  await screenshot(owner, 'data-table-columns');
  expect(await accessibilityViolations(owner)).toEqual([]);

  // Importing into the table from its own page: JSON this time, with the server's answer shown.
  await owner.getByRole('button', { name: 'Import file' }).click();
  await owner.getByLabel('File', { exact: true }).setInputFiles({
    name: 'more.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify([{ key: 's5', value: { amount: 150, region: 'US' } }])),
  });
  await expect(owner.getByLabel('Format').inputValue()).resolves.toBe('json');
  await owner.getByRole('button', { name: 'Import', exact: true }).click();
  await owner.getByRole('status').filter({ hasText: 'Imported 1 record' }).waitFor();
  await owner.getByText('5 records', { exact: true }).waitFor();
  await owner.getByRole('button', { name: 'Close' }).click();
});

test('the filter builder: a number field compared with >, a value of the wrong type refused at its box, the filter kept in the URL', async () => {
  await owner.goto(`/console/data/tables/${sales}`);
  await owner.getByRole('button', { name: 'Add condition' }).click();
  const condition = owner.getByRole('group', { name: 'Condition 1' });
  await condition.getByLabel('Field').selectOption('amount');
  await condition.getByLabel('Comparison').selectOption({ label: '>' });
  await condition.getByLabel('Value').fill('a lot');
  await condition.getByText('amount holds numbers').waitFor();
  await expect(condition.getByLabel('Value').getAttribute('aria-invalid')).resolves.toBe('true');
  await owner.getByRole('button', { name: 'Apply' }).click();
  // Refused: the box focused (the click's whole handling done), and nothing applied.
  await owner.waitForFunction(() => (globalThis as any).document.activeElement?.getAttribute('aria-invalid') === 'true');
  await expect(condition.getByLabel('Value').evaluate((el) => el === el.ownerDocument.activeElement)).resolves.toBe(true);
  expect(new URL(owner.url()).searchParams.get('where')).toBeNull();
  await screenshot(owner, 'data-table-filter-refused');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await condition.getByLabel('Value').fill('100');
  await owner.getByRole('button', { name: 'Apply' }).click();
  await owner.getByText('3 records match').waitFor();
  expect(await shownKeys(owner)).toEqual(['s1', 's4', 's5']);
  expect(JSON.parse(new URL(owner.url()).searchParams.get('where')!)).toEqual({ amount: { $gt: 100 } });

  // Reloaded (or shared), the view is the same, and the builder shows its condition.
  await owner.reload();
  await owner.getByText('3 records match').waitFor();
  await expect(owner.getByRole('group', { name: 'Condition 1' }).getByLabel('Value').inputValue()).resolves.toBe('100');
  await screenshot(owner, 'data-table-filtered');
  expect(await accessibilityViolations(owner)).toEqual([]);

  // A link whose filter has the wrong type for the field is not run (it would match nothing): the problem is shown.
  await owner.goto(`/console/data/tables/${sales}?where=${encodeURIComponent('{"amount":{"$gt":"lots"}}')}`);
  await owner.getByRole('group', { name: 'Condition 1' }).getByText('amount holds numbers').waitFor();
  await owner.getByText('Fix the filter above to see records', { exact: false }).waitFor();
  expect(await owner.locator('table.records').count()).toBe(0);
});

test('at 390×844 the records table scrolls inside its box, the page does not', async () => {
  await owner.setViewportSize({ width: 390, height: 844 });
  try {
    await owner.goto(`/console/data/tables/${sales}`);
    const box = owner.getByRole('region', { name: `Records of ${sales}` });
    await box.locator('tbody tr').first().waitFor();
    const sizes = await box.evaluate((el) => ({ right: el.getBoundingClientRect().right, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    expect(sizes.right).toBeLessThanOrEqual(390);
    expect(sizes.scrollWidth).toBeGreaterThan(sizes.clientWidth);
    // The page itself does not scroll sideways: only the box does.
    await expect(owner.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).resolves.toBeLessThanOrEqual(390);
    await screenshot(owner, 'data-table-narrow');
    expect(await accessibilityViolations(owner)).toEqual([]);
  } finally {
    await owner.setViewportSize({ width: 1400, height: 900 });
  }
});

test('an empty table is created from the console; deleting it asks first', async () => {
  const empty = uniqueName('empty');
  await owner.goto('/console/data/new-table');
  await owner.getByLabel('Table name').fill('9 bad name');
  await owner.getByLabel('An empty table').check();
  await owner.getByRole('button', { name: 'Create table' }).click();
  await owner.getByText('The name must be 1 to 63 characters', { exact: false }).waitFor();
  await owner.getByLabel('Table name').fill(empty);
  await owner.getByRole('button', { name: 'Create table' }).click();
  await owner.getByText('This table has no records.', { exact: false }).waitFor();
  expect((await api().get('/data-stores/tables')).body.data.map((t: { tableName: string }) => t.tableName)).toContain(empty);
  await screenshot(owner, 'data-table-empty');
  expect(await accessibilityViolations(owner)).toEqual([]);

  // An import into it from its page, the upload slowed down so its progress is seen before the server's answer.
  const cdp = await owner.context().newCDPSession(owner);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
  try {
    const items = Array.from({ length: 2000 }, (_, i) => ({ key: `k${String(i).padStart(4, '0')}`, value: { n: i, text: 'x'.repeat(200) } }));
    await owner.getByRole('button', { name: 'Import file' }).click();
    await owner
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'bulk.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(items)) });
    await owner.getByRole('button', { name: 'Import', exact: true }).click();
    await owner.getByText(/^Uploading… \d+% \(/).waitFor();
    await owner.getByRole('status').filter({ hasText: 'Imported 2,000 records' }).waitFor();
  } finally {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  }
  await owner.getByText('2,000 records', { exact: true }).waitFor();

  await owner.getByRole('button', { name: 'Delete…' }).click();
  await owner.getByText('and its 2,000 records?', { exact: false }).waitFor();
  // Nothing goes before the confirmation.
  expect((await api().get(`/data-stores/tables/${empty}`)).status).toBe(200);
  await owner.getByRole('button', { name: `Delete table ${empty}` }).click();
  await owner.waitForURL((url) => url.pathname === '/console/data/tables');
  expect((await api().get(`/data-stores/tables/${empty}`)).status).toBe(404);
});

test('a viewer reads tables but is offered no way to create, import or delete', async () => {
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/data/tables/${sales}`);
  await viewer.getByText('5 records', { exact: true }).waitFor();
  expect(await viewer.getByRole('button', { name: /Import|Add record|Delete/ }).count()).toBe(0);
  await viewer.goto('/console/data/tables');
  await viewer.getByRole('link', { name: sales }).waitFor();
  expect(await viewer.getByRole('link', { name: 'New table' }).count()).toBe(0);
  await viewer.goto('/console/data/new-table');
  await viewer.getByText('Your role can read tables but not create them.', { exact: false }).waitFor();
  expect(await viewer.getByLabel('Table name').count()).toBe(0);
  await viewer.context().close();
});
