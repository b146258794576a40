import request from 'supertest';
import Stripe from 'stripe';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import twilio from 'twilio';
import { signDelivery } from '../src/webhooks/signatures/sign-delivery';
import { as, expectError, type Harness } from './harness';
import { startHttpStub, sendJson, type HttpStub } from './stubs/http-stub';
import { returnStep, startWorkflowHarness, type WorkflowApi } from './workflow-api';
import { type TestOrg } from './factories';

/**
 * Signature verification on the webhook host, end to end: each scheme's
 * deliveries are signed with the vendor's own library where one exists
 * (Stripe's test header helper, Octokit's signer, Twilio's request
 * signature), sent as exact bytes, and checked before anything parses them.
 */

let stub: HttpStub;
let h: Harness;
let org: TestOrg;
let a: WorkflowApi;

beforeAll(async () => {
  stub = await startHttpStub({ fallback: (_req, res) => sendJson(res, 200, { ok: true }) });
  ({ h, org, a } = await startWorkflowHarness(stub, {
    // A small per-trigger bucket: refusals must count against it.
    configure: (config) => (config.webhooks.rateLimits = { perTrigger: { rate: 0.0001, burst: 40 }, perOrganization: { rate: 1000, burst: 1000 } }),
  }));
});

afterAll(async () => {
  await h?.close();
  await stub?.close();
});

const echo = () => [returnStep('answer', { got: '{{ initial }}' }, 200)];

/** A trigger verifying `verification`, whose return step answers with the parsed body. */
async function signedHook(verification: Record<string, unknown>, signingSecret?: string, extra: Record<string, unknown> = {}) {
  const workflow = await a.createWorkflow(echo());
  const trigger = await a.createTrigger(workflow.id, {
    verification,
    ...(signingSecret ? { signingSecret } : {}),
    deduplication: { enabled: false },
    ...extra,
  });
  return { workflow, trigger: trigger as typeof trigger & { signingSecret?: string; verification: unknown } };
}

function send(path: string, body: string | Buffer, headers: Record<string, string>, contentType = 'application/json') {
  const req = request(h.app).post(path).set('Content-Type', contentType);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  // A string goes as it is; superagent would serialize a Buffer under a JSON content type.
  return req.send(Buffer.isBuffer(body) ? body.toString('utf8') : body);
}

async function executionsOf(triggerId: string): Promise<number> {
  return (await a.listExecutions({ triggerId })).total;
}

// Bytes a parser would change: spacing, an escaped character, key order. A verifier that re-serialized would fail these.
const awkwardJson = '{ "id":"evt_1",  "type" : "charge.succeeded", "name":"Caf\\u00e9 \u00e9", "n": 1.50 }\n';

