import { readTokenOutcome } from './oauth-token-outcome';
import { OAuthRefreshRefused, OAuthRefreshUnavailable, refreshRefused, refreshUnavailable, vendorWords } from './oauth-errors';
import { VendorError } from '../data-feeds/vendor-errors';

describe('readTokenOutcome', () => {
  test('a success gives the access token, the rotated refresh token and the lifetime', () => {
    expect(
      readTokenOutcome(200, { access_token: 'ghu_new', expires_in: 28800, refresh_token: 'ghr_new', refresh_token_expires_in: 15811200, token_type: 'bearer' }),
    ).toEqual({
      kind: 'tokens',
      accessToken: 'ghu_new',
      refreshToken: 'ghr_new',
      expiresInSeconds: 28800,
    });
  });

  test('a success without refresh_token or expires_in leaves them out; a numeric string lifetime counts', () => {
    expect(readTokenOutcome(200, { access_token: 'a', token_type: 'bearer' })).toEqual({
      kind: 'tokens',
      accessToken: 'a',
      refreshToken: undefined,
      expiresInSeconds: undefined,
    });
    expect(readTokenOutcome(200, { access_token: 'a', expires_in: '1800' })).toMatchObject({ expiresInSeconds: 1800 });
    expect(readTokenOutcome(200, { access_token: 'a', expires_in: -5 })).toMatchObject({ expiresInSeconds: undefined });
  });

  test("GitHub's error with HTTP 200 is a refusal, not a success", () => {
    expect(readTokenOutcome(200, { error: 'bad_refresh_token', error_description: 'The refresh token passed is incorrect or expired.' })).toEqual({
      kind: 'refused',
      status: 200,
      code: 'bad_refresh_token',
      description: 'The refresh token passed is incorrect or expired.',
    });
    expect(readTokenOutcome(200, { error: 'incorrect_client_credentials' })).toMatchObject({ kind: 'refused', code: 'incorrect_client_credentials' });
  });

  test("HubSpot's 400 BAD_REFRESH_TOKEN is a refusal with its message", () => {
    expect(readTokenOutcome(400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token', correlationId: 'c-1' })).toEqual({
      kind: 'refused',
      status: 400,
      code: 'BAD_REFRESH_TOKEN',
      description: 'missing or unknown refresh token',
    });
  });

  test('standard OAuth errors with 400 and 401 are refusals', () => {
    expect(readTokenOutcome(400, { error: 'invalid_grant' })).toMatchObject({ kind: 'refused', status: 400, code: 'invalid_grant' });
    expect(readTokenOutcome(401, { error: 'invalid_client', error_description: 'Client authentication failed' })).toMatchObject({
      kind: 'refused',
      code: 'invalid_client',
    });
  });

  test('5xx, 429 and an error saying the server is in trouble are unavailable, whatever the body', () => {
    expect(readTokenOutcome(503, { error: 'invalid_grant' })).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(readTokenOutcome(429, { status: 'RATE_LIMIT' })).toMatchObject({ kind: 'unavailable', status: 429 });
    expect(readTokenOutcome(400, { error: 'temporarily_unavailable' })).toMatchObject({ kind: 'unavailable' });
  });

  test('a body that is not JSON, or JSON of another shape, is unavailable', () => {
    expect(readTokenOutcome(200, 'access_token=a&token_type=bearer')).toMatchObject({ kind: 'unavailable' });
    expect(readTokenOutcome(200, ['a'])).toMatchObject({ kind: 'unavailable' });
    expect(readTokenOutcome(200, { token_type: 'bearer' })).toMatchObject({ kind: 'unavailable', reason: 'the answer has no access_token' });
    expect(readTokenOutcome(404, '<html>Not Found</html>')).toMatchObject({ kind: 'unavailable', status: 404 });
    expect(readTokenOutcome(400, { message: 'no code' })).toMatchObject({ kind: 'unavailable' });
  });
});

describe('refresh errors', () => {
  const connection = { id: '7f1e8a2c-0000-4000-8000-000000000001', name: 'crm' };

  test('a refusal is a non-retryable vendor error naming the connection and how to reconnect it', () => {
    const err = refreshRefused('hubspot', connection, 400, 'BAD_REFRESH_TOKEN', 'missing or unknown refresh token');
    expect(err).toBeInstanceOf(OAuthRefreshRefused);
    expect(err).toBeInstanceOf(VendorError);
    expect(err).toMatchObject({ name: 'OAuthRefreshRefused', vendor: 'hubspot', status: 400, retryable: false, connectionId: connection.id });
    expect(err.message).toContain('"crm"');
    expect(err.message).toContain(`PATCH /connections/${connection.id}`);
    expect(err.message).toContain('BAD_REFRESH_TOKEN: missing or unknown refresh token');
  });

  test('unavailable is a retryable vendor error', () => {
    const err = refreshUnavailable('github', connection, 503, 'HTTP 503');
    expect(err).toBeInstanceOf(OAuthRefreshUnavailable);
    expect(err).toMatchObject({ name: 'OAuthRefreshUnavailable', vendor: 'github', status: 503, retryable: true });
    expect(err.message).toMatch(/"crm".*HTTP 503.*try again later/);
  });

  test("a vendor's words are masked, put on one line and cut to 200 characters", () => {
    expect(vendorWords('token ghr_secret1 is\nbad', ['ghr_secret1', undefined])).toBe('token *** is bad');
    const long = vendorWords('x'.repeat(500), []);
    expect(long).toHaveLength(200);
    expect(vendorWords(undefined, [])).toBeUndefined();
  });
});
