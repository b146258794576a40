import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { ConnectionTypeCatalog } from '../../src/connections/types/catalog';
import { createLiquid } from '../../src/templates/template-engine';
import { TemplateRenderer } from '../../src/templates/template-renderer';
import { signingConfigOf, signRequest } from './request-signing';
import { StepError } from './step-errors';
import { MASK, StepScope, type ResolvedConnection } from './step-scope';

const catalog = new ConnectionTypeCatalog();
const stripe = new Stripe('sk_test_x');
const SECRET = 'whsec_unit_signing_secret_0001';
const BODY = '{"order":"o-17","note":"Crème brûlée"}';

/** A connection as a run resolves it: the config as the catalog stores it (defaults filled). */
function signer(config: Record<string, unknown>, type = 'webhook-signing'): ResolvedConnection {
  const checked = catalog.check(type, config);
  if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
  return { id: 'c1', name: 'signer', type, config: checked.config, secretValues: catalog.secretValues(type, checked.config) };
}

/** A scope that knows the connection's secrets, as loading it by name would. */
function scopeFor(connection: ResolvedConnection): StepScope {
  const sources = { environmentValues: async () => ({}), connectionByName: async () => connection };
  const scope = new StepScope(new TemplateRenderer(createLiquid()), sources, { executionId: 'e', organizationId: 'o' }, { initial: {}, steps: {} });
  for (const value of connection.secretValues) scope.addSecret(value);
  return scope;
}

const hmacOf = (algorithm: string, message: string | Buffer, encoding: 'hex' | 'base64' = 'hex') =>
  createHmac(algorithm, SECRET).update(message).digest(encoding);

describe('signingConfigOf', () => {
  test('an hmac connection saved with its secret alone signs with the defaults the type publishes', () => {
    expect(signingConfigOf(signer({ scheme: 'hmac', secret: SECRET }))).toEqual({
      scheme: 'hmac',
      header: 'X-Signature',
      algorithm: 'sha256',
      encoding: 'hex',
      timestampHeader: 'X-Signature-Timestamp',
      payload: '{timestamp}.{body}',
      toleranceSeconds: 300,
    });
  });

  test('every hmac field is carried over', () => {
    const config = {
      scheme: 'hmac',
      secret: SECRET,
      header: 'X-Hook-Sig',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'sha512=',
      timestampHeader: 'X-Hook-Time',
      payload: 'v1:{timestamp}:{body}',
    };
    expect(signingConfigOf(signer(config))).toEqual({
      scheme: 'hmac',
      header: 'X-Hook-Sig',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'sha512=',
      timestampHeader: 'X-Hook-Time',
      payload: 'v1:{timestamp}:{body}',
      toleranceSeconds: 300,
    });
  });

  test('a stored config missing its defaults (saved before they existed) still maps to them', () => {
    const raw = { id: 'c1', name: 'signer', config: { scheme: 'hmac', secret: SECRET } };
    expect(signingConfigOf(raw)).toMatchObject({ header: 'X-Signature', timestampHeader: 'X-Signature-Timestamp', payload: '{timestamp}.{body}' });
  });

  test('stripe', () => {
    expect(signingConfigOf(signer({ scheme: 'stripe', secret: SECRET }))).toEqual({ scheme: 'stripe', toleranceSeconds: 300 });
  });

  test('the signature and the timestamp in one header, or no scheme, is an InvalidStepInput naming the connection', () => {
    const clash = () => signingConfigOf(signer({ scheme: 'hmac', secret: SECRET, header: 'X-Sig', timestampHeader: 'x-sig' }));
    expect(clash).toThrow(StepError);
    expect(clash).toThrow('Connection "signer" sends the signature and the timestamp in the same header "X-Sig"');
    expect(() => signingConfigOf({ name: 'odd', config: { secret: SECRET } })).toThrow(/Connection "odd" names no signing scheme/);
  });
});

describe('signRequest', () => {
  test('hmac: the headers cover the exact body; the signature is masked, the timestamp is not', () => {
    const connection = signer({ scheme: 'hmac', secret: SECRET, prefix: 'sha256=' });
    const scope = scopeFor(connection);
    const headers: Record<string, string> = { 'x-signature': 'set by the step', Accept: 'application/json' };
    signRequest(headers, BODY, connection, scope);

    const timestamp = headers['X-Signature-Timestamp'];
    expect(Number(timestamp)).toBeCloseTo(Date.now() / 1000, -1);
    const digest = hmacOf('sha256', `${timestamp}.${BODY}`);
    expect(headers).toEqual({ Accept: 'application/json', 'X-Signature': `sha256=${digest}`, 'X-Signature-Timestamp': timestamp });
    // The digest alone is masked too: a receiver that echoes it back would otherwise show it in the step's output.
    expect(scope.mask({ headers, echoed: `got ${digest}`, secret: SECRET })).toEqual({
      headers: { Accept: 'application/json', 'X-Signature': MASK, 'X-Signature-Timestamp': timestamp },
      echoed: `got ${MASK}`,
      secret: MASK,
    });
  });

  test('hmac over bytes that are not UTF-8, base64, sha512', () => {
    const connection = signer({ scheme: 'hmac', secret: SECRET, algorithm: 'sha512', encoding: 'base64' });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x25]);
    const headers: Record<string, string> = {};
    signRequest(headers, bytes, connection, scopeFor(connection));
    const timestamp = headers['X-Signature-Timestamp'];
    expect(headers['X-Signature']).toBe(hmacOf('sha512', Buffer.concat([Buffer.from(`${timestamp}.`), bytes]), 'base64'));
  });

  test('no body signs the empty string', () => {
    const connection = signer({ scheme: 'hmac', secret: SECRET });
    const headers: Record<string, string> = {};
    signRequest(headers, undefined, connection, scopeFor(connection));
    expect(headers['X-Signature']).toBe(hmacOf('sha256', `${headers['X-Signature-Timestamp']}.`));
  });

  test("stripe: Stripe's own library accepts the header; the header and its v1 digest are masked", () => {
    const connection = signer({ scheme: 'stripe', secret: SECRET });
    const scope = scopeFor(connection);
    const headers: Record<string, string> = {};
    signRequest(headers, BODY, connection, scope);
    expect(Object.keys(headers)).toEqual(['Stripe-Signature']);
    expect(stripe.webhooks.constructEvent(BODY, headers['Stripe-Signature'], SECRET)).toEqual(JSON.parse(BODY));
    const v1 = /v1=([0-9a-f]+)/.exec(headers['Stripe-Signature'])![1];
    expect(scope.mask([headers['Stripe-Signature'], v1])).toEqual([MASK, MASK]);
  });

  test('a connection of another type is an InvalidStepInput naming it and its type; no header is set', () => {
    const apiKey = signer({ apiKey: 'key-0001' }, 'api-key');
    const headers: Record<string, string> = {};
    let error: unknown;
    try {
      signRequest(headers, BODY, apiKey, scopeFor(apiKey));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StepError);
    expect(error).toMatchObject({
      type: 'InvalidStepInput',
      retryable: false,
      message: 'sign.connection "signer" has type "api-key", which cannot sign requests; use a webhook-signing connection',
    });
    expect(headers).toEqual({});
  });
});
