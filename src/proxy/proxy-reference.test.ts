import { AppError } from '../errors/errors';
import { parseReference } from './proxy-reference';
import { REFERENCE_TYPES } from './reference-types';

const SID = 'RE0123456789abcdef0123456789abcdef';

function refusal(url: string | undefined): { status: number; code: string; message: string } {
  try {
    parseReference(url);
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error(`${url} was accepted`);
}

describe('parseReference', () => {
  test('a Twilio recording reference resolves to its type and id', () => {
    const parsed = parseReference(`proxy+twilio:recording://${SID}`);
    expect([parsed.key, parsed.id, parsed.type]).toEqual(['twilio:recording', SID, REFERENCE_TYPES['twilio:recording']]);
  });

  test('service and type are case-insensitive; the id keeps its case', () => {
    const upper = `RE${'ABCDEF0123456789'.repeat(2)}`;
    expect(parseReference(`PROXY+Twilio:Recording://${upper}`)).toMatchObject({ key: 'twilio:recording', id: upper });
  });

  test.each([undefined, '', '   '])('%p is 400 url_required', (url) => {
    expect(refusal(url)).toMatchObject({ status: 400, code: 'url_required' });
  });

  test.each([
    'https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/RE1',
    `twilio:recording://${SID}`,
    `proxy+twilio://${SID}`,
    `proxy+twilio:recording:/${SID}`,
    `proxy+twilio:recording://`,
    `proxy+twilio:recording://${SID}/../Calls`,
    `proxy+twilio:recording://${SID}?x=1`,
    `proxy+twilio:recording://${SID}#x`,
    `proxy+twilio:recording://${'a'.repeat(600)}`,
    'proxy+__proto__:x://y',
  ])('%s is 400 invalid_reference', (url) => {
    expect(refusal(url)).toMatchObject({ status: 400, code: 'invalid_reference' });
  });

  test.each([
    [`RE${'0'.repeat(31)}`, 'too short'],
    [`RE${'0'.repeat(33)}`, 'too long'],
    [`CA${'0'.repeat(32)}`, 'a call SID'],
    [`RE${'g'.repeat(32)}`, 'not hexadecimal'],
    ['RE%2e%2e', 'encoded'],
  ])('an id that is not a recording SID (%s: %s) is 400 invalid_reference, naming the pattern', (id) => {
    const answer = refusal(`proxy+twilio:recording://${id}`);
    expect(answer).toMatchObject({ status: 400, code: 'invalid_reference' });
    expect(answer.message).toContain('RE followed by 32 hexadecimal digits');
  });

  test.each(['proxy+twilio:call://CA1', 'proxy+slack:file://F1', 'proxy+constructor:prototype://x'])(
    '%s is 404 unknown_reference_type, listing the known types',
    (url) => {
      const answer = refusal(url);
      expect(answer).toMatchObject({ status: 404, code: 'unknown_reference_type' });
      expect(answer.message).toContain('twilio:recording');
    },
  );
});

describe('twilio:recording', () => {
  const type = REFERENCE_TYPES['twilio:recording'];
  const baseUrls = { twilio: 'https://api.twilio.com', github: 'https://api.github.com', hubspot: 'https://api.hubapi.com' };
  const config = { accountSid: `AC${'1'.repeat(32)}`, authToken: 'tok3n' };

  test.each([
    [undefined, ''],
    ['mp3', '.mp3'],
    ['wav', '.wav'],
  ])('builds the Recording media URL from the configured base URL (format %p) with Basic auth', (format, suffix) => {
    const request = type.request(SID, config, baseUrls, format);
    expect(request.url).toBe(`https://api.twilio.com/2010-04-01/Accounts/${config.accountSid}/Recordings/${SID}${suffix}`);
    expect(request.headers).toEqual({ authorization: `Basic ${Buffer.from(`${config.accountSid}:tok3n`).toString('base64')}` });
  });

  test('the base URL comes from configuration', () => {
    expect(type.request(SID, config, { ...baseUrls, twilio: 'http://127.0.0.1:9999' }, 'mp3').url).toMatch(/^http:\/\/127\.0\.0\.1:9999\/2010-04-01\//);
  });
});
