import type { Page } from 'playwright-core';
import { createSalesSource } from './dashboard-fixtures';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

let stack: ConsoleStack;
let org: TestOrg;
let owner: Page;
let table: string;

/** 30 orders and 3 customers: a prefix filter and two pages to walk through. */
const ORDERS = Object.fromEntries(
  Array.from({ length: 30 }, (_, i) => [`order:${String(i + 1).padStart(3, '0')}`, { total: (i + 1) * 10, status: i % 2 ? 'paid' : 'open' }]),
);
const CUSTOMERS = { 'customer:1': { name: 'Ada' }, 'customer:2': { name: 'Grace' }, 'customer:3': { name: 'Edsger' } };

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  table = uniqueName('orders');
  await seedRecords(stack.harness.app, org, table, { ...ORDERS, ...CUSTOMERS });
  owner = await stack.signedInPage(org.tokens.owner);
}, 120_000);
afterAll(() => stack?.close());

/** The keys of the records the table page shows, in order. */
const shownKeys = (page: Page) => page.locator('table.records tbody th[scope="row"]').allTextContents();

test('tables list their record counts; a table filters by key prefix, pages, and keeps the filter across a reload', async () => {
  await owner.goto('/console/data');
  const row = owner.getByRole('row').filter({ has: owner.getByRole('link', { name: table }) });
  await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('33');
  await screenshot(owner, 'data-tables');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await row.getByRole('link', { name: table, exact: true }).click();
  await owner.getByText('33 records').waitFor();
  expect(await shownKeys(owner)).toHaveLength(25);
  await owner.getByLabel('Key starts with').fill('customer:');
  await owner.getByRole('button', { name: 'Apply' }).click();
  await owner.getByText('3 records match').waitFor();
  expect(await shownKeys(owner)).toEqual(['customer:1', 'customer:2', 'customer:3']);

  await owner.getByLabel('Key starts with').fill('order:');
  await owner.getByRole('button', { name: 'Apply' }).click();
  await owner.getByText('30 records match').waitFor();
  const first = await shownKeys(owner);
  expect(first).toEqual(Object.keys(ORDERS).slice(0, 25));
  await owner.getByRole('button', { name: 'Next' }).click();
  await owner.getByText('26–30 of 30').waitFor();
  expect(await shownKeys(owner)).toEqual(Object.keys(ORDERS).slice(25));
  expect(new URL(owner.url()).searchParams.get('prefix')).toBe('order:');

  await owner.reload();
  await owner.getByText('26–30 of 30').waitFor();
  expect(await shownKeys(owner)).toEqual(Object.keys(ORDERS).slice(25));
  await expect(owner.getByLabel('Key starts with').inputValue()).resolves.toBe('order:');

  // A value filter, and a record's JSON opened in place.
  await owner.getByRole('button', { name: 'Add condition' }).click();
  const condition = owner.getByRole('group', { name: 'Condition 1' });
  await condition.getByLabel('Field').selectOption('total');
  await condition.getByLabel('Comparison').selectOption({ label: '≥' });
  await condition.getByLabel('Value').fill('280');
  await owner.getByRole('button', { name: 'Apply' }).click();
  await owner.getByText('3 records match').waitFor();
  expect(await shownKeys(owner)).toEqual(['order:028', 'order:029', 'order:030']);
  await owner.getByRole('button', { name: 'Expand order:029' }).click();
  const json = await owner.getByLabel('Value of order:029').textContent();
  expect(JSON.parse(json!)).toEqual({ total: 290, status: 'open' });
  await screenshot(owner, 'data-table');
  expect(await accessibilityViolations(owner)).toEqual([]);
});

test('an owner edits a record value as JSON (a bad value is refused before sending) and deletes a record', async () => {
  await owner.goto(`/console/data/tables/${table}?prefix=order%3A03`);
  await owner.getByRole('link', { name: 'order:030' }).click();
  const value = owner.getByLabel('Value of order:030');
  expect(JSON.parse((await value.textContent())!)).toEqual({ total: 300, status: 'paid' });
  await screenshot(owner, 'data-record');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await owner.getByRole('button', { name: 'Edit value' }).click();
  await owner.getByLabel('Value (JSON object)').fill('[1, 2]');
  await owner.getByRole('button', { name: 'Save value' }).click();
  await owner.getByRole('alert').filter({ hasText: 'must be a JSON object' }).waitFor();
  await owner.getByLabel('Value (JSON object)').fill('{"total": 301, "status": "refunded"}');
  await owner.getByRole('button', { name: 'Save value' }).click();
  // The record's view again, showing the saved value (the editor's own text says nothing of the save).
  await owner.getByLabel('Value of order:030').filter({ hasText: '"refunded"' }).waitFor();
  const stored = await as(stack.harness.app, org.tokens.owner).get(`/data-stores/tables/${table}/records/order:030`);
  expect(stored.body.value).toEqual({ total: 301, status: 'refunded' });

  await owner.getByRole('button', { name: 'Delete…' }).click();
  await owner.getByRole('button', { name: 'Delete order:030' }).click();
  // Back on the table, filtered as it was when the record was opened.
  await owner.waitForURL((url) => url.pathname === `/console/data/tables/${table}` && url.searchParams.get('prefix') === 'order:03');
  await owner.getByText('No record matches these filters.').waitFor();
  expect((await as(stack.harness.app, org.tokens.owner).get(`/data-stores/tables/${table}/records/order:030`)).status).toBe(404);
});

