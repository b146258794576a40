import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { ConnectionTypeCatalog } from '../../src/connections/types/catalog';
import type { ExecutionsRepository, StepRow } from '../../src/executions/executions.repository';
import { StepOutputSeals } from '../../src/executions/step-output-seals';
import { createOutboundHttp, type OutboundHttp } from '../../src/outbound/outbound-http';
import { createLiquid } from '../../src/templates/template-engine';
import { TemplateRenderer } from '../../src/templates/template-renderer';
import { STEP_INLINE_LIMIT, type StepRequest } from '../../workflows/run.types';
import { createHttpStep } from './http-step';
import { idempotencyKey } from './idempotency-key';
import type { SecretSources } from './step-scope';
import { failureOf } from './step-failure.fixture';

/**
 * `core.http` with `sign`: what the receiver gets verifies over the bytes it
 * received, and the step's records never show the secret or a signature.
 * The mapping and masking alone: request-signing.test.ts.
 */

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

const SECRET = 'whsec_step_signing_secret_0001';
const API_KEY = 'api-key-signing-0002';
const stripe = new Stripe('sk_test_x');
const catalog = new ConnectionTypeCatalog();

const CONNECTION_CONFIGS: Record<string, { type: string; config: Record<string, unknown> }> = {
  hmacSigner: { type: 'webhook-signing', config: { scheme: 'hmac', secret: SECRET, prefix: 'sha256=' } },
  stripeSigner: { type: 'webhook-signing', config: { scheme: 'stripe', secret: SECRET } },
  crm: { type: 'api-key', config: { apiKey: API_KEY } },
};

let server: Server;
let port: number;
let received: Received[] = [];
let outbound: OutboundHttp;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      // Echoes the headers, signature included: the step's output must not show it either.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ headers: req.headers }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  outbound = createOutboundHttp({ allowList: [`127.0.0.1:${port}`], maxResponseBytes: 1e6, maxRedirects: 3 });
});