describe('each scheme verifies the exact bytes, signed by the vendor', () => {
  test('stripe: Stripe-Signature from stripe.webhooks.generateTestHeaderString; a second v1 (a rolled secret) verifies too', async () => {
    const secret = 'whsec_' + 'a'.repeat(32);
    const { trigger } = await signedHook({ scheme: 'stripe' }, secret);
    expect(trigger.verification).toEqual({ scheme: 'stripe', toleranceSeconds: 300 });
    expect(JSON.stringify(trigger)).not.toContain(secret);
    const stripe = new Stripe('sk_test_unused');
    const header = stripe.webhooks.generateTestHeaderString({ payload: awkwardJson, secret });

    const res = await send(trigger.path, awkwardJson, { 'Stripe-Signature': header });
    expect(res.status).toBe(200);
    expect(res.body.got).toEqual(JSON.parse(awkwardJson));

    const other = stripe.webhooks.generateTestHeaderString({ payload: awkwardJson, secret: 'whsec_other_secret' });
    const rolled = `${header},v1=${other.split('v1=')[1]}`;
    expect((await send(trigger.path, awkwardJson, { 'Stripe-Signature': rolled })).status).toBe(200);
  });

  test('stripe: a delivery signed 6 minutes ago is 401 timestamp_out_of_tolerance; with a wrong secret it is 401 invalid_signature', async () => {
    const secret = 'whsec_' + 'b'.repeat(32);
    const { trigger } = await signedHook({ scheme: 'stripe' }, secret);
    const stripe = new Stripe('sk_test_unused');
    const stale = stripe.webhooks.generateTestHeaderString({ payload: awkwardJson, secret, timestamp: Math.floor(Date.now() / 1000) - 360 });
    expectError(await send(trigger.path, awkwardJson, { 'Stripe-Signature': stale }), 401, 'timestamp_out_of_tolerance');
    const forged = stripe.webhooks.generateTestHeaderString({ payload: awkwardJson, secret: 'whsec_guess' });
    const refused = await send(trigger.path, awkwardJson, { 'Stripe-Signature': forged });
    expectError(refused, 401, 'invalid_signature');
    // A stale forgery is a forgery: the tolerance is judged only for a genuine signature.
    const staleForgery = stripe.webhooks.generateTestHeaderString({ payload: awkwardJson, secret: 'whsec_guess', timestamp: 1_000_000 });
    expectError(await send(trigger.path, awkwardJson, { 'Stripe-Signature': staleForgery }), 401, 'invalid_signature');
    expect(await executionsOf(trigger.id)).toBe(0);
  });

  test('github: X-Hub-Signature-256 from @octokit/webhooks-methods; one changed byte is refused', async () => {
    const secret = 'gh-secret-for-tests';
    const { trigger } = await signedHook({ scheme: 'github' }, secret);
    const signature = await signGitHub({ secret, algorithm: 'sha256' }, awkwardJson);
    expect((await send(trigger.path, awkwardJson, { 'X-Hub-Signature-256': signature })).status).toBe(200);
    expectError(await send(trigger.path, awkwardJson.replace('1.50', '1.51'), { 'X-Hub-Signature-256': signature }), 401, 'invalid_signature');
    expectError(await send(trigger.path, awkwardJson, {}), 401, 'invalid_signature');
  });

  test('slack: signed timestamp and body; the signed url_verification challenge is echoed and starts no run', async () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const { trigger } = await signedHook({ scheme: 'slack' }, secret);
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'message', text: 'hi' } });
    const headers = signDelivery({ scheme: 'slack', toleranceSeconds: 300 }, secret, Buffer.from(event));
    expect((await send(trigger.path, event, headers)).status).toBe(200);

    const challenge = JSON.stringify({ token: 'x', challenge: 'c-123', type: 'url_verification' });
    const res = await send(trigger.path, challenge, signDelivery({ scheme: 'slack', toleranceSeconds: 300 }, secret, Buffer.from(challenge)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: 'c-123' });
    expect(await executionsOf(trigger.id)).toBe(1);
    // Unsigned, the same challenge is refused like anything else.
    expectError(await send(trigger.path, challenge, {}), 401, 'invalid_signature');
  });

  test('shopify: base64 X-Shopify-Hmac-Sha256', async () => {
    const secret = 'shpss_' + 'c'.repeat(32);
    const { trigger } = await signedHook({ scheme: 'shopify' }, secret);
    const headers = signDelivery({ scheme: 'shopify' }, secret, Buffer.from(awkwardJson));
    expect(headers['X-Shopify-Hmac-Sha256']).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect((await send(trigger.path, awkwardJson, headers)).status).toBe(200);
    expectError(await send(trigger.path, awkwardJson, { 'X-Shopify-Hmac-Sha256': 'not base64 at all!' }), 401, 'invalid_signature');
  });

  test("twilio: X-Twilio-Signature from twilio's own helper over the public URL and the form fields; the form becomes initial", async () => {
    const authToken = 'd'.repeat(32);
    const { trigger } = await signedHook({ scheme: 'twilio' }, authToken);
    const url = `${trigger.url}?source=sms`;
    const params = { From: '+15551234567', Body: 'Hello ünïcode & more', MessageSid: 'SM1' };
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    const form = new URLSearchParams(params).toString();

    const res = await send(`${trigger.path}?source=sms`, form, { 'X-Twilio-Signature': signature }, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    expect(res.body.got).toEqual(params);
    // The same signature does not cover another URL (the query is signed).
    const moved = await send(`${trigger.path}?source=voice`, form, { 'X-Twilio-Signature': signature }, 'application/x-www-form-urlencoded');
    expectError(moved, 401, 'invalid_signature');
  });

  test('hmac: a generated secret is shown once; sha512, base64, a prefix and a signed timestamp', async () => {
    const verification = {
      scheme: 'hmac',
      header: 'X-Acme-Signature',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'sha512=',
      timestampHeader: 'X-Acme-Timestamp',
      payload: 'v1:{timestamp}:{body}',
    };
    const { trigger } = await signedHook(verification);
    const secret = trigger.signingSecret!;
    expect(secret).toMatch(/^whsig_/);
    const read = await as(h.app, org.ownerToken).get(`/webhook-triggers/${trigger.id}`);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body.signingSecretSetAt).toEqual(expect.any(String));

    const body = Buffer.from('{"order":42}');
    const parsed = { ...verification, toleranceSeconds: 300 } as Parameters<typeof signDelivery>[0];
    const headers = signDelivery(parsed, secret, body);
    expect(headers['X-Acme-Signature']).toMatch(/^sha512=/);
    expect((await send(trigger.path, body, headers)).status).toBe(200);
    const old = signDelivery(parsed, secret, body, { timestampSeconds: Math.floor(Date.now() / 1000) - 3600 });
    expectError(await send(trigger.path, body, old), 401, 'timestamp_out_of_tolerance');
  });

  test('bearer authentication and a signature together: both must hold', async () => {
    const secret = 'gh-secret-both-on';
    const { trigger } = await signedHook({ scheme: 'github' }, secret, { authentication: true });
    const bearer = (trigger as { secret?: string }).secret!;
    const signature = await signGitHub({ secret, algorithm: 'sha256' }, '{}');
    expect((await send(trigger.path, '{}', { 'X-Hub-Signature-256': signature, Authorization: `Bearer ${bearer}` })).status).toBe(200);
    expectError(await send(trigger.path, '{}', { 'X-Hub-Signature-256': signature }), 401);
    expectError(await send(trigger.path, '{}', { Authorization: `Bearer ${bearer}` }), 401, 'invalid_signature');
  });
});

