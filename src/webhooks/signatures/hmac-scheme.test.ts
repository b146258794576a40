import fc from 'fast-check';
import { VerificationConfig, type VerificationConfigInput } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

const secret = 'generic-secret-Ω';
const body = Buffer.from(JSON.stringify({ order: 17, note: 'naïve café' }));
const t = 1_760_000_000;
const at = (seconds: number) => seconds * 1000;
const parse = (input: VerificationConfigInput) => VerificationConfig.parse(input);

function delivery(headers: Record<string, string>, payload: Buffer = body): SignedDelivery {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { body: payload, header: (name) => lower.get(name.toLowerCase()), url: 'https://hooks.example.com/w/@o/generic' };
}

/*
 * Known-good signatures, computed once outside this code with OpenSSL (UTF-8
 * shell), B='{"order":17,"note":"naïve café"}' (the body above), K='generic-secret-Ω':
 *   printf '%s' "$B" | openssl dgst -sha256 -hmac "$K" -hex                 (-binary | base64 for base64; -sha512 likewise)
 *   printf '%s' "1760000000.$B" | openssl dgst -sha256 -hmac "$K" -hex      (the default timestamp layout)
 *   printf '%s' "v1:1760000000:$B:end" | openssl dgst -sha256 -hmac "$K" -binary | base64
 *   printf '%s' '1760000000.{timestamp}{body}' | openssl dgst -sha256 -hmac "$K" -hex
 *   printf '%s' "$B" | openssl dgst -sha256 -hmac '' -hex                   (an empty key)
 * and checked against node's createHmac. Literals, so a change in what is signed fails here.
 */
const SIGNED_BODY = {
  sha256: {
    hex: 'f00febf48548a97df2c9eb00b1df8a5565a38bcf1787cdae2dcda98fd16e1fa1',
    base64: '8A/r9IVIqX3yyesAsd+KVWWji88Xh82uLc2pj9FuH6E=',
  },
  sha512: {
    hex: '905cb3ac552df03573ff651b3918a11a7298871909fe0f86b279042670e800b529f6096345d1b61d15f07588fc96f3b6d60477bbf0f70cd2ded5dd11c6933803',
    base64: 'kFyzrFUt8DVz/2UbORihGnKYhxkJ/g+GsnkEJnDoALUp9gljRdG2HRXwdYj8lvO21gR3u/D3DNLe1d0RxpM4Aw==',
  },
} as const;
const SIGNED_TIMESTAMP_DOT_BODY = '87b67ce7ce46cc3cea90a5f4cbaec9fdfddc99a3c350b43e5da0089d8c7f416c';
const SIGNED_CUSTOM_LAYOUT = 'Hd8gGxbT/kIflN8wAtyxKCOBFTkRnG2g0gCHjnx7VWM=';
const SIGNED_PLACEHOLDER_BODY = '091716f1dba32e71db22d8c35f61d3fb7f7d410f75ffb20b552309452e024096';
const SIGNED_WITH_EMPTY_KEY = 'c8f6d6bcbef64311afcb93ccb90d4f1bd3fec7d582692018063c799714f58e93';

describe('hmac scheme', () => {
  test.each([
    ['sha256', 'hex'],
    ['sha256', 'base64'],
    ['sha512', 'hex'],
    ['sha512', 'base64'],
  ] as const)('%s in %s: signs the body to its known signature, and verifies it', (algorithm, encoding) => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', algorithm, encoding });
    const headers = signDelivery(config, secret, body, {});
    expect(headers).toEqual({ 'X-Signature': SIGNED_BODY[algorithm][encoding] });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, ['other'], delivery(headers), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('a prefix is written before the signature, and a value without it is refused', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Hook-Signature', prefix: 'sha256=' });
    const signature = SIGNED_BODY.sha256.hex;
    expect(signDelivery(config, secret, body, {})).toEqual({ 'X-Hook-Signature': `sha256=${signature}` });
    expect(verifyDelivery(config, [secret], delivery({ 'x-hook-signature': `sha256=${signature}` }), at(t))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery({ 'X-Hook-Signature': signature }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('a signed timestamp: the default layout, a custom one, and the tolerance', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp', toleranceSeconds: 60 });
    const headers = signDelivery(config, secret, body, { timestampSeconds: t });
    expect(headers).toEqual({ 'X-Signature': SIGNED_TIMESTAMP_DOT_BODY, 'X-Timestamp': '1760000000' });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t + 60))).toEqual({ ok: true });
    expect(verifyDelivery(config, [secret], delivery(headers), at(t + 61))).toEqual({ ok: false, code: 'timestamp_out_of_tolerance' });
    expect(verifyDelivery(config, [secret], delivery({ ...headers, 'X-Timestamp': String(t + 1) }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [secret], delivery({ 'X-Signature': headers['X-Signature'] }), at(t))).toEqual({ ok: false, code: 'invalid_signature' });

    const custom = parse({ scheme: 'hmac', header: 'X-Signature', encoding: 'base64', timestampHeader: 'X-Timestamp', payload: 'v1:{timestamp}:{body}:end' });
    const signed = { 'X-Signature': SIGNED_CUSTOM_LAYOUT, 'X-Timestamp': '1760000000' };
    expect(signDelivery(custom, secret, body, { timestampSeconds: t })).toEqual(signed);
    expect(verifyDelivery(custom, [secret], delivery(signed), at(t))).toEqual({ ok: true });
  });

  test('placeholders inside the body are bytes like any other', () => {
    const config = parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp' });
    const tricky = Buffer.from('{timestamp}{body}');
    const headers = signDelivery(config, secret, tricky, { timestampSeconds: t });
    expect(headers['X-Signature']).toBe(SIGNED_PLACEHOLDER_BODY);
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
    const unkeyed = { 'X-Signature': SIGNED_WITH_EMPTY_KEY };
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
