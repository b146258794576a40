import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

/**
 * Settings → Model prices (issue 41): the organization's effective LLM price
 * table with each row's source; an administrator adds, changes and removes the
 * organization's own entries, a refused save is shown at its field; other
 * roles read only.
 */

let stack: ConsoleStack;
let org: TestOrg;
let admin: Page;

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  admin = await stack.signedInPage(org.tokens.admin);
}, 120_000);
afterAll(() => stack?.close());

const ownEntries = async () =>
  ((await as(stack.harness.app, org.tokens.owner).get('/organization/llm-prices')).body.data as Array<{ source: string; model: string }>).filter(
    (e) => e.source === 'organization',
  );

test('an administrator adds, changes and removes the organization’s prices; a refused one is named at its field', async () => {
  await admin.goto('/console/settings/model-prices');
  await admin.getByRole('heading', { name: 'Model prices', level: 1 }).waitFor();
  const row = (model: string) => admin.getByRole('row').filter({ has: admin.getByRole('rowheader', { name: model, exact: true }) });
  await row('gpt-4o-mini').getByText('Built in').waitFor();
  expect(await row('gpt-4o-mini').innerText()).toContain('$0.15');

  // A price of its own for a built-in model: it replaces the built-in row.
  await admin.getByRole('button', { name: 'Add price' }).click();
  const form = admin.getByRole('form', { name: 'New price' });
  await form.getByLabel('Model').fill('gpt-4o-mini');
  await form.getByLabel('Input, USD per 1M tokens').fill('0.5');
  await form.getByLabel('Output, USD per 1M tokens').fill('2');
  await form.getByLabel('From (UTC day)').fill('2026-01-01');
  await form.getByRole('button', { name: 'Add price' }).click();
  await form.waitFor({ state: 'detached' });
  await row('gpt-4o-mini').getByText('This organization').waitFor();
  expect(await row('gpt-4o-mini').count()).toBe(1);
  expect(await ownEntries()).toEqual([expect.objectContaining({ model: 'gpt-4o-mini', inputPerMillion: 0.5, since: '2026-01-01' })]);

  // The same model and day again: the API's refusal shows at the day's field, and nothing is written.
  await admin.getByRole('button', { name: 'Add price' }).click();
  const again = admin.getByRole('form', { name: 'New price' });
  await again.getByLabel('Model').fill('gpt-4o-mini');
  await again.getByLabel('Input, USD per 1M tokens').fill('9');
  await again.getByLabel('Output, USD per 1M tokens').fill('9');
  await again.getByLabel('From (UTC day)').fill('2026-01-01');
  await again.getByRole('button', { name: 'Add price' }).click();
  const since = again.getByLabel('From (UTC day)');
  await again.getByText('entry 0 already prices openai gpt-4o-mini from 2026-01-01: one price per provider, model and day').first().waitFor();
  expect(await since.getAttribute('aria-invalid')).toBe('true');
  expect(await ownEntries()).toHaveLength(1);
  await screenshot(admin, 'settings-model-prices-refused');
  expect(await accessibilityViolations(admin)).toEqual([]);
  await again.getByRole('button', { name: 'Cancel' }).click();

  // Changed, then removed: the built-in price is back.
  await admin.getByRole('button', { name: 'Change gpt-4o-mini from 2026-01-01' }).click();
  const edit = admin.getByRole('form', { name: 'Change gpt-4o-mini from 2026-01-01' });
  await edit.getByLabel('Input, USD per 1M tokens').fill('0.75');
  await edit.getByRole('button', { name: 'Save price' }).click();
  await edit.waitFor({ state: 'detached' });
  await row('gpt-4o-mini').getByText('$0.75').waitFor();
  await screenshot(admin, 'settings-model-prices');
  expect(await accessibilityViolations(admin)).toEqual([]);

  await admin.getByRole('button', { name: 'Remove gpt-4o-mini from 2026-01-01' }).click();
  await admin.getByRole('button', { name: 'Remove price' }).click();
  await row('gpt-4o-mini').getByText('Built in').waitFor();
  expect(await ownEntries()).toEqual([]);
});

test('other roles read the table, without a way to change it', async () => {
  await as(stack.harness.app, org.tokens.owner)
    .put('/organization/llm-prices')
    .send({ entries: [{ provider: 'anthropic', model: 'house-claude', inputPerMillion: 1, outputPerMillion: 2, currency: 'USD', since: '2026-02-01' }] })
    .expect(200);
  const viewer = await stack.signedInPage(org.tokens.viewer);
  await viewer.goto('/console/settings/model-prices');
  await viewer.getByRole('note').getByText('members:admin').waitFor();
  await viewer.getByRole('rowheader', { name: 'house-claude' }).waitFor();
  expect(await viewer.getByRole('button', { name: 'Add price' }).count()).toBe(0);
  expect(await viewer.getByRole('button', { name: /^Change / }).count()).toBe(0);
  await screenshot(viewer, 'settings-model-prices-viewer');
  expect(await accessibilityViolations(viewer)).toEqual([]);
  await viewer.context().close();
});