describe('refusals', () => {
  test('say nothing of which part was wrong, write no execution, and count against the trigger rate limit', async () => {
    const secret = 'gh-secret-rate-limit';
    const { trigger } = await signedHook({ scheme: 'github' }, secret);
    const good = await signGitHub({ secret, algorithm: 'sha256' }, '{"a":1}');
    const wrong: Array<Record<string, string>> = [
      {}, // missing
      { 'X-Hub-Signature-256': 'sha256=' + '0'.repeat(64) }, // right shape, wrong value
      { 'X-Hub-Signature-256': good.replace('sha256=', 'sha1=') }, // wrong prefix
      { 'X-Hub-Signature-256': good.slice(0, -2) }, // truncated
    ];
    const messages = new Set<string>();
    for (const headers of wrong) {
      const res = await send(trigger.path, '{"a":1}', headers);
      expectError(res, 401, 'invalid_signature');
      messages.add(res.body.error.message);
    }
    expect(messages.size).toBe(1);
    expect(await executionsOf(trigger.id)).toBe(0);

    // The bucket holds 40: the 4 refusals above and 36 more bad deliveries empty it, and then even a good one waits.
    for (let i = 0; i < 36; i++) expect((await send(trigger.path, '{"a":1}', {})).status).toBe(401);
    const limited = await send(trigger.path, '{"a":1}', { 'X-Hub-Signature-256': good });
    expectError(limited, 429);
    expect(await executionsOf(trigger.id)).toBe(0);
  });

  test('an unsigned call learns no environment names: ?env= is looked up only once the signature holds', async () => {
    const secret = 'gh-secret-environments';
    const { trigger } = await signedHook({ scheme: 'github' }, secret);
    expectError(await send(`${trigger.path}?env=no-such-env`, '{}', {}), 401, 'invalid_signature');
    const signed = await signGitHub({ secret, algorithm: 'sha256' }, '{}');
    expectError(await send(`${trigger.path}?env=no-such-env`, '{}', { 'X-Hub-Signature-256': signed }), 400, 'unknown_environment');
  });

  test('a body of a content type webhooks do not take is refused after the signature is checked, not before', async () => {
    const secret = 'gh-secret-content-type';
    const { trigger } = await signedHook({ scheme: 'github' }, secret);
    const xml = '<a>1</a>';
    expectError(await send(trigger.path, xml, {}, 'application/xml'), 401, 'invalid_signature');
    const signed = await signGitHub({ secret, algorithm: 'sha256' }, xml);
    expectError(await send(trigger.path, xml, { 'X-Hub-Signature-256': signed }, 'application/xml'), 415);
  });
});

