import request from 'supertest';
import { createApp } from '../src/app/app';
import { ANSWER_CSP } from '../src/http/answer-headers';
import { DOCS_CSP } from '../src/http/security-headers';
import { as, type Harness } from './harness';
import { eventually, type TestOrg } from './factories';
import { echo, startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, returnStep, startWorkflowHarness, type WorkflowApi } from './workflow-api';

/**
 * What a workflow's answer may carry on the service's origin (issue 37,
 * findings 1, 2, 6 and the 404s of 8): the service's own security headers
 * always win, and webhook answers can live on a host of their own. The same
 * answers opened in a signed-in browser: test/console-session.integration.test.ts.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: echo });
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

/** What an attacker's return step sets, all of which a workflow may: its own (looser) policy only adds to the service's. */
const PERMITTED = {
  'Content-Type': 'text/html',
  'Content-Security-Policy': "script-src 'unsafe-inline'",
  'Access-Control-Allow-Origin': '*',
  'Cache-Control': 'no-store',
  'X-Order-Id': 'o-1',
};

/** Headers no return step may set, each with a value that would hurt on the console's origin. */
const RESERVED: Record<string, string> = {
  'Set-Cookie': 'flowbase_session=planted; Path=/',
  'X-Content-Type-Options': 'sniff',
  'Access-Control-Allow-Credentials': 'true',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'Clear-Site-Data': '"cookies"',
  'X-Frame-Options': 'ALLOWALL',
  'Content-Security-Policy-Report-Only': "default-src 'none'",
  'Service-Worker-Allowed': '/',
  'WWW-Authenticate': 'Basic realm="Sign in to Flowbase"',
  'X-Accel-Redirect': '/internal/secrets',
  'X-Execution-Id': 'forged',
  'Content-Length': '1',
};

const PAGE = '<title>bait</title><script>fetch("/session")</script>';

/** Headers the service always sends with a workflow's answer, whatever the workflow set. */
function expectServiceHeaders(res: request.Response): void {
  const policies = String(res.headers['content-security-policy']);
  // The service's policy first; a browser enforces every policy it gets, so one added beside it can only narrow.
  expect(policies.startsWith(ANSWER_CSP)).toBe(true);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['set-cookie']).toBeUndefined();
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  expect(res.headers['strict-transport-security']).toBeUndefined();
  expect(res.headers['clear-site-data']).toBeUndefined();
  expect(res.headers['x-frame-options']).toBeUndefined();
  expect(res.headers['content-security-policy-report-only']).toBeUndefined();
  expect(res.headers['service-worker-allowed']).toBeUndefined();
  expect(res.headers['www-authenticate']).toBeUndefined();
  expect(res.headers['x-accel-redirect']).toBeUndefined();
}

