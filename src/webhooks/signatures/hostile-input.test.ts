import fc from 'fast-check';
import { decodeSignature } from './digest';
import { schemeHeaders, VerificationConfig, type VerificationConfigInput } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Whatever a sender puts in the headers, verification answers with a refusal and never throws.
const inputs: VerificationConfigInput[] = [
  { scheme: 'stripe' },
  { scheme: 'github' },
  { scheme: 'slack' },
  { scheme: 'shopify' },
  { scheme: 'twilio' },
  { scheme: 'hmac', header: 'X-Signature', encoding: 'base64', prefix: 'v1=' },
  { scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp' },
];
const configs = inputs.map((input) => VerificationConfig.parse(input));
const secret = 'the-secret';
const body = Buffer.from('{"hello":"world"}');
const url = 'https://hooks.example.com/w/@o/hostile?x=1';
const t = 1_760_000_000;
const INVALID = { ok: false, code: 'invalid_signature' };

function delivery(headers: Record<string, string>, overrides: Partial<SignedDelivery> = {}): SignedDelivery {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { body, header: (name) => lower.get(name.toLowerCase()), url, contentType: 'application/x-www-form-urlencoded', ...overrides };
}

/** Every header the scheme reads set to the same value. */
const everyHeader = (config: VerificationConfig, value: string) => Object.fromEntries(schemeHeaders(config).map((name) => [name, value]));

describe.each(configs.map((config) => [config.scheme + ('prefix' in config && config.prefix ? ' with prefix' : ''), config] as const))(
  '%s, under attack',
  (_, config) => {
    const genuine = signDelivery(config, secret, body, { url, timestampSeconds: t });

    test('the genuine delivery verifies (so the refusals below are about the input)', () => {
      expect(verifyDelivery(config, [secret], delivery(genuine), t * 1000)).toEqual({ ok: true });
    });

    test.each([
      ['a 100 KB header', 'A'.repeat(100_000)],
      ['an empty header', ''],
      ['non-base64, non-hex garbage', '%%%not*a*signature%%%'],
      ['control characters and a lone surrogate', '\u0000\u0007\ud800=,=,,t=,v1=,v0=,sha256=='],
      ['a thousand separators', ',='.repeat(1000)],
    ])('%s is an invalid signature, not a throw', (_, value) => {
      expect(verifyDelivery(config, [secret], delivery(everyHeader(config, value)), t * 1000)).toEqual(INVALID);
    });

    test('a genuine signature padded to 100 KB is refused', () => {
      const padded = Object.fromEntries(Object.entries(genuine).map(([name, value]) => [name, value + ' '.repeat(100_000)]));
      expect(verifyDelivery(config, [secret], delivery(padded), t * 1000)).toEqual(INVALID);
    });

    test('no headers at all, or no secrets, is an invalid signature', () => {
      expect(verifyDelivery(config, [secret], delivery({}), t * 1000)).toEqual(INVALID);
      expect(verifyDelivery(config, [], delivery(genuine), t * 1000)).toEqual(INVALID);
    });

    test('property: random header values never throw and never pass', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 30 }), (value, other) => {
          const headers = Object.fromEntries(schemeHeaders(config).map((name, i) => [name, i === 0 ? value : other]));
          expect(verifyDelivery(config, [secret], delivery(headers), t * 1000)).toEqual(INVALID);
        }),
        { numRuns: 200 },
      );
    });
  },
);

describe('hostile input, scheme by scheme', () => {
  test('a Stripe header with hundreds of v1 entries looks at the first eight only', () => {
    const config = VerificationConfig.parse({ scheme: 'stripe' });
    const [, v1] = signDelivery(config, secret, body, { timestampSeconds: t })['Stripe-Signature'].split(',');
    const flood = `t=${t},${Array.from({ length: 300 }, () => `v1=${'0'.repeat(8)}`).join(',')},${v1}`;
    expect(flood.length).toBeLessThan(4096);
    expect(verifyDelivery(config, [secret], delivery({ 'Stripe-Signature': flood }), t * 1000)).toEqual(INVALID);
  });

  test('a URL that does not parse, or a malformed bodySHA256, is a refusal for Twilio', () => {
    const config = VerificationConfig.parse({ scheme: 'twilio' });
    const headers = signDelivery(config, secret, body, { url });
    for (const odd of ['not a url', '', 'https://', `${url}&bodySHA256=zz`, `${url}&bodySHA256=${'a'.repeat(10_000)}`]) {
      expect(verifyDelivery(config, [secret], delivery(headers, { url: odd }), t * 1000)).toEqual(INVALID);
    }
  });

  test('a body that is not a form, sent as one, is still only a refusal', () => {
    const config = VerificationConfig.parse({ scheme: 'twilio' });
    const headers = signDelivery(config, secret, body, { url });
    const garbage = Buffer.from([0xff, 0x25, 0x26, 0x3d, 0x3d, 0x26, 0x25, 0x7a, 0x7a, 0x00]);
    expect(verifyDelivery(config, [secret], delivery(headers, { body: garbage }), t * 1000)).toEqual(INVALID);
  });
});

describe('decodeSignature', () => {
  test('reads well-formed hex and base64 only', () => {
    expect(decodeSignature('0aFF', 'hex')).toEqual(Buffer.from([0x0a, 0xff]));
    expect(decodeSignature('0aF', 'hex')).toBeUndefined();
    expect(decodeSignature('0a g', 'hex')).toBeUndefined();
    expect(decodeSignature('', 'hex')).toBeUndefined();
    expect(decodeSignature('AQID', 'base64')).toEqual(Buffer.from([1, 2, 3]));
    expect(decodeSignature('AQI=', 'base64')).toEqual(Buffer.from([1, 2]));
    expect(decodeSignature('AQ==', 'base64')).toEqual(Buffer.from([1]));
    // Unused bits set: Buffer.from would read it as AQ== too.
    expect(decodeSignature('AR==', 'base64')).toBeUndefined();
    for (const bad of ['', 'AQ', 'AQ=', 'A===', 'AQ==AQ==', 'AQ-_', 'AQ I', 'AQID\n']) expect(decodeSignature(bad, 'base64')).toBeUndefined();
  });
});
