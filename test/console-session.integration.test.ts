import request from 'supertest';
import { createTestOrg, type TestOrg } from './factories';
import { accessibilityViolations, screenshot, signIn, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { as } from './harness';

import { workflowApi } from './workflow-api';

let stack: ConsoleStack;
let org: TestOrg;

beforeAll(async () => {
  stack = await startConsoleStack();
  org = await createTestOrg(stack.harness.services);
}, 120_000);
afterAll(() => stack?.close());

test('a person signs in with a pasted token, stays signed in across a reload, and signs out', async () => {
  const context = await stack.newContext();
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Access token' }).waitFor();
  await screenshot(page, 'sign-in');
  expect(await accessibilityViolations(page)).toEqual([]);
  await signIn(page, org.tokens.developer);
  const cookies = await context.cookies();
  // The session, which no script reads; and its CSRF token, which the page reads to send on writes.
  expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite })).sort((x, y) => x.name.localeCompare(y.name))).toEqual([
    { name: 'flowbase_csrf', httpOnly: false, sameSite: 'Strict' },
    { name: 'flowbase_session', httpOnly: true, sameSite: 'Strict' },
  ]);
  // The token is in neither storage.
  const stored = await page.evaluate(() => {
    const { localStorage, sessionStorage } = globalThis as any;
    return JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage });
  });
  expect(stored).not.toContain(org.tokens.developer);
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('textbox', { name: 'Access token' }).waitFor();
  // The old cookie no longer works, even if it were replayed.
  const replay = await request(stack.baseUrl)
    .get('/session')
    .set('Cookie', `flowbase_session=${cookies.find((c) => c.name === 'flowbase_session')!.value}`);
  expect(replay.status).toBe(401);
  await context.close();
});

test('a revoked token ends its session on the next request', async () => {
  const minted = await as(stack.harness.app, org.tokens.analyst).post('/tokens').send({ name: 'console' });
  expect(minted.status).toBe(201);
  const page = await stack.signedInPage(minted.body.token);
  expect((await as(stack.harness.app, org.tokens.analyst).delete(`/tokens/${minted.body.id}`)).status).toBe(200);
  await page.reload();
  await page.getByRole('textbox', { name: 'Access token' }).waitFor();
  await page.context().close();
});

test('the console pages carry a strict CSP and refuse framing; a cookie write without the CSRF token is refused', async () => {
  const page = await stack.signedInPage(org.tokens.owner);
  const response = await page.goto('/console/runs');
  const csp = response!.headers()['content-security-policy'];
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  const outcome = await page.evaluate(async () => {
    const refused = await fetch('/tokens', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'x' }) });
    return { status: refused.status, body: await refused.json() };
  });
  expect(outcome).toEqual({ status: 403, body: { error: expect.objectContaining({ code: 'csrf_failed' }) } });
  await page.context().close();
});

test("a webhook's HTML reply opened in the signed-in browser runs no script on the console's origin", async () => {
  const hook = await workflowApi(stack.harness.app, org).createHook(
    [
      {
        stepId: 'reply',
        stepType: 'core.return',
        input: {
          webhookResponse: {
            statusCode: 200,
            headers: { 'content-type': 'text/html' },
            body: '<title>bait</title><script>document.title = "ran"; fetch("/session").then(() => (document.title = "read the session"))</script>',
          },
        },
      },
    ],
    { method: 'GET' },
  );
  const page = await stack.signedInPage(org.tokens.owner);
  const sessionCalls: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/session') sessionCalls.push(r.method());
  });
  await page.goto(hook.path);
  await page.waitForLoadState('load');
  expect(await page.title()).toBe('bait');
  expect(sessionCalls).toEqual([]);
  // Whatever the browser said about the script it refused is expected here, not a fault of the console's pages.
  stack.takeProblems();
  await page.context().close();
});

test('an invitation link opened by someone with an account: sign in, accept, and the console switches to the new organization', async () => {
  const other = await createTestOrg(stack.harness.services);
  const who = await as(stack.harness.app, other.ownerToken).get('/session');
  const invitation = await as(stack.harness.app, org.ownerToken).post('/organization/invitations').send({ email: who.body.user.email, role: 'analyst' });
  expect(invitation.status).toBe(201);
  const context = await stack.newContext();
  const page = await context.newPage();
  await signIn(page, other.ownerToken, `/console/invitations/${encodeURIComponent(invitation.body.code)}`);
  await page.getByRole('heading', { name: 'Invitation' }).waitFor();
  await screenshot(page, 'invitation');
  expect(await accessibilityViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  const organization = await as(stack.harness.app, org.ownerToken).get('/organization');
  await page.getByText(`${organization.body.name} · analyst`).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/runs');
  await context.close();
});
