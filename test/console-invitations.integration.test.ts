import request from 'supertest';
import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

/**
 * Issue 40: an invitation link names what it offers, is accepted once by each
 * kind of person (new and signed out; with an account and signed in; with an
 * account and signed out), and ends in the new organization's console with the
 * new member's token shown once.
 */
let stack: ConsoleStack;
let org: TestOrg;
let orgName: string;
let inviterEmail: string;

beforeAll(async () => {
  stack = await startConsoleStack({ worker: false });
  org = await createTestOrg(stack.harness.services);
  const [organization, owner] = await Promise.all([
    as(stack.harness.app, org.ownerToken).get('/organization'),
    as(stack.harness.app, org.ownerToken).get('/session'),
  ]);
  orgName = organization.body.name;
  inviterEmail = owner.body.user.email;
}, 120_000);
afterAll(() => stack?.close());

async function invite(email: string, role: string): Promise<string> {
  const invited = await as(stack.harness.app, org.ownerToken).post('/organization/invitations').send({ email, role });
  expect(invited.status).toBe(201);
  return `/console/invitations/${encodeURIComponent(invited.body.code)}`;
}

/** The email of the owner of a fresh organization: someone who has an account. */
async function someoneWithAnAccount(): Promise<{ email: string; token: string }> {
  const other = await createTestOrg(stack.harness.services);
  const who = await as(stack.harness.app, other.ownerToken).get('/session');
  return { email: who.body.user.email, token: other.ownerToken };
}

/** Records every answer to POST /invitations/accept the page gets. */
function acceptAnswers(page: Page): number[] {
  const statuses: number[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === '/invitations/accept') statuses.push(r.status());
  });
  return statuses;
}

/** The invitation names the organization, the role and who invited, before anything is accepted. */
async function expectOffer(page: Page, role: string, email: string) {
  await page.getByRole('heading', { name: `Invitation to ${orgName}` }).waitFor();
  const facts = page.locator('dl.facts');
  for (const text of [orgName, role, inviterEmail, email]) await facts.getByText(text, { exact: true }).waitFor();
}

/**
 * Where each path ends: the new organization's console, its token shown once with the sentence on sessions, and
 * no accept offered again. Dismissing forgets the token. Answers the token, which then works with the API.
 */
async function expectJoined(page: Page, role: string, accepts: number[]): Promise<string> {
  await page.getByRole('heading', { name: `Welcome to ${orgName}` }).waitFor();
  await page.getByText(`${orgName} · ${role}`).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/invitations/joined');
  const shown = page.getByRole('status', { name: 'New access token' });
  const token = (await shown.locator('code').textContent())!;
  expect(token).toMatch(/^fb/);
  await expect(shown.textContent()).resolves.toMatch(/This console session lasts 12 hours, until .+\. Keep the token to sign in again .+ Settings → Tokens/);
  await shown.getByRole('button', { name: 'Copy access token' }).waitFor();
  expect(await page.getByRole('button', { name: /accept/i }).count()).toBe(0);
  expect(accepts).toEqual([201]);

  await shown.getByRole('button', { name: 'I have stored it' }).click();
  await page.waitForURL('**/console/runs');
  // Gone: the address of the display leads to the console's start, with no token.
  await page.goto('/console/invitations/joined');
  await page.waitForURL('**/console/runs');
  expect(await page.content()).not.toContain(token);

  // The token is the new member's: it signs in, to the inviting organization, with the invited role.
  const signedIn = await request(stack.baseUrl).post('/session').send({ token });
  expect(signedIn.status).toBe(201);
  expect(signedIn.body).toMatchObject({ organization: { id: org.organizationId }, role });
  return token;
}

test('the sign-in page says where a token comes from', async () => {
  const context = await stack.newContext();
  const page = await context.newPage();
  await page.goto('/console/');
  const sources = page.getByRole('region', { name: 'Where a token comes from' });
  await sources.waitFor();
  for (const text of ['An invitation link', 'Settings → Tokens', 'npm run admin -- create-org', 'npm run admin -- create-token']) {
    await sources.getByText(text).first().waitFor();
  }
  await page.getByText('session of 12 hours at most').waitFor();
  await screenshot(page, 'sign-in-token-sources');
  expect(await accessibilityViolations(page)).toEqual([]);
  await context.close();
});

