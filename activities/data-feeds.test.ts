import { ApplicationFailure } from '@temporalio/common';
import { VendorRejected } from '../src/data-feeds/vendor-errors';
import { ValidationError } from '../src/errors/errors';
import { advanced, maskedFailure, secretsOf } from './data-feeds';

describe('advanced (syncedThrough after a successful window)', () => {
  const through = '2026-11-20T10:00:00.000Z';
  const startedAt = '2026-11-20T12:00:00.000Z';
  const window = (startDate: string, endDate: string) => ({ startDate, endDate });

  it('moves to the end of a window that starts at or before it', () => {
    expect(advanced(through, window('2026-11-20T10:00:00.000Z', '2026-11-20T11:00:00.000Z'), startedAt)).toBe('2026-11-20T11:00:00.000Z');
    expect(advanced(through, window('2026-11-19T00:00:00.000Z', '2026-11-20T11:30:00.000Z'), startedAt)).toBe('2026-11-20T11:30:00.000Z');
  });

  it('never jumps a gap: a later window leaves it where it is', () => {
    expect(advanced(through, window('2026-11-20T10:00:01.000Z', '2026-11-20T11:00:00.000Z'), startedAt)).toBe(through);
  });

  it('never moves backwards, and never past when the run began', () => {
    expect(advanced(through, window('2026-11-01T00:00:00.000Z', '2026-11-02T00:00:00.000Z'), startedAt)).toBe(through);
    expect(advanced(through, window(through, '2027-01-01T00:00:00.000Z'), startedAt)).toBe(startedAt);
    expect(advanced(null, window('2026-11-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'), startedAt)).toBe(startedAt);
  });
});

describe('secretsOf: the secrets of a feed connection', () => {
  const accountSid = 'AC0123456789abcdef0123456789abcdef';
  const authToken = 'tok+en/with=odd&chars';
  const secrets = secretsOf({ config: { accountSid, authToken }, secretValues: [authToken] });

  it('masks the value, its encoded forms and the base64 Basic credential', () => {
    const basic = Buffer.from(`${accountSid}:${authToken}`).toString('base64');
    const text = `a ${authToken} b ${encodeURIComponent(authToken)} c ${JSON.stringify(authToken)} d Basic ${basic} e ${accountSid}`;
    const masked = secrets.mask(text);
    expect(masked).not.toContain(authToken);
    expect(masked).not.toContain(encodeURIComponent(authToken));
    expect(masked).not.toContain(basic);
    expect(masked).not.toContain(basic.replace(/=+$/, ''));
    expect(masked).toContain(accountSid); // not a secret
  });
});

describe('maskedFailure: what leaves the page activity', () => {
  const token = 'sk_live_abcdef123456';
  const secrets = secretsOf({ config: { user: 'someone', token }, secretValues: [token] });
  const basic = Buffer.from(`someone:${token}`).toString('base64');

  it.each([
    ['a vendor error', new VendorRejected('twilio', 401, `Twilio refused ${token}`), 'VendorRejected', true],
    ['a client error of the application', new ValidationError(`bad ${token}`, [{ path: 'x', message: token }], 'bad_input'), 'bad_input', true],
    ['any other error', new TypeError(`fetch failed: Authorization: Basic ${basic}`), 'TypeError', false],
    ['an ApplicationFailure', ApplicationFailure.create({ type: 'X', message: `oops ${encodeURIComponent(token)}`, nonRetryable: true }), 'X', true],
  ])('%s: masked, its type and retryability kept, its original stack dropped', (_, err, type, nonRetryable) => {
    const failure = maskedFailure(err, secrets) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(Boolean(failure.nonRetryable)).toBe(nonRetryable);
    const text = JSON.stringify([failure.message, failure.stack, failure.details]);
    expect(text).toContain('[secret]');
    expect(text).not.toContain(token);
    expect(text).not.toContain(encodeURIComponent(token));
    expect(text).not.toContain(basic);
  });
});
