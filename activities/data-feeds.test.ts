import { advanced, secretsOf } from './data-feeds';

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
