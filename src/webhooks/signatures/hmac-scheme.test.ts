import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { VerificationConfig, type VerificationConfigInput } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// No vendor here: node's crypto, called directly, is the oracle for what the generic scheme signs.
const secret = 'generic-secret-Ω';
const body = Buffer.from(JSON.stringify({ order: 17, note: 'naïve café' }));
const t = 1_760_000_000;
const at = (seconds: number) => seconds * 1000;
const parse = (input: VerificationConfigInput) => VerificationConfig.parse(input);

function delivery(headers: Record<string, string>, payload: Buffer = body): SignedDelivery {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { body: payload, header: (name) => lower.get(name.toLowerCase()), url: 'https://hooks.example.com/w/@o/generic' };
}

const digest = (algorithm: string, encoding: 'hex' | 'base64', ...pieces: Array<string | Buffer>) => {
  const mac = createHmac(algorithm, secret);
  for (const piece of pieces) mac.update(piece);
  return mac.digest(encoding);
};

describe('hmac scheme', () => {
  test.each([
    ['sha256', 'hex'],
    ['sha256', 'base64'],
    ['sha512', 'hex'],
    ['sha512', 'base64'],
  ] as const)('%s in %s: signs the body as crypto does, and verifies it', (algorithm, encoding) => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', algorithm, encoding });
    const headers = signDelivery(config, secret, body, {});
    expect(headers).toEqual({ 'X-Signature': digest(algorithm, encoding, body) });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, ['other'], delivery(headers), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('a prefix is written before the signature, and a value without it is refused', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Hook-Signature', prefix: 'sha256=' });
    const signature = digest('sha256', 'hex', body);
    expect(signDelivery(config, secret, body, {})).toEqual({ 'X-Hook-Signature': `sha256=${signature}` });
    expect(verifyDelivery(config, [secret], delivery({ 'x-hook-signature': `sha256=${signature}` }), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery({ 'X-Hook-Signature': signature }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('a signed timestamp: the default layout, a custom one, and the tolerance', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp', toleranceSeconds: 60 });
    const headers = signDelivery(config, secret, body, { timestampSeconds: t });
    expect(headers).toEqual({ 'X-Signature': digest('sha256', 'hex', `${t}.`, body), 'X-Timestamp': String(t) });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t + 60))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t + 61))).toEqual({ ok: false, code: 'timestamp_out_of_tolerance' });
    expect(verifyDelivery(config, [secret], delivery({ ...headers, 'X-Timestamp': String(t + 1) }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [secret], delivery({ 'X-Signature': headers['X-Signature'] }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });

    const custom = parse({ scheme: 'hmac', header: 'X-Signature', encoding: 'base64', timestampHeader: 'X-Timestamp', payload: 'v1:{timestamp}:{body}:end' });
    const signed = { 'X-Signature': digest('sha256', 'base64', `v1:${t}:`, body, ':end'), 'X-Timestamp': String(t) };
    expect(signDelivery(custom, secret, body, { timestampSeconds: t })).toEqual(signed);
    expect(verifyDelivery(custom, [secret], delivery(signed), at(t))).toEqual({ ok: true });
  });

  test('placeholders inside the body are bytes like any other', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp' });
    const tricky = Buffer.from('{timestamp}{body}');
    const headers = signDelivery(config, secret, tricky, { timestampSeconds: t });
    expect(headers['X-Signature']).toBe(digest('sha256', 'hex', `${t}.{timestamp}{body}`));
    expect(verifyDelivery(config, [secret], delivery(headers, tricky), at(t))).toEqual({ ok: true });
  });

  test('bytes that are not UTF-8 are signed as bytes: a lossy round trip through a string is refused', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature' });
    const binary = Buffer.from([0x7b, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x00, 0x7d]);
    const headers = signDelivery(config, secret, binary, {});
    expect(verifyDelivery(config, [secret], delivery(headers, binary), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(headers, Buffer.from(binary.toString('utf8'))), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('rotation: both secrets of an overlap verify; an empty secret never does', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature' });
    expect(verifyDelivery(config, ['new', secret], delivery(signDelivery(config, secret, body, {})), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret, 'new'], delivery(signDelivery(config, 'new', body, {})), at(t))).toEqual({ ok: true });
    const unkeyed = { 'X-Signature': createHmac('sha256', '').update(body).digest('hex') };
    expect(verifyDelivery(config, [''], delivery(unkeyed), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(() => signDelivery(config, '', body, {})).toThrow('Cannot sign with an empty secret');
  });

  test('signing refuses a timestamp that is not whole unix seconds, and defaults to now', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp' });
    expect(() => signDelivery(config, secret, body, { timestampSeconds: 1.5 })).toThrow('timestampSeconds must be a whole number of unix seconds, not 1.5');
    expect(() => signDelivery(config, secret, body, { timestampSeconds: -1 })).toThrow('timestampSeconds must be a whole number');
    expect(() => signDelivery(config, secret, body, { timestampSeconds: 1e13 })).toThrow('timestampSeconds must be a whole number');
    const headers = signDelivery(config, secret, body, {});
    expect(Math.abs(Number(headers['X-Timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyDelivery(config, [secret], delivery(headers), Date.now())).toEqual({ ok: true });
  });

  test('property: sign then verify round trips, and changing any one byte of the body is refused', () => {
    const configs = fc.record({
      scheme: fc.constant('hmac' as const),
      header: fc.constantFrom('X-Signature', 'webhook-signature'),
      algorithm: fc.constantFrom('sha256' as const, 'sha512' as const),
      encoding: fc.constantFrom('hex' as const, 'base64' as const),
      prefix: fc.option(fc.constantFrom('sha256=', 'v1,', 't=x '), { nil: undefined }),
      timestampHeader: fc.option(fc.constant('X-Timestamp'), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        configs,
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (input, bytes, key, position, flip) => {
          const config = parse(input);
          const original = Buffer.from(bytes);
          const headers = signDelivery(config, key, original, { timestampSeconds: t });
          expect(verifyDelivery(config, [key], delivery(headers, original), at(t))).toEqual({ ok: true });
          const changed = Buffer.from(original);
          changed[position % changed.length] ^= flip;
          expect(verifyDelivery(config, [key], delivery(headers, changed), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
        },
      ),
      { numRuns: 300 },
    );
  });
});