describe('rotation', () => {
  test('with an overlap the old and the new secret both verify; rotating with overlap 0 stops the old one at once', async () => {
    const { trigger } = await signedHook({ scheme: 'github' }, 'first-secret-123');
    const signed = (secret: string) => signGitHub({ secret, algorithm: 'sha256' }, '{}');
    const rotate = (body: Record<string, unknown>) => as(h.app, org.ownerToken).post(`/webhook-triggers/${trigger.id}/signing-secret`).send(body);

    const rotated = await rotate({ signingSecret: 'second-secret-456', overlapSeconds: 3600 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.signingSecret).toBeUndefined();
    expect(Date.parse(rotated.body.signingOverlapUntil)).toBeGreaterThan(Date.now() + 3500_000);
    expect((await send(trigger.path, '{}', { 'X-Hub-Signature-256': await signed('first-secret-123') })).status).toBe(200);
    expect((await send(trigger.path, '{}', { 'X-Hub-Signature-256': await signed('second-secret-456') })).status).toBe(200);

    expect((await rotate({ signingSecret: 'third-secret-789', overlapSeconds: 0 })).status).toBe(201);
    expectError(await send(trigger.path, '{}', { 'X-Hub-Signature-256': await signed('second-secret-456') }), 401, 'invalid_signature');
    expectError(await send(trigger.path, '{}', { 'X-Hub-Signature-256': await signed('first-secret-123') }), 401, 'invalid_signature');
    expect((await send(trigger.path, '{}', { 'X-Hub-Signature-256': await signed('third-secret-789') })).status).toBe(200);
  });

  test('a vendor scheme needs its secret; hmac rotation generates one; without verification there is nothing to rotate', async () => {
    const workflow = await a.createWorkflow(echo());
    const owner = as(h.app, org.ownerToken);
    const missing = await owner.post(`/workflows/${workflow.id}/triggers`).send({ name: 'needs-secret', verification: { scheme: 'stripe' } });
    expectError(missing, 400);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ path: 'signingSecret' })]);
    const badScheme = await owner
      .post(`/workflows/${workflow.id}/triggers`)
      .send({ name: 'bad-scheme', verification: { scheme: 'paypal' }, signingSecret: 'x'.repeat(20) });
    expectError(badScheme, 400);
    const badLayout = await owner
      .post(`/workflows/${workflow.id}/triggers`)
      .send({ name: 'bad-layout', verification: { scheme: 'hmac', header: 'X-Sig', payload: 'no body here' } });
    expectError(badLayout, 400);

    const { trigger } = await signedHook({ scheme: 'hmac', header: 'X-Sig' });
    const first = trigger.signingSecret!;
    const rotated = await owner.post(`/webhook-triggers/${trigger.id}/signing-secret`).send({});
    expect(rotated.status).toBe(201);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body.signingSecret).toMatch(/^whsig_/);
    expect(rotated.body.signingSecret).not.toBe(first);

    // The same scheme with other settings keeps its secret; another scheme is another sender and needs its own.
    const tuned = await owner.patch(`/webhook-triggers/${trigger.id}`).send({ verification: { scheme: 'hmac', header: 'X-Other-Sig' } });
    expect(tuned.status).toBe(200);
    expect(tuned.body.signingSecret).toBeUndefined();
    expect(tuned.body.signingSecretSetAt).toBe(rotated.body.signingSecretSetAt);
    const switched = await owner.patch(`/webhook-triggers/${trigger.id}`).send({ verification: { scheme: 'stripe' } });
    expectError(switched, 400);
    expect(switched.body.error.details).toEqual([expect.objectContaining({ path: 'signingSecret' })]);

    const plain = await a.createTrigger(workflow.id, {});
    expectError(await owner.post(`/webhook-triggers/${plain.id}/signing-secret`).send({}), 400, 'verification_off');
  });

  test('the stored secrets are ciphertext bound to the trigger; PATCH verification: null removes them', async () => {
    const secret = 'stored-secret-visible?';
    const { trigger } = await signedHook({ scheme: 'github' }, secret);
    const [row] = await h.services.db.query(`SELECT signing_secrets FROM webhook_triggers WHERE id = $1`, [trigger.id]);
    expect(row.signing_secrets).toEqual(expect.any(String));
    expect(row.signing_secrets).not.toContain(secret);
    expect(row.signing_secrets).not.toContain(Buffer.from(secret).toString('base64'));

    const off = await as(h.app, org.ownerToken).patch(`/webhook-triggers/${trigger.id}`).send({ verification: null });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ verification: null, signingSecretSetAt: null });
    const [after] = await h.services.db.query(`SELECT signing_secrets FROM webhook_triggers WHERE id = $1`, [trigger.id]);
    expect(after.signing_secrets).toBeNull();
    expect((await send(trigger.path, '{}', {})).status).toBe(200);
  });
});
