import type { Page } from 'playwright-core';
import { createTestOrg, seedRecords, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

/**
 * Data sources made and changed in the console alone (issue 40): over a table, with the fields' roles and
 * labels chosen from what the records hold; edited, extended with calculated fields and window dimensions,
 * and deleted on the source's page; or made from a data feed. The records are seeded through the API.
 */

let stack: ConsoleStack;
let org: TestOrg;
let owner: Page;
let table: string;
let sourceId: string;
let sourceName: string;

const ORDERS = {
  'order:1': { placedAt: '2026-03-10T03:30:00Z', shippedAt: '2026-03-12T09:00:00Z', amount: 10, qty: 1, region: 'EU' },
  'order:2': { placedAt: '2026-03-11T12:00:00Z', shippedAt: '2026-03-13T09:00:00Z', amount: 25, qty: 2, region: 'US' },
  'order:3': { placedAt: '2026-03-12T08:00:00Z', shippedAt: '2026-03-14T09:00:00Z', amount: 7, qty: 3, region: 'EU' },
};

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  table = uniqueName('orders');
  await seedRecords(stack.harness.app, org, table, ORDERS);
  owner = await stack.signedInPage(org.tokens.owner);
}, 120_000);
afterAll(() => stack?.close());

const api = () => as(stack.harness.app, org.tokens.owner);
const fieldGroup = (name: string) => owner.getByRole('group', { name, exact: true });
/** What sticks out past the viewport's right edge (nothing, when there is nothing to scroll sideways), outside boxes that scroll themselves. */
const sideways = (page: Page) =>
  page
    .locator('body *')
    .evaluateAll((elements) =>
      elements
        .filter((e) => e.getBoundingClientRect().right > e.ownerDocument.documentElement.clientWidth + 1 && !e.closest('.list-scroll'))
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`),
    );

test('the empty list says what a source is; a source is made over a table with a measure, a time dimension and labels', async () => {
  await owner.goto('/console/data/sources');
  // Only the built-in run sources: the page still says what a source is.
  await owner.getByText('No data sources of your own yet. A data source is what dashboards chart').waitFor();
  await screenshot(owner, 'data-sources-empty');
  expect(await accessibilityViolations(owner)).toEqual([]);
  await owner.getByRole('link', { name: 'Make a data source' }).click();
  await owner.waitForURL('**/console/data/sources/new');
  await owner.goto('/console/data/sources');
  await owner.getByRole('link', { name: 'New data source' }).click();

  await owner.getByLabel('Table', { exact: true }).selectOption({ label: table });
  // Fields inferred from the records, with their types; the first date field is the time dimension, numbers are measures.
  await fieldGroup('amount').waitFor();
  await expect(fieldGroup('placedAt').getByLabel('Role').inputValue()).resolves.toBe('time');
  await expect(fieldGroup('amount').getByLabel('Role').inputValue()).resolves.toBe('measure');
  await expect(fieldGroup('region').getByLabel('Role').inputValue()).resolves.toBe('dimension');
  await fieldGroup('shippedAt').getByText('Date').waitFor();
  // One time dimension at a time: choosing another demotes the first.
  await fieldGroup('shippedAt').getByLabel('Role').selectOption('time');
  await expect(fieldGroup('placedAt').getByLabel('Role').inputValue()).resolves.toBe('dimension');
  await fieldGroup('placedAt').getByLabel('Role').selectOption('time');
  await fieldGroup('qty').getByLabel('Role').selectOption('dimension');
  await fieldGroup('amount').getByLabel('Label').fill('Order amount');
  sourceName = uniqueName('Sales');
  await owner.getByLabel('Name', { exact: true }).fill(sourceName);
  await screenshot(owner, 'data-source-new');
  expect(await accessibilityViolations(owner)).toEqual([]);

  await owner.getByRole('button', { name: 'Create data source' }).click();
  await owner.waitForURL(/\/console\/data\/sources\/[0-9a-f-]{36}$/);
  sourceId = owner.url().split('/').pop()!;
  await owner.getByRole('heading', { name: sourceName }).waitFor();

  const source = (await api().get(`/dashboards/data-sources/${sourceId}`)).body;
  expect(source).toMatchObject({ name: sourceName, type: 'custom', dataStoreTableName: table });
  expect(source.recordSchema.fields).toEqual({
    placedAt: { type: 'date', label: 'Placed at', timeDimension: true },
    shippedAt: { type: 'date', label: 'Shipped at' },
    amount: { type: 'number', label: 'Order amount', measure: true },
    qty: { type: 'number', label: 'Qty' },
    region: { type: 'string', label: 'Region' },
  });
  const cube = `ds_${sourceId.replace(/-/g, '_')}`;
  const meta = (await api().get('/dashboards/analytics/meta')).body.find((m: { name: string }) => m.name === cube);
  expect(meta.measures).toEqual(expect.arrayContaining([expect.objectContaining({ name: `${cube}.amount`, title: 'Order amount' })]));
  expect(meta.dimensions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: `${cube}.placedAt`, type: 'time' }),
      expect.objectContaining({ name: `${cube}.qty`, type: 'number' }),
    ]),
  );
});

test('on its page a source gets a new label, a new time dimension once confirmed, a previewed calculated field and a window dimension', async () => {
  await owner.goto(`/console/data/sources/${sourceId}`);
  const fields = owner.locator('table.fields tbody tr');
  await fields.first().waitFor();

  await owner.getByRole('button', { name: 'Edit fields' }).click();
  await fieldGroup('region').getByLabel('Label').fill('Sales region');
  await owner.getByRole('button', { name: 'Save fields' }).click();
  await owner.locator('table.fields').getByText('Sales region').waitFor();
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).body.recordSchema.fields.region.label).toBe('Sales region');

  // A new time dimension rebuilds the analytics table: asked first, and nothing is sent until confirmed.
  await owner.getByRole('button', { name: 'Edit fields' }).click();
  await fieldGroup('shippedAt').getByLabel('Role').selectOption('time');
  await owner.getByRole('button', { name: 'Save fields' }).click();
  await owner.getByRole('alert').filter({ hasText: 'The time dimension changes from placedAt to shippedAt' }).waitFor();
  await screenshot(owner, 'data-source-rekey');
  expect(await accessibilityViolations(owner)).toEqual([]);
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).body.recordSchema.fields.placedAt.timeDimension).toBe(true);
  await owner.getByRole('button', { name: 'Change the time dimension' }).click();
  await fields.filter({ hasText: 'shippedAt' }).getByText('Time dimension').waitFor();
  const rekeyed = (await api().get(`/dashboards/data-sources/${sourceId}`)).body.recordSchema.fields;
  expect([rekeyed.placedAt.timeDimension, rekeyed.shippedAt.timeDimension]).toEqual([undefined, true]);

  await owner.getByRole('button', { name: 'Add calculated field' }).click();
  await owner.getByLabel('Name', { exact: true }).fill('amount_x2');
  await owner.getByLabel('Expression').fill('amount * 2');
  await owner.getByRole('button', { name: 'Preview' }).click();
  const values = owner.locator('.preview-values li');
  await values.first().waitFor();
  expect(await values.allTextContents()).toEqual(['20', '50', '14']);
  await owner.getByRole('button', { name: 'Save field' }).click();
  await owner.locator('table.calculated').getByRole('rowheader', { name: 'amount_x2' }).waitFor();
  // Changed in the same form, previewed again.
  await owner.getByRole('button', { name: 'Edit amount_x2' }).click();
  await expect(owner.getByLabel('Expression').inputValue()).resolves.toBe('amount * 2');
  await owner.getByLabel('Label').fill('Amount tripled');
  await owner.getByLabel('Expression').fill('amount * 3');
  await owner.getByRole('button', { name: 'Preview' }).click();
  await values.filter({ hasText: '75' }).waitFor();
  expect(await values.allTextContents()).toEqual(['30', '75', '21']);
  await owner.getByRole('button', { name: 'Save field' }).click();
  await owner.locator('table.calculated').getByText('Amount tripled').waitFor();
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).body.recordSchema.calculatedFields).toEqual([
    expect.objectContaining({ name: 'amount_x2', label: 'Amount tripled', formula: 'amount * 3' }),
  ]);

  // A window dimension: its definition previewed as it is filled in; a taken name refused at the field.
  await owner.getByRole('button', { name: 'Add window dimension' }).click();
  const form = owner.getByRole('form', { name: 'New window dimension' });
  await form.getByLabel('Name', { exact: true }).fill('amount');
  await form.getByRole('checkbox', { name: 'region' }).check();
  await form.getByLabel('In the order of').selectOption('placedAt');
  await form.getByText('row_number() over (partition by region order by placedAt asc)').waitFor();
  await form.getByRole('button', { name: 'Save window dimension' }).click();
  await form.locator('.field-problem').filter({ hasText: '"amount" is already a field' }).waitFor();
  await expect(form.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
  await screenshot(owner, 'data-source-window-form');
  expect(await accessibilityViolations(owner)).toEqual([]);
  await form.getByLabel('Name', { exact: true }).fill('orderSeq');
  await form.getByRole('button', { name: 'Save window dimension' }).click();
  await owner.locator('table.windows').getByRole('rowheader', { name: 'orderSeq' }).waitFor();
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).body.windowDimensions).toEqual([
    expect.objectContaining({ name: 'orderSeq', function: 'row_number', partitionBy: ['region'], orderBy: 'placedAt', direction: 'asc' }),
  ]);
  // Its values, once saved, as the analytics query numbers the records.
  await owner.getByRole('button', { name: 'Preview values of orderSeq' }).click();
  const numbered = owner.getByRole('table', { name: 'First 10 rows numbered by orderSeq' }).locator('tbody tr');
  await numbered.first().waitFor();
  expect(await numbered.allInnerTexts()).toEqual([
    expect.stringMatching(/^EU\t2026-03-10.*\t1$/),
    expect.stringMatching(/^EU\t2026-03-12.*\t2$/),
    expect.stringMatching(/^US\t2026-03-11.*\t1$/),
  ]);
  // Changed to count from the latest: the values follow.
  await owner.getByRole('button', { name: 'Edit orderSeq' }).click();
  await owner.getByRole('form', { name: 'Change orderSeq' }).getByLabel('Direction').selectOption('desc');
  await owner.getByRole('button', { name: 'Save window dimension' }).click();
  await owner.locator('table.windows').getByText('order by placedAt desc').waitFor();
  await numbered.first().filter({ hasText: '2026-03-12' }).waitFor();
  expect(await numbered.allInnerTexts()).toEqual([
    expect.stringMatching(/^EU\t2026-03-12.*\t1$/),
    expect.stringMatching(/^EU\t2026-03-10.*\t2$/),
    expect.stringMatching(/^US\t2026-03-11.*\t1$/),
  ]);
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).body.windowDimensions[0].direction).toBe('desc');
  await screenshot(owner, 'data-source-edited');
  expect(await accessibilityViolations(owner)).toEqual([]);
});

test('at 390 px wide the new-source form and the source page fit the screen', async () => {
  const narrow = await stack.signedInPage(org.tokens.owner);
  await narrow.setViewportSize({ width: 390, height: 844 });
  await narrow.goto(`/console/data/sources/new?table=${table}`);
  await narrow.getByRole('group', { name: 'amount', exact: true }).waitFor();
  expect(await sideways(narrow)).toEqual([]);
  await screenshot(narrow, 'data-source-new-narrow');
  await narrow.goto(`/console/data/sources/${sourceId}`);
  await narrow.locator('table.windows').waitFor();
  await narrow.getByRole('button', { name: 'Edit fields' }).click();
  await narrow.getByRole('group', { name: 'amount', exact: true }).waitFor();
  expect(await sideways(narrow)).toEqual([]);
  await screenshot(narrow, 'data-source-narrow');
  expect(await accessibilityViolations(narrow)).toEqual([]);
  await narrow.context().close();
});

test('a table another organization shares is offered beside the own ones, and the source reads it through the share', async () => {
  const owner2 = await createTestOrg(stack.harness.services, 'business');
  const theirs = uniqueName('partner_sales');
  await seedRecords(stack.harness.app, owner2, theirs, ORDERS);
  const alias = uniqueName('partner');
  const shared = await as(stack.harness.app, owner2.ownerToken)
    .post('/dashboards/shares')
    .send({ tableName: theirs, sharedToOrganizationId: org.organizationId, alias });
  expect(shared.status).toBe(201);

  await owner.goto('/console/data/sources/new');
  await owner.getByLabel('Table', { exact: true }).selectOption({ label: `${alias} (shared)` });
  await expect(fieldGroup('amount').getByLabel('Role').inputValue()).resolves.toBe('measure');
  await owner.getByLabel('Name', { exact: true }).fill('Partner sales');
  await owner.getByRole('button', { name: 'Create data source' }).click();
  await owner.waitForURL(/\/console\/data\/sources\/[0-9a-f-]{36}$/);
  await owner.getByText(`over table ${theirs} (shared with this organization)`).waitFor();
  const source = (await api().get(`/dashboards/data-sources/${owner.url().split('/').pop()}`)).body;
  expect(source).toMatchObject({ name: 'Partner sales', sharedFromOrganizationId: owner2.organizationId });
  // Read through the share: the measure sums the partner's three records.
  const cube = `ds_${source.id.replace(/-/g, '_')}`;
  const total = await api()
    .post('/dashboards/analytics/query')
    .send({ query: { measures: [`${cube}.amount`] } });
  expect(total.status).toBe(201);
  expect(Number(total.body.data[0][`${cube}.amount`])).toBe(42);
});

test('a source is deleted after a confirmation naming what goes', async () => {
  await owner.goto(`/console/data/sources/${sourceId}`);
  await owner.getByRole('button', { name: 'Delete…' }).click();
  await owner.getByText(`Deleting ${sourceName} drops its analytics table; the records of table ${table} stay`).waitFor();
  await owner.getByRole('button', { name: `Delete ${sourceName}` }).click();
  await owner.waitForURL((url) => url.pathname === '/console/data/sources');
  expect((await api().get(`/dashboards/data-sources/${sourceId}`)).status).toBe(404);
  expect((await api().get(`/data-stores/tables/${table}/records/order:1`)).status).toBe(200);
});

test('a source from a data feed: without a connection of its kind the page says where to add one; with one, the feed is turned on', async () => {
  await owner.goto('/console/data/sources/new');
  await owner.getByRole('radio', { name: 'A data feed' }).check();
  await owner.getByLabel('Feed', { exact: true }).selectOption('github:issues');
  await owner.getByText('There is no github-oauth connection yet').waitFor();
  await owner.getByRole('link', { name: 'Settings → Connections' }).waitFor();
  await screenshot(owner, 'data-source-new-feed');
  expect(await accessibilityViolations(owner)).toEqual([]);

  const connection = await api()
    .post('/connections')
    .send({ name: uniqueName('twilio'), type: 'twilio', config: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'not-used' } });
  expect(connection.status).toBe(201);
  await owner.reload();
  await owner.getByLabel('Feed', { exact: true }).selectOption('twilio:calls');
  await expect(owner.getByLabel('Connection', { exact: true }).inputValue()).resolves.toBe(connection.body.id);
  await owner.getByLabel('Sync every (minutes)').fill('30');
  await owner.getByRole('button', { name: 'Turn the feed on' }).click();
  await owner.waitForURL(/\/console\/data\/sources\/[0-9a-f-]{36}$/);
  await owner.getByRole('region', { name: 'Sync' }).getByText('30 min').waitFor();
  const source = (await api().get(`/dashboards/data-sources/${owner.url().split('/').pop()}`)).body;
  expect(source).toMatchObject({ type: 'twilio:calls', connectionId: connection.body.id, enabled: true });
});
