import { schemeHeaders, VerificationConfig } from './scheme-config';

const refusal = (input: unknown) => {
  const result = VerificationConfig.safeParse(input);
  if (result.success) throw new Error(`accepted ${JSON.stringify(input)}`);
  return result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

describe('VerificationConfig', () => {
  test('each vendor preset parses, with its defaults filled in', () => {
    expect(VerificationConfig.parse({ scheme: 'stripe' })).toEqual({ scheme: 'stripe', toleranceSeconds: 300 });
    expect(VerificationConfig.parse({ scheme: 'slack', toleranceSeconds: 60 })).toEqual({ scheme: 'slack', toleranceSeconds: 60 });
    expect(VerificationConfig.parse({ scheme: 'github' })).toEqual({ scheme: 'github' });
    expect(VerificationConfig.parse({ scheme: 'shopify' })).toEqual({ scheme: 'shopify' });
    expect(VerificationConfig.parse({ scheme: 'twilio' })).toEqual({ scheme: 'twilio' });
  });

  test('hmac: the payload layout defaults to the body, or to "{timestamp}.{body}" when a timestamp header is set', () => {
    expect(VerificationConfig.parse({ scheme: 'hmac', header: 'X-Signature' })).toEqual({
      scheme: 'hmac',
      header: 'X-Signature',
      algorithm: 'sha256',
      encoding: 'hex',
      payload: '{body}',
      toleranceSeconds: 300,
    });
    expect(
      VerificationConfig.parse({ scheme: 'hmac', header: 'X-Signature', timestampHeader: 'X-Timestamp', encoding: 'base64', algorithm: 'sha512' }),
    ).toMatchObject({ payload: '{timestamp}.{body}', algorithm: 'sha512', encoding: 'base64' });
    expect(
      VerificationConfig.parse({ scheme: 'hmac', header: 'X-Sig', prefix: 'sha256=', timestampHeader: 'X-Ts', payload: 'v1:{timestamp}:{body}' }),
    ).toMatchObject({
      payload: 'v1:{timestamp}:{body}',
      prefix: 'sha256=',
    });
  });

  test('an unknown or missing scheme names the schemes there are', () => {
    const expected = [{ path: 'scheme', message: 'must be one of stripe, github, slack, shopify, twilio, hmac' }];
    expect(refusal({ scheme: 'paypal' })).toEqual(expected);
    expect(refusal({})).toEqual(expected);
  });

  test.each([
    ['{timestamp}', false, 'must contain {body} exactly once'],
    ['{body}{body}', false, 'must contain {body} exactly once'],
    ['{timestamp}.{body}', false, 'may contain {timestamp} only when timestampHeader is set'],
    ['{body}', true, 'must contain {timestamp} exactly once when timestampHeader is set (an unsigned timestamp proves nothing)'],
    ['{timestamp}{timestamp}{body}', true, 'must contain {timestamp} exactly once when timestampHeader is set (an unsigned timestamp proves nothing)'],
    ['{Body}', false, 'may contain only the placeholders {body} and {timestamp}, not {Body}'],
    ['{ts}.{body}', true, 'may contain only the placeholders {body} and {timestamp}, not {ts}'],
  ])('hmac layout %j (timestamp header: %s) is refused: %s', (payload, withTimestamp, message) => {
    const config = { scheme: 'hmac', header: 'X-Signature', payload, ...(withTimestamp ? { timestampHeader: 'X-Timestamp' } : {}) };
    expect(refusal(config)).toEqual([{ path: 'payload', message }]);
  });

  test('header names, prefixes, tolerances and stray fields are checked', () => {
    expect(refusal({ scheme: 'hmac', header: 'X Signature' })[0]).toEqual({
      path: 'header',
      message: "must be an HTTP header name: letters, digits and !#$%&'*+-.^_`|~ only",
    });
    expect(refusal({ scheme: 'hmac', header: 'x'.repeat(101) })[0]).toEqual({ path: 'header', message: 'must be at most 100 characters' });
    expect(refusal({ scheme: 'hmac', header: '' })[0]).toEqual({ path: 'header', message: 'must not be empty' });
    expect(refusal({ scheme: 'hmac', header: 'X-Sig', prefix: 'p'.repeat(51) })[0]).toEqual({ path: 'prefix', message: 'must be at most 50 characters' });
    expect(refusal({ scheme: 'hmac', header: 'X-Sig', algorithm: 'md5' })[0]).toEqual({ path: 'algorithm', message: 'must be one of "sha256", "sha512"' });
    expect(refusal({ scheme: 'stripe', toleranceSeconds: 0 })[0]).toEqual({ path: 'toleranceSeconds', message: 'must be at least 1' });
    expect(refusal({ scheme: 'slack', toleranceSeconds: 86_401 })[0]).toEqual({ path: 'toleranceSeconds', message: 'must be at most 86400' });
    expect(refusal({ scheme: 'stripe', toleranceSeconds: 1.5 })[0]).toEqual({ path: 'toleranceSeconds', message: 'must be a whole number, not a number' });
    expect(refusal({ scheme: 'hmac', header: 'X-Sig', timestampHeader: 'x-sig' })[0]).toEqual({
      path: 'timestampHeader',
      message: 'must be another header than the signature header',
    });
    expect(refusal({ scheme: 'github', toleranceSeconds: 300 })[0]).toEqual({ path: '', message: 'Unknown field' });
  });
});

describe('schemeHeaders', () => {
  test('names the headers each scheme reads', () => {
    const headers = (input: unknown) => schemeHeaders(VerificationConfig.parse(input));
    expect(headers({ scheme: 'stripe' })).toEqual(['Stripe-Signature']);
    expect(headers({ scheme: 'github' })).toEqual(['X-Hub-Signature-256']);
    expect(headers({ scheme: 'slack' })).toEqual(['X-Slack-Signature', 'X-Slack-Request-Timestamp']);
    expect(headers({ scheme: 'shopify' })).toEqual(['X-Shopify-Hmac-Sha256']);
    expect(headers({ scheme: 'twilio' })).toEqual(['X-Twilio-Signature']);
    expect(headers({ scheme: 'hmac', header: 'X-Sig' })).toEqual(['X-Sig']);
    expect(headers({ scheme: 'hmac', header: 'X-Sig', timestampHeader: 'X-Ts' })).toEqual(['X-Sig', 'X-Ts']);
  });
});