afterAll(async () => {
  await outbound.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

afterEach(() => jest.restoreAllMocks());

function fakeDeps() {
  const rows: StepRow[] = [];
  const executions = {
    async recordStep(_organizationId: string, _executionId: string, row: StepRow) {
      rows.push(structuredClone(row));
    },
  } as unknown as ExecutionsRepository;
  const secrets: SecretSources = {
    async environmentValues() {
      return { SIGNER: { value: '{{ $connections.stripeSigner }}', secret: false } };
    },
    async connectionByName(_organizationId, name) {
      const found = CONNECTION_CONFIGS[name];
      if (!found) return undefined;
      const checked = catalog.check(found.type, found.config);
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      return { id: name, name, type: found.type, config: checked.config, secretValues: catalog.secretValues(found.type, checked.config) };
    },
  };
  const sealed: unknown[] = [];
  const seals = new StepOutputSeals({
    encryptJson: async (_organizationId, _record, value) => `sealed-${sealed.push(value) - 1}`,
    decryptJson: async () => {
      throw new Error('nothing is opened in these tests');
    },
  });
  const deps = { executions, renderer: new TemplateRenderer(createLiquid()), secrets, seals };
  return { rows, sealed, httpStep: createHttpStep(deps, outbound).httpStep };
}

function request(input: Record<string, unknown>): StepRequest {
  return {
    run: { executionId: 'e', organizationId: 'o', environmentId: 'env' },
    step: { stepId: 'notify', stepType: 'core.http', input: { method: 'POST', url: `http://127.0.0.1:${port}/hook`, ...input } },
    seq: 1,
    context: { initial: { order: 'o-17', total: 19.99 }, steps: {}, refs: {} },
    offloadAboveBytes: STEP_INLINE_LIMIT,
  };
}

const hmacHex = (message: Buffer) => createHmac('sha256', SECRET).update(message).digest('hex');

/** The receiver's check for the hmac connection above: sha256=<hex of "<timestamp>.<raw body>">. */
function verifiesHmac({ headers, raw }: Received): boolean {
  const timestamp = String(headers['x-signature-timestamp']);
  return headers['x-signature'] === `sha256=${hmacHex(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))}`;
}

describe('core.http with sign', () => {
  test('hmac: the signature covers the JSON text sent; the record masks it and never holds the secret', async () => {
    const { httpStep, rows, sealed } = fakeDeps();
    const result = await httpStep(
      request({ body: { order: '{{ initial.order }}', total: '{{ initial.total }}', note: 'Crème ☕' }, sign: { connection: 'hmacSigner' } }),
    );
    expect(received).toHaveLength(1);
    expect(received[0].raw.toString()).toBe(JSON.stringify({ order: 'o-17', total: '19.99', note: 'Crème ☕' }));
    expect(verifiesHmac(received[0])).toBe(true);
    expect(Math.abs(Number(received[0].headers['x-signature-timestamp']) - Date.now() / 1000)).toBeLessThan(5);

    const signature = String(received[0].headers['x-signature']);
    expect((rows[0].input as { headers: Record<string, string> }).headers).toEqual({
      'Idempotency-Key': idempotencyKey('e', 'notify'),
      'content-type': 'application/json',
      'X-Signature': '[secret]',
      'X-Signature-Timestamp': received[0].headers['x-signature-timestamp'],
    });
    const record = JSON.stringify(rows);
    for (const hidden of [SECRET, signature, signature.slice('sha256='.length)]) expect(record).not.toContain(hidden);
    // The echoed signature made the output secret-bearing: later steps get a reference to its sealed copy.
    expect(result).toEqual({ kept: 'record', bytes: expect.any(Number) });
    expect(sealed).toHaveLength(1);
  });

  test('text and no body: the text as sent, or the empty string, is what is signed', async () => {
    const { httpStep } = fakeDeps();
    await httpStep(request({ bodyType: 'text', body: 'order={{ initial.order }}', sign: { connection: 'hmacSigner' } }));
    await httpStep(request({ method: 'GET', sign: { connection: 'hmacSigner' } }));
    expect(received.map((r) => r.raw.toString())).toEqual(['order=o-17', '']);
    expect(received.map(verifiesHmac)).toEqual([true, true]);
  });

  test("stripe: Stripe's constructEvent accepts what arrives; the connection may be named through $env", async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ body: { id: 'evt_{{ initial.order }}', object: 'event' }, sign: { connection: '{{ $env.SIGNER }}' } }));
    const header = String(received[0].headers['stripe-signature']);
    expect(stripe.webhooks.constructEvent(received[0].raw, header, SECRET)).toEqual({ id: 'evt_o-17', object: 'event' });
    expect((rows[0].input as { headers: Record<string, string> }).headers['Stripe-Signature']).toBe('[secret]');
    expect(JSON.stringify(rows)).not.toContain(header.split('v1=')[1]);
  });

  test('each attempt signs afresh: a later attempt carries a later timestamp and the same Idempotency-Key', async () => {
    const { httpStep } = fakeDeps();
    const input = { body: { order: '{{ initial.order }}' }, sign: { connection: 'hmacSigner' }, retry: { limit: 1 } };
    await httpStep(request(input));
    // The retry comes two minutes later (the clock moved, everything else is the same request).
    const now = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => now() + 120_000);
    await httpStep(request(input));
    const [first, second] = received;
    expect(Number(second.headers['x-signature-timestamp']) - Number(first.headers['x-signature-timestamp'])).toBeGreaterThanOrEqual(119);
    expect(second.headers['x-signature']).not.toBe(first.headers['x-signature']);
    expect([verifiesHmac(first), verifiesHmac(second)]).toEqual([true, true]);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(first.headers['idempotency-key']).toBe(idempotencyKey('e', 'notify'));
  });

  test('sign and connection together: both apply; a signature header the step set is replaced', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ headers: { 'x-signature': 'forged' }, body: { a: 1 }, connection: 'crm', sign: { connection: 'hmacSigner' } }));
    expect(received[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(verifiesHmac(received[0])).toBe(true);
    expect(Object.keys((rows[0].input as { headers: object }).headers)).not.toContain('x-signature');
    expect(JSON.stringify(rows)).not.toContain(API_KEY);
  });

  test('a connection that cannot sign fails the step as InvalidStepInput, naming it and its type; nothing is sent', async () => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(httpStep(request({ body: { a: 1 }, sign: { connection: 'crm' }, retry: { limit: 2 } })));
    expect(failure.type).toBe('InvalidStepInput');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('sign.connection "crm" has type "api-key", which cannot sign requests; use a webhook-signing connection');
    expect(received).toHaveLength(0);
    expect(rows[0]).toMatchObject({ status: 'failed', error: failure.message });
  });

  test('a signing connection given as connection says where it goes', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ connection: 'hmacSigner' })));
    expect(failure.type).toBe('InvalidStepInput');
    expect(failure.message).toMatch(/has type "webhook-signing".*goes in sign\.connection/);
    expect(failure.message).not.toContain(SECRET);
  });
});
