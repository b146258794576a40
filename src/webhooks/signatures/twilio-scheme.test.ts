import fc from 'fast-check';
import twilio from 'twilio';
import { VerificationConfig } from './scheme-config';
import { signDelivery } from './sign-delivery';
import { twilioUrlWithBodyHash } from './twilio-signing-input';
import { verifyDelivery, type SignedDelivery } from './verify-delivery';

// Twilio's Node library is the oracle: getExpectedTwilioSignature signs, validateRequest and
// validateRequestWithBody judge, and our verdicts must be the same as theirs.
const config = VerificationConfig.parse({ scheme: 'twilio' });
const authToken = '12345678901234567890123456789012';
const url = 'https://hooks.example.com/w/@org/sms?tenant=acme';
const now = Date.UTC(2026, 0, 31);
const FORM = 'application/x-www-form-urlencoded';

type Params = Record<string, string | string[]>;

const params: Params = {
  From: '+14155550100',
  To: '+14155550199',
  Body: 'Grüße aus Köln ☕ 😀 & = + %',
  MediaUrl: ['https://media.example.com/b.jpg', 'https://media.example.com/a.jpg', 'https://media.example.com/b.jpg'],
  NumMedia: '2',
};

/** The form body a sender posts for these parameters, repeated names as repeated pairs. */
function formBody(values: Params): Buffer {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
  return Buffer.from(form.toString());
}

function delivery(signature: string | undefined, options: { url?: string; body?: Buffer; contentType?: string } = {}): SignedDelivery {
  return {
    body: options.body ?? formBody(params),
    header: (name) => (name.toLowerCase() === 'x-twilio-signature' ? signature : undefined),
    url: options.url ?? url,
    contentType: 'contentType' in options ? options.contentType : FORM,
  };
}