describe("a return step's headers", () => {
  test('the ones a workflow may set reach the caller, beside the service sandboxing policy and nosniff', async () => {
    const { path } = await a.createHook([returnStep('page', PAGE, 200, PERMITTED)], { method: 'GET' });
    const res = await request(h.app).get(path);
    expect(res.status).toBe(200);
    expect(res.text).toBe(PAGE);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(`${ANSWER_CSP}, ${PERMITTED['Content-Security-Policy']}`);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-order-id']).toBe('o-1');
    expectServiceHeaders(res);
  });

  test.each(Object.keys(RESERVED))('a definition setting %s is refused when saved, naming the header', async (name) => {
    const res = await as(h.app, org.ownerToken)
      .post('/workflows')
      .send({ name: `reserved-${name.toLowerCase()}`, steps: [returnStep('page', PAGE, 200, { [name]: RESERVED[name] })] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: `steps.0.input.webhookResponse.headers.${name}` })]);
    expect(res.body.error.details[0].message).toContain(name);
  });

  test('a definition saved before the rule still cannot set them: the answer leaves them out', async () => {
    const { path, workflow } = await a.createHook([returnStep('page', PAGE, 200, { 'X-Order-Id': 'o-1' })], { method: 'GET' });
    // As an older version of the service stored it, before the check refused these headers.
    await h.services.db.query(
      `UPDATE workflow_versions SET definition = jsonb_set(definition::jsonb, '{steps,0,input,webhookResponse,headers}', $2::jsonb)::json WHERE workflow_id = $1`,
      [workflow.id, JSON.stringify({ ...PERMITTED, ...RESERVED })],
    );
    const res = await request(h.app).get(path);
    expect(res.status).toBe(200);
    expect(res.text).toBe(PAGE);
    expect(res.headers['x-order-id']).toBe('o-1');
    expect(res.headers['x-execution-id']).not.toBe('forged');
    expectServiceHeaders(res);
  });

  test("a resume link's answer gets the same headers: the service's always, the workflow's permitted ones beside them", async () => {
    const { path } = await a.createHook([
      httpStep('notify', { url: `${stub.url}/links`, method: 'POST', body: { link: '{{ $resume.approval }}' } }),
      { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'approved' } } },
      returnStep('page', PAGE, 200, PERMITTED),
    ]);
    expect((await request(h.app).post(path).send({})).status).toBe(202);
    const link = new URL((JSON.parse(stub.calls('/links').at(-1)!.body) as { link: string }).link).pathname;
    const res = await eventually(
      () => request(h.app).post(link).send({}),
      (r) => r.status !== 404,
      10_000,
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe(PAGE);
    expect(res.headers['content-security-policy']).toBe(`${ANSWER_CSP}, ${PERMITTED['Content-Security-Policy']}`);
    expectServiceHeaders(res);
  });
});

describe('every other answer outside the console', () => {
  test.each(['/consolefoo', '/docsfoo', '/no-such-route', '/w'])('a 404 at %s carries the sandboxing policy and nosniff', async (path) => {
    const res = await request(h.app).get(path);
    expect(res.status).toBe(404);
    expect(res.headers['content-security-policy']).toBe(ANSWER_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('the API reference page runs only its own scripts and is never framed', async () => {
    const res = await request(h.app).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('webhook answers on a host of their own (PUBLIC_BASE_URL and WEBHOOK_BASE_URL on different hosts)', () => {
  const HOOKS = 'hooks.example.test';
  const CONSOLE = 'app.example.test';
  let split: ReturnType<typeof createApp>;
  beforeAll(() => {
    split = createApp({ ...h.services, config: { ...h.services.config, http: { ...h.services.config.http, answersHost: HOOKS } } });
  });

  test("the console's host answers no webhook or resume path; the answers' host nothing else", async () => {
    const { path } = await a.createHook([returnStep('answer', { ok: true })]);
    const onHooks = await request(split).post(path).set('Host', HOOKS).send({});
    expect(onHooks.status).toBe(200);
    expect(onHooks.body).toEqual({ ok: true });

    for (const refused of [
      request(split).post(path).set('Host', CONSOLE).send({}),
      request(split)
        .post(`/resume/${'A'.repeat(43)}`)
        .set('Host', CONSOLE)
        .send({}),
      request(split).get('/session').set('Host', HOOKS),
      request(split).get('/console/').set('Host', HOOKS),
      request(split).get('/organization').set('Host', HOOKS).set('Authorization', `Bearer ${org.ownerToken}`),
      request(split).get('/docs/').set('Host', HOOKS),
    ]) {
      const res = await refused;
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('route_not_found');
    }
    // What stays where it was: the API on the console's host, a link (unknown here) on the answers' host, health on both.
    expect((await request(split).get('/organization').set('Host', CONSOLE).set('Authorization', `Bearer ${org.ownerToken}`)).status).toBe(200);
    const link = await request(split)
      .post(`/resume/${'A'.repeat(43)}`)
      .set('Host', `${HOOKS}:443`)
      .send({});
    expect(link.body.error).toMatchObject({ code: 'not_found', message: 'Not found' });
    expect((await request(split).get('/healthz').set('Host', HOOKS)).status).toBe(200);
  });
});
