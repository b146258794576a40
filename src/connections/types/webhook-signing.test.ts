import { ConnectionTypeCatalog } from './catalog';

const catalog = new ConnectionTypeCatalog();
const SECRET = 'whsec_schema_secret_0001';

const issuesOf = (config: unknown) => {
  const checked = catalog.check('webhook-signing', config);
  return checked.ok ? [] : checked.issues;
};

describe('webhook-signing', () => {
  test('an hmac config with its secret alone is filled with the defaults and reports its scheme as the variant', () => {
    expect(catalog.check('webhook-signing', { scheme: 'hmac', secret: SECRET })).toEqual({
      ok: true,
      variant: 'hmac',
      config: {
        scheme: 'hmac',
        secret: SECRET,
        header: 'X-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        timestampHeader: 'X-Signature-Timestamp',
        payload: '{timestamp}.{body}',
      },
    });
  });

  test('stripe holds the secret alone', () => {
    expect(catalog.check('webhook-signing', { scheme: 'stripe', secret: SECRET })).toEqual({
      ok: true,
      variant: 'stripe',
      config: { scheme: 'stripe', secret: SECRET },
    });
    expect(issuesOf({ scheme: 'stripe', secret: SECRET, header: 'X-Signature' })).toEqual([{ path: 'config.header', message: 'Unknown field' }]);
  });

  test('the schema is a union keyed on scheme; the secret is write-only and the only secret value', () => {
    const schema = catalog.schema('webhook-signing')!;
    expect(schema.discriminator).toEqual({ propertyName: 'scheme' });
    expect(schema.oneOf!.map((b) => b.properties!.scheme.const)).toEqual(['hmac', 'stripe']);
    for (const branch of schema.oneOf!) expect(branch.properties!.secret).toMatchObject({ type: 'string', minLength: 16, writeOnly: true });
    expect(catalog.secretValues('webhook-signing', { scheme: 'hmac', secret: SECRET, header: 'X-Signature', prefix: 'sha256=' })).toEqual([SECRET]);
  });

  test('a secret shorter than 16 characters, an unknown scheme or algorithm, or a header name that cannot be sent is refused', () => {
    expect(issuesOf({ scheme: 'hmac', secret: 'short-secret' })).toEqual([{ path: 'config.secret', message: 'must NOT have fewer than 16 characters' }]);
    expect(issuesOf({ scheme: 'github', secret: SECRET })).toEqual([{ path: 'config.scheme', message: 'Unknown variant' }]);
    expect(issuesOf({ secret: SECRET }).map((i) => i.path)).toEqual(['config.scheme', 'config.scheme']);
    expect(issuesOf({ scheme: 'hmac', secret: SECRET, algorithm: 'md5' }).map((i) => i.path)).toEqual(['config.algorithm']);
    expect(issuesOf({ scheme: 'hmac', secret: SECRET, header: 'X Signature' }).map((i) => i.path)).toEqual(['config.header']);
    expect(issuesOf({ scheme: 'hmac', secret: SECRET, timestampHeader: 'X-Time:' }).map((i) => i.path)).toEqual(['config.timestampHeader']);
  });

  test.each(['{timestamp}.{body}', 'v0:{timestamp}:{body}', '{body}{timestamp}', '{{timestamp}.{body}', 'a { b {timestamp}.{body}'])(
    'the payload layout %j is accepted',
    (payload) => {
      expect(issuesOf({ scheme: 'hmac', secret: SECRET, payload })).toEqual([]);
    },
  );

  // The timestamp header is always sent, so a layout that does not sign it would let a captured request be replayed with a fresh time.
  test.each(['{body}', '{timestamp}', '{timestamp}.{body}.{body}', '{timestamp}{timestamp}{body}', '{timestamp}.{body}.{url}', '{}{timestamp}.{body}'])(
    'the payload layout %j is refused',
    (payload) => {
      expect(issuesOf({ scheme: 'hmac', secret: SECRET, payload }).map((i) => i.path)).toEqual(['config.payload']);
    },
  );
});