test('someone new, signed out: sees the offer, accepts once, lands in the new organization with their token shown once', async () => {
  const email = `new-${Date.now().toString(36)}@example.test`;
  const link = await invite(email, 'developer');
  const context = await stack.newContext();
  const page = await context.newPage();
  const accepts = acceptAnswers(page);
  await page.goto(link);
  await expectOffer(page, 'developer', email);
  await screenshot(page, 'invitation-signed-out');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('textbox', { name: 'Your name (optional)' }).fill('Nia New');
  await page.getByRole('button', { name: 'Accept and create my account' }).click();
  await page.getByRole('heading', { name: `Welcome to ${orgName}` }).waitFor();
  await screenshot(page, 'invitation-joined');
  expect(await accessibilityViolations(page)).toEqual([]);
  const token = await expectJoined(page, 'developer', accepts);
  // The account was made for the invited address, with the name given.
  const who = await request(stack.baseUrl).get('/session').set('Authorization', `Bearer ${token}`);
  expect(who.body.user).toMatchObject({ email, name: 'Nia New' });

  // The used link, opened again: said to be closed, with nothing to accept.
  await page.goto(link);
  await page.getByText('This invitation cannot be accepted').waitFor();
  expect(await page.getByRole('button', { name: /accept/i }).count()).toBe(0);
  await screenshot(page, 'invitation-closed');
  expect(await accessibilityViolations(page)).toEqual([]);
  await context.close();
});

test('someone with an account, signed in: sees the offer, accepts once with the session, and the console switches', async () => {
  const member = await someoneWithAnAccount();
  const link = await invite(member.email, 'analyst');
  const page = await stack.signedInPage(member.token);
  const accepts = acceptAnswers(page);
  await page.goto(link);
  await expectOffer(page, 'analyst', member.email);
  await screenshot(page, 'invitation-signed-in');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  const token = await expectJoined(page, 'analyst', accepts);
  // The account's own organization kept it: the new token is another one, for the new membership only.
  expect(token).not.toBe(member.token);
  await page.context().close();
});

test('someone with an account, signed out: told to use a token, then signs in and accepts in one step', async () => {
  const member = await someoneWithAnAccount();
  const link = await invite(member.email, 'viewer');
  const context = await stack.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await expectOffer(page, 'viewer', member.email);
  // Taken for someone new, the account is not: the page says what to do instead.
  await page.getByRole('button', { name: 'Accept and create my account' }).click();
  await page.getByRole('alert').getByText(`An account for ${member.email} exists already`).waitFor();
  expect(await accessibilityViolations(page)).toEqual([]);

  const accepts = acceptAnswers(page);
  await page.getByLabel('Your token').fill(member.token);
  await page.getByRole('button', { name: 'Sign in and accept' }).click();
  await expectJoined(page, 'viewer', accepts);
  // The pasted token is the account's own and still works: accepting took nothing from it.
  expect((await request(stack.baseUrl).get('/session').set('Authorization', `Bearer ${member.token}`)).status).toBe(200);
  await context.close();
});

test('a link for another address, opened while signed in: nothing to accept, and a way to accept as the invited person', async () => {
  const email = `elsewhere-${Date.now().toString(36)}@example.test`;
  const link = await invite(email, 'viewer');
  const page = await stack.signedInPage(org.tokens.viewer);
  await page.goto(link);
  await expectOffer(page, 'viewer', email);
  await page.getByText(`This invitation is for ${email}`).waitFor();
  expect(await page.getByRole('button', { name: /accept/i }).count()).toBe(0);
  expect(await accessibilityViolations(page)).toEqual([]);
  // Signed out, the same link offers the accept the invited person needs.
  await page.getByRole('main').getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Accept and create my account' }).waitFor();
  await page.context().close();
});
