import type { Page } from 'playwright-core';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

let stack: ConsoleStack;
let org: TestOrg;
let owner: Page;
let viewer: Page;

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  owner = await stack.signedInPage(org.tokens.owner);
  viewer = await stack.signedInPage(org.tokens.viewer);
}, 120_000);
afterAll(() => stack?.close());

const api = (token: string) => as(stack.harness.app, token);

async function checkPage(page: Page, name: string) {
  await screenshot(page, name);
  expect(await accessibilityViolations(page)).toEqual([]);
}

test('the settings index names the organization, its suid and plan, and the role of the signed-in person', async () => {
  const organization = (await api(org.tokens.owner).get('/organization')).body;
  await owner.goto('/console/settings');
  const block = owner.getByRole('region', { name: 'Organization' });
  await block.getByText(organization.name).waitFor();
  const facts = Object.fromEntries(
    await block.locator('dl.facts > div').evaluateAll((divs) => divs.map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent])),
  );
  expect(facts).toMatchObject({ Name: organization.name, 'Identifier (suid)': org.organizationSuid, Plan: 'team', 'Your role': 'owner' });
  await checkPage(owner, 'settings-index');
  await viewer.goto('/console/settings');
  await viewer.getByRole('region', { name: 'Organization' }).getByText('viewer', { exact: true }).waitFor();
});

test('a connection is created from its type schema; its config reaches the page only while revealed', async () => {
  const name = uniqueName('billing_api');
  const secret = `sk-live-${uniqueName('secret')}`;
  await owner.goto('/console/settings/connections');
  await owner.getByText('No connections yet.').waitFor();
  await owner.getByRole('button', { name: 'New connection' }).click();
  await owner.getByLabel('Name', { exact: true }).fill(name);
  await owner.getByLabel('Type').selectOption('api-key');
  const keyInput = owner.getByLabel('apiKey');
  await keyInput.waitFor();
  expect(await keyInput.getAttribute('type')).toBe('password');
  await keyInput.fill(secret);
  await owner.getByLabel('headerName').fill('X-Api-Key');
  await checkPage(owner, 'settings-connection-create');
  await owner.getByRole('button', { name: 'Create connection' }).click();
  const row = owner.getByRole('row').filter({ hasText: name });
  await row.waitFor();
  expect(await row.innerText()).toContain('api-key');
  expect(await owner.content()).not.toContain(secret);
  await checkPage(owner, 'settings-connections');

  await owner.getByRole('button', { name: `Reveal config of ${name}` }).click();
  const config = owner.getByLabel(`Config of ${name}`, { exact: true });
  await config.waitFor();
  expect(JSON.parse((await config.textContent())!)).toEqual({ apiKey: secret, headerName: 'X-Api-Key', prefix: 'Bearer' });
  await screenshot(owner, 'settings-connections-revealed');
  await owner.getByRole('button', { name: `Hide config of ${name}` }).click();
  await config.waitFor({ state: 'detached' });
  expect(await owner.content()).not.toContain(secret);

  // Renamed in place.
  await owner.getByRole('button', { name: `Rename ${name}` }).click();
  await owner.getByLabel(`New name for ${name}`).fill(`${name}_v2`);
  await owner.getByRole('button', { name: 'Save' }).click();
  await owner.getByRole('button', { name: `Reveal config of ${name}_v2` }).waitFor();

  // A viewer lacks secrets:view: told so, with nothing to create or reveal.
  await viewer.goto('/console/settings/connections');
  await viewer.getByText('cannot see connections').waitFor();
  expect(await viewer.getByRole('button', { name: /New connection|Reveal/ }).count()).toBe(0);
  expect(await viewer.content()).not.toContain(name);
  await checkPage(viewer, 'settings-connections-viewer');
});

test('an environment shows its plain values and never a secret one, before or after it is changed', async () => {
  const secret = `pw-${uniqueName('hidden')}`;
  const env = (
    await api(org.tokens.owner)
      .post('/environments')
      .send({
        name: uniqueName('production'),
        description: 'Live systems',
        variables: { API_URL: { value: 'https://api.plain.example', secret: false }, DB_PASSWORD: secret },
      })
  ).body;
  await owner.goto('/console/settings/environments');
  const listRow = owner.getByRole('row').filter({ has: owner.getByRole('link', { name: env.name }) });
  expect((await listRow.innerText()).split('\t').slice(1, 4)).toEqual(['Live systems', '2', '1']);
  await checkPage(owner, 'settings-environments');

  await listRow.getByRole('link', { name: env.name }).click();
  const rows = owner.locator('table.variables tbody tr');
  await owner.getByText('https://api.plain.example').waitFor();
  expect((await rows.allInnerTexts()).map((r) => r.split('\t').slice(0, 3))).toEqual([
    ['API_URL', 'https://api.plain.example', 'Plain'],
    ['DB_PASSWORD', '••••• (secret)', 'Secret'],
  ]);
  expect(await owner.content()).not.toContain(secret);
  await checkPage(owner, 'settings-environment');

  // A new plain variable is shown; a secret one's new value is not.
  await owner.getByRole('button', { name: 'Add variable' }).click();
  await owner.getByLabel('Key').fill('REGION');
  await owner.getByLabel('Secret (masked').uncheck();
  await owner.getByLabel('Value', { exact: true }).fill('eu-west-1');
  await owner.getByRole('button', { name: 'Add variable' }).last().click();
  await owner.getByText('eu-west-1').waitFor();
  const newSecret = `pw2-${uniqueName('hidden')}`;
  await owner.getByRole('button', { name: 'Change DB_PASSWORD' }).click();
  await owner.getByLabel('New value of DB_PASSWORD').fill(newSecret);
  await owner.getByRole('button', { name: 'Save variable' }).click();
  await owner.getByLabel('New value of DB_PASSWORD').waitFor({ state: 'detached' });
  const values = (await api(org.tokens.owner).get(`/environments/${env.id}/variables`)).body.variables;
  expect(values).toEqual({ API_URL: 'https://api.plain.example', DB_PASSWORD: newSecret, REGION: 'eu-west-1' });
  const html = await owner.content();
  expect(html).not.toContain(secret);
  expect(html).not.toContain(newSecret);

  // A viewer reads keys only, with no controls.
  await viewer.goto(`/console/settings/environments/${env.id}`);
  await viewer.getByText('Values are hidden').waitFor();
  expect(await viewer.getByRole('button').allTextContents()).toEqual(['Sign out']);
  await viewer.goto('/console/settings/environments');
  await viewer.getByRole('link', { name: env.name }).waitFor();
  expect(await viewer.getByRole('button', { name: 'New environment' }).count()).toBe(0);
});

