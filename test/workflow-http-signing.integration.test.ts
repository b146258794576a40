import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import Stripe from 'stripe';
import { as, createConnection, expectError, quietTemporalRuntime, type Harness } from './harness';
import { sendJson, startHttpStub, type HttpStub, type StubRequest } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { type TestOrg, uniqueName } from './factories';
import { historyText, httpStep, startWorkflowHarness, stepOf, type Execution, type WorkflowApi } from './workflow-api';

/**
 * `sign` on `core.http` and on an agent's HTTP tool, through the real stack:
 * a receiver verifies every request as the webhook receivers we ask senders
 * to satisfy would (Stripe's own library for the stripe scheme, the HMAC
 * recomputed per the layout for hmac), and records what it saw.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const HMAC_SECRET = 'hmac-signing-secret-5d2c9e41a7';
const STRIPE_SECRET = 'whsec_stripe_signing_secret_7b31f0';
const TOLERANCE_SECONDS = 300;
const stripe = new Stripe('sk_test_x');

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let hmacSigner: string;
let stripeSigner: string;
let apiKey: string;
let llmConnection: string;

/** What the receiver made of one request. */
interface Verified {
  path: string;
  valid: boolean;
  timestamp: number;
  idempotencyKey: string;
  signature: string;
}
let verified: Verified[] = [];

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The hmac connection's layout, as its receiver would check it: X-Signature = sha256=<hex of "<timestamp>.<raw body>">, in tolerance. */
function verifyHmac(req: StubRequest): Omit<Verified, 'path' | 'idempotencyKey'> {
  const timestamp = Number(req.headers['x-signature-timestamp']);
  const signature = String(req.headers['x-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', HMAC_SECRET).update(`${timestamp}.`).update(req.raw).digest('hex')}`;
  const matches = signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
  return { valid: matches && Math.abs(nowSeconds() - timestamp) <= TOLERANCE_SECONDS, timestamp, signature };
}

function verifyStripe(req: StubRequest): Omit<Verified, 'path' | 'idempotencyKey'> {
  const signature = String(req.headers['stripe-signature'] ?? '');
  const timestamp = Number(/t=(\d+)/.exec(signature)?.[1]);
  try {
    stripe.webhooks.constructEvent(req.raw, signature, STRIPE_SECRET, TOLERANCE_SECONDS);
    return { valid: true, timestamp, signature };
  } catch {
    return { valid: false, timestamp, signature };
  }
}

/** A receiver at `path` that refuses (401) what does not verify, and answers `statuses` in turn (the last repeats) to what does. */
function receiver(path: string, verify: (req: StubRequest) => Omit<Verified, 'path' | 'idempotencyKey'>, ...statuses: number[]) {
  let calls = 0;
  stub.on(path, (req: StubRequest, res: ServerResponse) => {
    const result = { path, ...verify(req), idempotencyKey: String(req.headers['idempotency-key']) };
    verified.push(result);
    if (!result.valid) return sendJson(res, 401, { error: 'bad signature' });
    const status = statuses.length ? statuses[Math.min(calls++, statuses.length - 1)] : 200;
    sendJson(res, status, { received: true });
  });
}

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stub, llm] = await Promise.all([startHttpStub(), startLlmProviderStub()]);
  ({ h, org, a } = await startWorkflowHarness(stub, { worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url } } }));
  [hmacSigner, stripeSigner, apiKey, llmConnection] = ['signer_hmac', 'signer_stripe', 'crm', 'agent_llm'].map(uniqueName);
  const hmac = await createConnection(h.app, org, {
    name: hmacSigner,
    type: 'webhook-signing',
    config: { scheme: 'hmac', secret: HMAC_SECRET, prefix: 'sha256=' },
  });
  expect(hmac.variant).toBe('hmac');
  await createConnection(h.app, org, { name: stripeSigner, type: 'webhook-signing', config: { scheme: 'stripe', secret: STRIPE_SECRET } });
  await createConnection(h.app, org, { name: apiKey, type: 'api-key', config: { apiKey: 'crm-api-key-0123456789' } });
  await createConnection(h.app, org, { name: llmConnection, type: 'api-key', config: { apiKey: 'sk-signing-test-0123456789' } });
});
afterAll(async () => {
  await llm?.close();
  await h?.close();
  await stub?.close();
});
beforeEach(() => {
  verified = [];
});

/** GET /executions/:id and the run's Temporal history hold neither secret nor any signature the receiver saw. */
async function expectNothingSecretRecorded(execution: Execution) {
  const record = JSON.stringify(await a.readExecution(execution.id));
  const history = await historyText(h.services.temporal.client, execution.id);
  const hidden = [HMAC_SECRET, STRIPE_SECRET, ...verified.flatMap((v) => [v.signature, v.signature.replace(/^sha256=/, '').replace(/^t=\d+,v1=/, '')])];
  for (const value of hidden) {
    expect(record).not.toContain(value);
    expect(history).not.toContain(value);
  }
}

test('core.http signs with hmac and stripe; both receivers verify; records show the headers masked', async () => {
  receiver('/hooks/hmac', verifyHmac);
  receiver('/hooks/stripe', verifyStripe);
  const { id } = await a.createWorkflow([
    httpStep('toHmac', {
      method: 'POST',
      url: `${stub.url}/hooks/hmac`,
      body: { order: '{{ initial.order }}', note: 'Crème ☕' },
      sign: { connection: hmacSigner },
    }),
    httpStep('toStripe', {
      method: 'POST',
      url: `${stub.url}/hooks/stripe`,
      body: { id: 'evt_{{ initial.order }}', object: 'event', type: 'order.paid' },
      sign: { connection: stripeSigner },
    }),
    httpStep('emptyBody', { method: 'GET', url: `${stub.url}/hooks/hmac`, sign: { connection: hmacSigner } }),
  ]);
  const execution = await a.runAndWait(id, { order: 'o-17' });
  expect(execution.status).toBe('completed');
  expect(verified.map((v) => [v.path, v.valid])).toEqual([
    ['/hooks/hmac', true],
    ['/hooks/stripe', true],
    ['/hooks/hmac', true],
  ]);
  expect(stub.calls('/hooks/hmac')[1].raw.length).toBe(0);

  const recorded = await a.readExecution(execution.id);
  expect(stepOf(recorded, 'toHmac').input.headers).toMatchObject({ 'X-Signature': '[secret]', 'X-Signature-Timestamp': String(verified[0].timestamp) });
  expect(stepOf(recorded, 'toStripe').input.headers).toMatchObject({ 'Stripe-Signature': '[secret]' });
  await expectNothingSecretRecorded(execution);
});

test("a retry after a 500 is signed afresh (a later timestamp, both in tolerance) under the first attempt's Idempotency-Key", async () => {
  receiver('/hooks/flaky', verifyStripe, 500, 200);
  const { id } = await a.createWorkflow([
    httpStep('notify', {
      method: 'POST',
      url: `${stub.url}/hooks/flaky`,
      body: { id: 'evt_retry', object: 'event' },
      sign: { connection: stripeSigner },
      retry: { limit: 1 },
    }),
  ]);
  const execution = await a.runAndWait(id);
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'notify')).toMatchObject({ status: 'completed', attempt: 2 });
  const [first, second] = verified;
  expect(verified).toHaveLength(2);
  expect([first.valid, second.valid]).toEqual([true, true]);
  // Temporal waits at least a second before the retry, so its unix-seconds timestamp is strictly later.
  expect(second.timestamp).toBeGreaterThan(first.timestamp);
  expect(second.signature).not.toBe(first.signature);
  expect(second.idempotencyKey).toBe(first.idempotencyKey);
  expect(first.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  await expectNothingSecretRecorded(execution);
});

test('sign and connection on one step: the receiver gets both the credentials and a valid signature', async () => {
  receiver('/hooks/both', verifyHmac);
  const { id } = await a.createWorkflow([
    httpStep('both', {
      method: 'PUT',
      url: `${stub.url}/hooks/both`,
      bodyType: 'text',
      body: 'order=o-9',
      connection: apiKey,
      sign: { connection: hmacSigner },
    }),
  ]);
  const execution = await a.runAndWait(id);
  expect(execution.status).toBe('completed');
  expect(verified.map((v) => v.valid)).toEqual([true]);
  expect(stub.calls('/hooks/both')[0].headers.authorization).toBe('Bearer crm-api-key-0123456789');
});

test("an agent's http tool signs its requests too", async () => {
  receiver('/hooks/agent', verifyHmac);
  llm.script([{ toolCalls: [{ name: 'notify_order', args: { order: 'o-42' } }] }, { text: 'Notified.' }]);
  const tool = {
    type: 'http',
    name: 'notify_order',
    description: 'Tells the shop an order changed',
    parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    request: { method: 'POST', url: `${stub.url}/hooks/agent`, body: { order: '{{ args.order }}' }, sign: { connection: hmacSigner } },
  };
  const { id } = await a.createWorkflow([
    {
      stepId: 'helper',
      stepType: 'ai.agent',
      input: { provider: { provider: 'openai', connection: llmConnection, model: 'gpt-4o-mini' }, user_prompt: 'Notify order o-42', tools: [tool] },
    },
  ]);
  const execution = await a.runAndWait(id);
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'helper.tool-1')).toMatchObject({ status: 'completed', output: { status: 200 } });
  expect(verified.map((v) => [v.path, v.valid])).toEqual([['/hooks/agent', true]]);
  expect(JSON.parse(stub.calls('/hooks/agent')[0].body)).toEqual({ order: 'o-42' });
  await expectNothingSecretRecorded(execution);
});

test('a connection that cannot sign fails the step, naming the connection and its type; nothing is sent', async () => {
  const { id } = await a.createWorkflow([httpStep('notify', { method: 'POST', url: `${stub.url}/hooks/never`, body: { a: 1 }, sign: { connection: apiKey } })]);
  const execution = await a.runAndWait(id);
  expect(execution.status).toBe('failed');
  expect(stepOf(execution, 'notify')).toMatchObject({
    status: 'failed',
    attempt: 1,
    error: `sign.connection "${apiKey}" has type "api-key", which cannot sign requests; use a webhook-signing connection`,
  });
  expect(stub.calls('/hooks/never')).toHaveLength(0);
});

test('the definition and the connection are checked when saved', async () => {
  const bad = await as(h.app, org.ownerToken)
    .post('/workflows')
    .send({ name: uniqueName('wf'), steps: [httpStep('notify', { url: `${stub.url}/x`, sign: { name: hmacSigner } })] });
  expectError(bad, 400);
  expect(JSON.stringify(bad.body.error.details)).toContain('steps.0.input.sign');

  const short = await as(h.app, org.ownerToken)
    .post('/connections')
    .send({ name: uniqueName('short'), type: 'webhook-signing', config: { scheme: 'hmac', secret: 'too-short' } });
  expectError(short, 400, 'config_mismatch');
  expect(short.body.error.details).toEqual([{ path: 'config.secret', message: 'must NOT have fewer than 16 characters' }]);
  expect(JSON.stringify(short.body)).not.toContain('too-short');
});
