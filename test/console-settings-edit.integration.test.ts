import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as, createConnection } from './harness';

/**
 * Issue 40 in the console: a connection's config edited with its secrets
 * write-only ("leave blank to keep"), and a token minted with chosen
 * permissions and an expiry.
 */

let stack: ConsoleStack;
let org: TestOrg;
let owner: Page;

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  owner = await stack.signedInPage(org.tokens.owner);
}, 120_000);
afterAll(() => stack?.close());

const api = (token: string) => as(stack.harness.app, token);
const configOf = async (id: string) => (await api(org.tokens.owner).get(`/connections/${id}/config`)).body;

async function checkPage(page: Page, name: string) {
  await screenshot(page, name);
  expect(await accessibilityViolations(page)).toEqual([]);
}

test('a connection is edited without its secret: left blank it is kept, given it is replaced; a refused save changes nothing', async () => {
  const name = uniqueName('billing_api');
  const secret = `sk-live-${uniqueName('secret')}`;
  const c = await createConnection(stack.harness.app, org, { name, type: 'api-key', config: { apiKey: secret, headerName: 'X-Api-Key' } });

  await owner.goto('/console/settings/connections');
  await owner.getByRole('button', { name: `Edit ${name}` }).click();
  const form = owner.getByRole('form', { name: `Edit ${name}` });
  const header = form.getByLabel('headerName');
  await header.waitFor();
  expect(await header.inputValue()).toBe('X-Api-Key');
  const key = form.getByLabel('apiKey');
  expect(await key.getAttribute('type')).toBe('password');
  expect(await key.inputValue()).toBe('');
  expect(await key.getAttribute('placeholder')).toBe('leave blank to keep');
  await form.getByText('Set; leave blank to keep it').waitFor();
  expect(await owner.content()).not.toContain(secret);
  await checkPage(owner, 'settings-connection-edit');

  // A non-secret field changed and the connection renamed, the secret left blank.
  await form.getByLabel('Name', { exact: true }).fill(`${name}_v2`);
  await header.fill('X-Key');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await form.waitFor({ state: 'detached' });
  await owner.getByRole('button', { name: `Edit ${name}_v2` }).waitFor();
  expect(await configOf(c.id)).toEqual({ apiKey: secret, headerName: 'X-Key', prefix: 'Bearer' });

  // A refused save (a name that is no identifier) names its field and writes nothing, the config change included.
  await owner.getByRole('button', { name: `Edit ${name}_v2` }).click();
  const again = owner.getByRole('form', { name: `Edit ${name}_v2` });
  await again.getByLabel('headerName').fill('X-Other');
  await again.getByLabel('Name', { exact: true }).fill('not an identifier');
  await again.getByRole('button', { name: 'Save changes' }).click();
  await owner.locator('#edit-connection-name-problem').getByText('must be an identifier').waitFor();
  expect(await again.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
  expect(await configOf(c.id)).toEqual({ apiKey: secret, headerName: 'X-Key', prefix: 'Bearer' });
  expect((await api(org.tokens.owner).get(`/connections/${c.id}`)).body.name).toBe(`${name}_v2`);

  // The secret replaced.
  const newSecret = `sk-live-${uniqueName('rotated')}`;
  await again.getByLabel('Name', { exact: true }).fill(`${name}_v2`);
  await again.getByLabel('apiKey').fill(newSecret);
  await again.getByRole('button', { name: 'Save changes' }).click();
  await again.waitFor({ state: 'detached' });
  expect(await configOf(c.id)).toEqual({ apiKey: newSecret, headerName: 'X-Other', prefix: 'Bearer' });
  const html = await owner.content();
  expect(html).not.toContain(secret);
  expect(html).not.toContain(newSecret);
});

test('a custom connection: each stored value is a blank secret field, kept, removed, or joined by new ones', async () => {
  const name = uniqueName('vault');
  const token = `tok-${uniqueName('secret')}`;
  const c = await createConnection(stack.harness.app, org, { name, type: 'custom', config: { token, region: 'eu-west-1' } });
  await owner.goto('/console/settings/connections');
  await owner.getByRole('button', { name: `Edit ${name}` }).click();
  const form = owner.getByRole('form', { name: `Edit ${name}` });
  await form.getByLabel('token', { exact: true }).waitFor();
  expect(await form.getByLabel('region', { exact: true }).inputValue()).toBe('');
  await form.getByLabel('Remove the stored region').check();
  await form.getByLabel('New values (one name=value a line)').fill('extra=42');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await form.waitFor({ state: 'detached' });
  expect(await configOf(c.id)).toEqual({ token, extra: '42' });
  expect(await owner.content()).not.toContain(token);
});

test('a token minted with read permissions and an expiry reads but cannot write; the list shows its scope and expiry', async () => {
  await owner.goto('/console/settings/tokens');
  const mint = owner.getByRole('form', { name: 'New token' });
  await mint.getByLabel('Token name').fill('read-only-ci');
  await mint.getByLabel('Expires', { exact: true }).selectOption('7');
  expect(await mint.getByLabel('Expires in days (optional)').inputValue()).toBe('7');
  // Every permission of the role to start with; "Read only" keeps the :view ones.
  const admin = mint.getByRole('checkbox', { name: /workflows:admin/ });
  expect(await admin.isChecked()).toBe(true);
  await mint.getByRole('button', { name: 'Read only' }).click();
  expect(await admin.isChecked()).toBe(false);
  expect(await mint.getByRole('checkbox', { name: /workflows:view/ }).isChecked()).toBe(true);
  await checkPage(owner, 'settings-tokens-mint-scoped');
  await mint.getByRole('button', { name: 'Create token' }).click();

  const secret = (await owner.locator('#minted-token').textContent())!;
  expectStatus200(await api(secret).get('/data-stores/tables'));
  const write = await api(secret)
    .post('/data-stores')
    .send({ tableName: uniqueName('probe'), key: 'k', value: { n: 1 } });
  expect(write.status).toBe(403);

  const token = (await api(org.tokens.owner).get('/tokens')).body.data.find((t: { name: string }) => t.name === 'read-only-ci');
  expect(token.permissions).toEqual(['secrets:view', 'workflows:view', 'dashboards:view']);
  const days = (Date.parse(token.expiresAt) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(6.9);
  expect(days).toBeLessThanOrEqual(7);

  const row = owner.locator('table.tokens tbody tr:not(.detail-row)').filter({ hasText: 'read-only-ci' });
  await row.waitFor();
  const text = await row.innerText();
  expect(text).toContain('workflows:view');
  expect(text).not.toContain('workflows:admin');
  await owner.getByRole('button', { name: 'I have copied it' }).click();
  await checkPage(owner, 'settings-tokens-scoped');
});

function expectStatus200(res: { status: number; text: string }) {
  expect({ status: res.status, text: res.text.slice(0, 200) }).toEqual({ status: 200, text: expect.any(String) });
}