test('an owner invites someone and gets the invitation link once; changes a role; a viewer is told members need members:admin', async () => {
  const email = `${uniqueName('invitee')}@example.test`;
  await owner.goto('/console/settings/members');
  await owner.getByRole('row').filter({ hasText: 'viewer-' }).waitFor();
  expect(await owner.locator('table.members tbody tr').count()).toBe(5);
  await owner.getByLabel('E-mail').fill(email);
  await owner.getByLabel('Name (optional)').fill('Ines');
  await owner.getByLabel('Role', { exact: true }).selectOption('analyst');
  await owner.getByRole('button', { name: 'Invite' }).click();
  const link = (await owner.locator('#invitation-link').textContent())!;
  expect(link).toMatch(new RegExp(`^${stack.baseUrl}/console/invitations/[^/]+$`));
  await owner.getByRole('button', { name: 'Copy link' }).waitFor();
  const invitationRow = owner.locator('table.invitations tbody tr').filter({ hasText: email });
  expect((await invitationRow.innerText()).split('\t').slice(0, 3)).toEqual([email, 'Ines', 'analyst']);
  await checkPage(owner, 'settings-members');
  await owner.getByRole('button', { name: 'Done' }).click();
  expect(await owner.content()).not.toContain(link.split('/').pop()!);

  // The link opens the invitation, naming what it offers (console-invitations tests accepting it).
  const guest = await (await stack.newContext()).newPage();
  await guest.goto(link);
  await guest.getByRole('heading', { name: /^Invitation to Org / }).waitFor();
  await guest.getByText('analyst', { exact: false }).first().waitFor();
  await guest.context().close();

  // The analyst becomes a developer.
  const analystRow = owner.locator('table.members tbody tr').filter({ hasText: 'analyst-' });
  await analystRow.getByRole('combobox').selectOption('developer');
  await eventually(
    async () => (await api(org.tokens.owner).get('/organization/members')).body.data.find((m: any) => m.email.startsWith('analyst-')).role,
    (role) => role === 'developer',
  );

  await viewer.goto('/console/settings/members');
  await viewer.getByText('cannot manage members').waitFor();
  expect(await viewer.getByRole('button', { name: 'Invite' }).count()).toBe(0);
  await checkPage(viewer, 'settings-members-viewer');
});

test('minting a token shows its secret once; revoking removes it from the list and from the API', async () => {
  await owner.goto('/console/settings/tokens');
  await owner.locator('table.tokens tbody tr:not(.detail-row)').first().waitFor();
  const before = await owner.locator('table.tokens tbody tr:not(.detail-row)').count();
  await owner.getByLabel('Token name').fill('ci-deploy');
  await owner.getByLabel('Expires in days (optional)').fill('30');
  await owner.getByRole('button', { name: 'Create token' }).click();
  const secret = (await owner.locator('#minted-token').textContent())!;
  expect((await api(secret).get('/organization')).status).toBe(200);
  const row = owner.locator('table.tokens tbody tr:not(.detail-row)').filter({ hasText: 'ci-deploy' });
  await row.waitFor();
  expect(await owner.locator('table.tokens tbody tr:not(.detail-row)').count()).toBe(before + 1);
  expect(await row.innerText()).toContain(secret.slice(0, 8));
  await checkPage(owner, 'settings-tokens');
  await owner.getByRole('button', { name: 'I have copied it' }).click();
  expect(await owner.content()).not.toContain(secret);
  // Shown once: a reload does not bring it back.
  await owner.reload();
  await row.waitFor();
  expect(await owner.content()).not.toContain(secret);

  await owner.getByRole('button', { name: 'Revoke ci-deploy' }).click();
  await owner.getByRole('button', { name: 'Revoke token' }).click();
  await row.waitFor({ state: 'detached' });
  expect(await owner.locator('table.tokens tbody tr:not(.detail-row)').count()).toBe(before);
  expect((await api(secret).get('/organization')).status).toBe(401);
  // The console session (another token) goes on.
  await owner.reload();
  await owner.getByRole('heading', { name: 'Access tokens' }).waitFor();
});
