import { SERVICE_USER_AGENT } from '../config/service-identity';
import { missingForRefresh, needsRefresh, REFRESH_MARGIN_MS, refreshRequest, tokenVendorOf, withTokens } from './oauth-token-endpoints';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('tokenVendorOf', () => {
  test('GitHub and HubSpot OAuth connections refresh at their vendor; other types do not', () => {
    expect(tokenVendorOf('github-oauth')).toBe('github');
    expect(tokenVendorOf('hubspot-oauth')).toBe('hubspot');
    for (const type of ['google-oauth', 'twilio', 'custom-oauth', 'constructor', 'toString']) expect(tokenVendorOf(type)).toBeUndefined();
  });
});

describe('needsRefresh', () => {
  const config = (expiresAt?: string, accessToken: string | null = 'tok') => ({ accessToken, expiresAt });

  test('a token expiring within the margin, or past, is refreshed; one expiring later is not', () => {
    expect(needsRefresh(config(at(REFRESH_MARGIN_MS - 1000)), NOW)).toBe(true);
    expect(needsRefresh(config(at(-60_000)), NOW)).toBe(true);
    expect(needsRefresh(config(at(REFRESH_MARGIN_MS + 60_000)), NOW)).toBe(false);
  });

  test('a token without a known expiry is used until refused; a config without one at all is refreshed', () => {
    expect(needsRefresh(config(undefined), NOW)).toBe(false);
    expect(needsRefresh(config('not a date'), NOW)).toBe(false);
    expect(needsRefresh(config(at(3_600_000), null), NOW)).toBe(true);
    expect(needsRefresh({ expiresAt: at(3_600_000) }, NOW)).toBe(true);
  });

  test('the rejected token is refreshed; another stored token is not (someone refreshed meanwhile)', () => {
    expect(needsRefresh(config(at(3_600_000)), NOW, 'tok')).toBe(true);
    expect(needsRefresh(config(at(3_600_000)), NOW, 'older')).toBe(false);
  });
});

describe('refreshRequest', () => {
  test('a form-encoded refresh_token grant with the client credentials, asking for JSON and naming the service', () => {
    const req = refreshRequest('https://auth.example.test/token', { clientId: 'id 1', clientSecret: 's&cret', refreshToken: 'r=1' }, 10_000);
    expect(req).toMatchObject({ url: 'https://auth.example.test/token', method: 'POST', timeoutMs: 10_000 });
    expect(req.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': SERVICE_USER_AGENT });
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'r=1',
      client_id: 'id 1',
      client_secret: 's&cret',
    });
    expect(SERVICE_USER_AGENT).toMatch(/^Flowbase\/\d+\.\d+\.\d+/);
  });

  test('missingForRefresh names the fields a request would lack', () => {
    expect(missingForRefresh({ clientId: 'a', clientSecret: 'b', refreshToken: 'c' })).toEqual([]);
    expect(missingForRefresh({ clientId: 'a', refreshToken: '' })).toEqual(['refreshToken', 'clientSecret']);
  });
});

describe('withTokens', () => {
  const config = { clientId: 'id', clientSecret: 's', accessToken: 'old', refreshToken: 'r-old', expiresAt: at(0), scopes: ['repo'] };

  test('stores the new tokens and the new expiry, keeping the other fields', () => {
    expect(withTokens(config, { kind: 'tokens', accessToken: 'new', refreshToken: 'r-new', expiresInSeconds: 1800 }, NOW)).toEqual({
      ...config,
      accessToken: 'new',
      refreshToken: 'r-new',
      expiresAt: at(1_800_000),
    });
  });

  test('keeps the refresh token the vendor did not rotate, and drops an expiry it did not name', () => {
    const next = withTokens(config, { kind: 'tokens', accessToken: 'new' }, NOW);
    expect(next).toEqual({ clientId: 'id', clientSecret: 's', accessToken: 'new', refreshToken: 'r-old', scopes: ['repo'] });
    expect(next).not.toHaveProperty('expiresAt');
  });
});