describe('twilio scheme, form bodies', () => {
  test('a URL-only signature (a GET, or a form-less call) covers no body: one arriving beside it is refused, whatever its type', () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, {});
    expect(verifyDelivery(config, [authToken], delivery(signature, { body: Buffer.alloc(0), contentType: undefined }), now)).toEqual({ ok: true });
    for (const contentType of ['application/json', 'text/plain', undefined, 'application/x-www-form-urlencodedx']) {
      const smuggled = delivery(signature, { body: Buffer.from('{"Body":"anything"}'), contentType });
      expect(verifyDelivery(config, [authToken], smuggled, now)).toEqual({ ok: false, code: 'invalid_signature' });
    }
  });

  test("getExpectedTwilioSignature's signature verifies (unicode, repeated names)", () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect(verifyDelivery(config, [authToken], delivery(signature), now)).toEqual({ ok: true });
    expect(verifyDelivery(config, ['old token', authToken], delivery(signature), now)).toEqual({ ok: true });
  });

  test('we sign exactly what Twilio computes, and validateRequest accepts it', () => {
    const headers = signDelivery(config, authToken, formBody(params), { url });
    expect(headers).toEqual({ 'X-Twilio-Signature': twilio.getExpectedTwilioSignature(authToken, url, params) });
    expect(twilio.validateRequest(authToken, headers['X-Twilio-Signature'], url, params)).toBe(true);
  });

  test('a changed parameter, another token, another URL or a body not sent as a form is refused', () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect(verifyDelivery(config, ['another token'], delivery(signature), now)).toEqual({ ok: false, code: 'invalid_signature' });
    expect(verifyDelivery(config, [authToken], delivery(signature, { body: formBody({ ...params, NumMedia: '3' }) }), now)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(verifyDelivery(config, [authToken], delivery(signature, { url: url.replace('acme', 'acme2') }), now)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
    expect(verifyDelivery(config, [authToken], delivery(signature, { contentType: 'text/plain' }), now)).toEqual({ ok: false, code: 'invalid_signature' });
  });

  test('a call without a body (a GET) signs the URL alone', () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, {});
    expect(verifyDelivery(config, [authToken], delivery(signature, { body: Buffer.alloc(0), contentType: undefined }), now)).toEqual({ ok: true });
    expect(signDelivery(config, authToken, Buffer.alloc(0), { url })).toEqual({ 'X-Twilio-Signature': signature });
  });

  test('property: for any parameters, we sign what Twilio signs and accept what Twilio signs', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const values = fc.dictionary(text, fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 4 })), { maxKeys: 6 });
    fc.assert(
      fc.property(values, (generated) => {
        const body = formBody(generated);
        const expected = twilio.getExpectedTwilioSignature(authToken, url, generated);
        expect(signDelivery(config, authToken, body, { url })['X-Twilio-Signature']).toBe(expected);
        expect(verifyDelivery(config, [authToken], delivery(expected, { body }), now)).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('twilio scheme, the URL', () => {
  // Each pair: the URL Twilio signed, the URL we received. Our verdict must be validateRequest's.
  const pairs: Array<[string, string, boolean]> = [
    ['https://hooks.example.com:443/w/@o/sms?x=1', 'https://hooks.example.com/w/@o/sms?x=1', true],
    ['https://hooks.example.com/w/@o/sms?x=1', 'https://hooks.example.com:443/w/@o/sms?x=1', true],
    ['http://hooks.example.com:80/w/@o/sms', 'http://hooks.example.com/w/@o/sms', true],
    ['http://hooks.example.com/w/@o/sms', 'http://hooks.example.com:80/w/@o/sms', true],
    ['https://hooks.example.com/w/@o/sms?name=O%27Brien', "https://hooks.example.com/w/@o/sms?name=O'Brien", true],
    ['https://hooks.example.com:8443/w/@o/sms', 'https://hooks.example.com/w/@o/sms', false],
    // The library tries the received URL without whatever port it has, so this one passes there too.
    ['https://hooks.example.com/w/@o/sms', 'https://hooks.example.com:8443/w/@o/sms', true],
    ['https://[2001:db8::1]:443/w/@o/sms', 'https://[2001:db8::1]/w/@o/sms', true],
    ['https://hooks.example.com:443/w/@o/sms', 'http://hooks.example.com/w/@o/sms', false],
    ['https://hooks.example.com/w/@o/sms', 'https://hooks.example.com/w/@o/sms/', false],
    ['https://hooks.example.com/w/@o/sms?x=1', 'https://hooks.example.com/w/@o/sms?x=2', false],
  ];

  test.each(pairs)('signed %s, received %s: accepted %s, as validateRequest judges', (signedUrl, receivedUrl, accepted) => {
    const signature = twilio.getExpectedTwilioSignature(authToken, signedUrl, params);
    expect(twilio.validateRequest(authToken, signature, receivedUrl, params)).toBe(accepted);
    expect(verifyDelivery(config, [authToken], delivery(signature, { url: receivedUrl }), now).ok).toBe(accepted);
  });
});

describe('twilio scheme, JSON bodies', () => {
  const json = Buffer.from(JSON.stringify({ event: 'call.completed', caller: 'Zoë', duration: 42 }));
  const jsonUrl = twilioUrlWithBodyHash(url, json);

  test('twilioUrlWithBodyHash adds the bodySHA256 Twilio computes', () => {
    expect(jsonUrl).toBe(`${url}&bodySHA256=${twilio.getExpectedBodyHash(json.toString())}`);
    expect(twilioUrlWithBodyHash('https://hooks.example.com/w/@o/j', json)).toMatch(/^https:\/\/hooks\.example\.com\/w\/@o\/j\?bodySHA256=[0-9a-f]{64}$/);
    expect(() => twilioUrlWithBodyHash(jsonUrl, json)).toThrow('The URL already carries bodySHA256');
  });

  test("Twilio's signature of the URL alone verifies, with the body bound by its hash", () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, jsonUrl, {});
    const received = (body: Buffer) => delivery(signature, { url: jsonUrl, body, contentType: 'application/json' });
    expect(verifyDelivery(config, [authToken], received(json), now)).toEqual({ ok: true });
    expect(verifyDelivery(config, [authToken], received(Buffer.from(json.toString().replace('42', '43'))), now)).toEqual({
      ok: false,
      code: 'invalid_signature',
    });
  });

  test('validateRequestWithBody accepts what we sign', () => {
    const { 'X-Twilio-Signature': signature } = signDelivery(config, authToken, json, { url: jsonUrl });
    expect(twilio.validateRequestWithBody(authToken, signature, jsonUrl, json.toString())).toBe(true);
    expect(twilio.validateRequestWithBody(authToken, signature, jsonUrl, json.toString() + ' ')).toBe(false);
  });

  test('signing needs the URL, and a bodySHA256 that is the hash of the body', () => {
    expect(() => signDelivery(config, authToken, json, {})).toThrow('Twilio signs the URL it calls: pass options.url');
    expect(() => signDelivery(config, authToken, Buffer.from('{}'), { url: jsonUrl })).toThrow("The URL's bodySHA256 is not the SHA-256 of this body");
  });
});