test('a data source shows its fields; a calculated field previews its values before it is saved', async () => {
  const source = await createSalesSource(stack.harness.app, org, {
    a: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' },
    b: { at: '2026-03-11T03:30:00Z', amount: 25, region: 'US' },
    c: { at: '2026-03-12T03:30:00Z', amount: 7, region: 'EU' },
  });
  await owner.goto('/console/data/sources');
  await owner.getByRole('link', { name: source.name }).waitFor();
  await screenshot(owner, 'data-sources');
  expect(await accessibilityViolations(owner)).toEqual([]);
  await owner.getByRole('link', { name: source.name }).click();

  const fields = owner.locator('table.fields tbody tr');
  await fields.first().waitFor();
  expect(await fields.allInnerTexts()).toEqual([
    expect.stringMatching(/^at\tAt\tDate\tTime dimension/),
    expect.stringMatching(/^amount\tAmount\tNumber\tMeasure/),
    expect.stringMatching(/^region\tRegion\tText\tDimension/),
  ]);
  await owner.getByText('No calculated fields.').waitFor();

  await owner.getByRole('button', { name: 'Add calculated field' }).click();
  await owner.getByLabel('Name', { exact: true }).fill('amount_with_tax');
  await owner.getByLabel('Label').fill('Amount with tax');
  await owner.getByLabel('Expression').fill('amount * 1.5 + 1');
  await owner.getByRole('button', { name: 'Preview' }).click();
  const values = owner.locator('.preview-values li');
  await values.first().waitFor();
  expect(await values.allTextContents()).toEqual(['16', '38.5', '11.5']);
  // Previewing saved nothing.
  expect((await as(stack.harness.app, org.tokens.owner).get(`/dashboards/data-sources/${source.id}`)).body.recordSchema.calculatedFields).toEqual([]);
  await screenshot(owner, 'data-source-preview');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await owner.getByRole('button', { name: 'Save field' }).click();
  const saved = owner.locator('table.calculated tbody tr');
  await saved.first().waitFor();
  expect(await saved.allInnerTexts()).toEqual([expect.stringMatching(/^amount_with_tax\tAmount with tax\tamount \* 1\.5 \+ 1\tDimension/)]);
  await screenshot(owner, 'data-source');
  expect(await accessibilityViolations(owner)).toEqual([]);

  // A formula the parser cannot read is refused with where it stops.
  await owner.getByRole('button', { name: 'Add calculated field' }).click();
  await owner.getByLabel('Expression').fill('amount * (2');
  await owner.getByRole('button', { name: 'Preview' }).click();
  await owner.getByRole('alert').filter({ hasText: 'Expected ")"' }).waitFor();
  // A field that is not a number field: the API's own error.
  await owner.getByLabel('Expression').fill('region * 2');
  await owner.getByRole('button', { name: 'Preview' }).click();
  await owner.getByRole('alert').filter({ hasText: 'region' }).waitFor();
});

test('a viewer sees the data but no edit controls', async () => {
  const source = await createSalesSource(stack.harness.app, org);
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/data/tables/${table}`);
  await viewer.getByText('32 records').waitFor();
  expect(await viewer.getByRole('button', { name: 'Add record' }).count()).toBe(0);
  await viewer.getByRole('link', { name: 'customer:1' }).click();
  await viewer.getByLabel('Value of customer:1').waitFor();
  expect(await viewer.getByRole('button', { name: /Edit|Delete/ }).count()).toBe(0);
  await viewer.goto(`/console/data/sources/${source.id}`);
  await viewer.getByRole('heading', { name: 'Fields', exact: true }).waitFor();
  expect(await viewer.getByRole('button').allTextContents()).toEqual(['Sign out']);
  await screenshot(viewer, 'data-source-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.context().close();
});

test('a feed source shows its sync state and run history; only dashboards:admin gets "Sync now"', async () => {
  const connection = await as(stack.harness.app, org.tokens.owner)
    .post('/connections')
    .send({ name: uniqueName('twilio'), type: 'twilio', config: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'not-used' } });
  expect(connection.status).toBe(201);
  const toggled = await as(stack.harness.app, org.tokens.owner)
    .post('/dashboards/data-feeds/toggle')
    .send({ feedKey: 'twilio:calls', connectionId: connection.body.id, connectionName: connection.body.name, enabled: true, syncIntervalMinutes: 15 });
  expect(toggled.status).toBe(201);
  const source = (await as(stack.harness.app, org.tokens.owner).get(`/dashboards/data-sources/${toggled.body.dataSourceId}`)).body;

  await owner.goto(`/console/data/sources/${source.id}`);
  const sync = owner.getByRole('region', { name: 'Sync' });
  await sync.getByText('15 min').waitFor();
  const facts = Object.fromEntries(
    await sync.locator('dl.facts > div').evaluateAll((divs) => divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent])),
  );
  expect(facts).toMatchObject({ Connection: connection.body.name, Every: '15 min' });
  await sync.getByRole('button', { name: /Sync now|Sync running/ }).waitFor();
  await screenshot(owner, 'data-source-feed');
  expect(await accessibilityViolations(owner)).toEqual([]);
  await sync.getByRole('button', { name: 'Sync now' }).click();
  // The stack runs no worker, so the first sync the toggle queued is still pending: the API's 409 is shown as it says it.
  await sync.getByRole('alert').filter({ hasText: 'A sync of this data source is already running' }).waitFor();

  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto(`/console/data/sources/${source.id}`);
  await viewer.getByRole('region', { name: 'Sync' }).getByText('15 min').waitFor();
  expect(await viewer.getByRole('button', { name: /Sync/ }).count()).toBe(0);
  await viewer.context().close();
});
