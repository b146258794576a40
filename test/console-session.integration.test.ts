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

/**
 * Another organization's page, served by its workflow from this origin: it reads the signed-in person's CSRF
 * cookie and session, and mints a token of their organization. Its own policy would let inline script run.
 */
const TAKEOVER = `<title>bait</title><script>
document.title = 'ran';
const csrf = (document.cookie.match(/flowbase_csrf=([^;]+)/) || [])[1];
fetch('/session').then(() => fetch('/tokens', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: '{"name":"taken"}' }))
  .then((r) => (document.title = 'took over ' + r.status));
</script>`;
const TAKEOVER_HEADERS = { 'Content-Type': 'text/html', 'Content-Security-Policy': "script-src 'unsafe-inline'" };

describe("another organization's HTML answer opened by a signed-in person (issue 37, findings 1 and 2)", () => {
  let attacker: TestOrg;
  beforeAll(async () => {
    attacker = await createTestOrg(stack.harness.services);
  });

  /** The victim's tokens as the API lists them: what a takeover would add to. */
  const victimTokens = async () => (await as(stack.harness.app, org.ownerToken).get('/tokens')).body;

  /** Opens `navigate` in the victim's signed-in browser; answers what the answer's page did: its title and the API calls it made. */
  async function openAsVictim(navigate: (page: import('playwright-core').Page) => Promise<unknown>) {
    const page = await stack.signedInPage(org.ownerToken);
    const calls: string[] = [];
    page.on('request', (r) => {
      const { pathname } = new URL(r.url());
      if (pathname === '/session' || pathname === '/tokens') calls.push(`${r.method()} ${pathname}`);
    });
    await navigate(page);
    // The page's inline script would have set its title before `load`; its requests would have gone out before the network is idle.
    await page.waitForLoadState('networkidle');
    const title = await page.title();
    await page.context().close();
    // Whatever the browser said about the script it refused is expected here, not a fault of the console's pages.
    stack.takeProblems();
    return { title, calls };
  }

  test("a webhook's answer: no script runs, no request is made, the victim's tokens stay as they were", async () => {
    const hook = await workflowApi(stack.harness.app, attacker).createHook(
      [{ stepId: 'page', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, headers: TAKEOVER_HEADERS, body: TAKEOVER } } }],
      { method: 'GET' },
    );
    const before = await victimTokens();
    const seen = await openAsVictim((page) => page.goto(hook.path));
    expect(seen).toEqual({ title: 'bait', calls: [] });
    expect(await victimTokens()).toEqual(before);
  });

  test("a resume link's answer, posted by the victim's browser: the same", async () => {
    const hook = await workflowApi(stack.harness.app, attacker).createHook([
      // The attacker, who started the run, is handed the link; the victim is led to post it.
      { stepId: 'link', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { link: '{{ $resume.approval }}' } } } },
      { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'approved' } } },
      { stepId: 'page', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, headers: TAKEOVER_HEADERS, body: TAKEOVER } } },
    ]);
    const started = await request(stack.harness.app).post(hook.path).send({});
    expect(started.status).toBe(200);
    const link = new URL(started.body.link as string).pathname;
    const before = await victimTokens();
    const seen = await openAsVictim(async (page) => {
      // A form can only post form encodings, which the link refuses (415); the post is sent as JSON, as a client that
      // shows the answer (a chat app's preview, an API tool) would, so the answer renders as a page of this origin.
      await page.route(`${stack.baseUrl}${link}`, (route) =>
        route.continue({ headers: { ...route.request().headers(), 'content-type': 'application/json' }, postData: '{}' }),
      );
      await page.goto('about:blank');
      await page.setContent(`<form method="post" action="${stack.baseUrl}${link}"><button>Approve</button></form>`);
      await Promise.all([page.waitForURL(`${stack.baseUrl}${link}`), page.getByRole('button', { name: 'Approve' }).click()]);
    });
    expect(seen).toEqual({ title: 'bait', calls: [] });
    expect(await victimTokens()).toEqual(before);
  });
});
