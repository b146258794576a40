import type { OutboundRequest, OutboundResponse } from '../outbound/outbound-http';
import { VendorRateLimited, VendorRejected, VendorUnavailable } from './vendor-errors';
import { createFeedHttp, MAX_RETRY_AFTER_MS, parseRetryAfter, vendorMessage } from './vendor-http';
import { SERVICE_USER_AGENT } from '../config/service-identity';

const NOW = Date.parse('2024-05-01T12:00:00Z');

/** A fake outbound client answering `answer` (or throwing it) and keeping what it was asked. */
function fakeOutbound(answer: Partial<OutboundResponse> | Error) {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    request: async (req: OutboundRequest): Promise<OutboundResponse> => {
      sent.push(req);
      if (answer instanceof Error) throw answer;
      return { status: 200, headers: {}, text: '', body: null, url: req.url, ...answer };
    },
  };
}

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

async function failure(vendor: 'twilio' | 'github' | 'hubspot', answer: Partial<OutboundResponse> | Error) {
  const http = createFeedHttp(fakeOutbound(answer), { vendor, timeoutMs: 5000, now: () => NOW });
  return http.send({ method: 'GET', url: 'https://api.example.test/x?token=s3cret', headers: { authorization: 'Bearer s3cret' } }).then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err as Error,
  );
}

describe('createFeedHttp', () => {
  it('sends JSON bodies with the timeout and answers 2xx with status, headers and parsed body', async () => {
    const outbound = fakeOutbound({ status: 201, headers: { 'x-a': '1' }, body: { ok: true } });
    const http = createFeedHttp(outbound, { vendor: 'hubspot', timeoutMs: 1234 });
    const res = await http.send({ method: 'POST', url: 'https://api.hubapi.com/s', headers: { authorization: 'Bearer t' }, body: { limit: 1 } });
    expect(res).toEqual({ status: 201, headers: { 'x-a': '1' }, body: { ok: true } });
    expect(outbound.sent).toEqual([
      {
        url: 'https://api.hubapi.com/s',
        method: 'POST',
        headers: { 'user-agent': SERVICE_USER_AGENT, authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"limit":1}',
        timeoutMs: 1234,
        signal: undefined,
      },
    ]);
  });

  it('sends GETs without a body or content type', async () => {
    const outbound = fakeOutbound({ status: 200, body: [] });
    await createFeedHttp(outbound, { vendor: 'github', timeoutMs: 10 }).send({ method: 'GET', url: 'https://api.github.com/issues', headers: {} });
    expect(outbound.sent[0].body).toBeUndefined();
    expect(outbound.sent[0].headers).toEqual({ 'user-agent': SERVICE_USER_AGENT });
  });

  it('names the service and its version in every request, unless the feed names itself', async () => {
    const outbound = fakeOutbound({ status: 200, body: [] });
    const http = createFeedHttp(outbound, { vendor: 'twilio', timeoutMs: 10 });
    await http.send({ method: 'GET', url: 'https://api.twilio.com/x', headers: {} });
    await http.send({ method: 'GET', url: 'https://api.twilio.com/x', headers: { 'user-agent': 'Custom/1' } });
    expect(outbound.sent.map((s) => s.headers['user-agent'])).toEqual([expect.stringMatching(/^Flowbase\/\d+\.\d+\.\d+ /), 'Custom/1']);
  });

  it.each([
    ['seconds', { 'retry-after': '30' }, 30_000],
    ['an HTTP-date', { 'retry-after': new Date(NOW + 90_000).toUTCString() }, 90_000],
    ['nothing (the default)', {}, 10_000],
    ['a tiny wait (at least 1 s)', { 'retry-after': '0' }, 1_000],
    ['a huge wait (capped at 15 min)', { 'retry-after': '86400' }, MAX_RETRY_AFTER_MS],
    ['garbage (the default)', { 'retry-after': 'soon' }, 10_000],
  ])('maps 429 with Retry-After as %s to VendorRateLimited', async (_label, headers, delay) => {
    const err = await failure('twilio', { status: 429, headers, body: { code: 20429, message: 'Too Many Requests' } });
    expect(err).toBeInstanceOf(VendorRateLimited);
    expect((err as VendorRateLimited).retryAfterMs).toBe(delay);
    expect((err as VendorRateLimited).retryable).toBe(true);
    expect(err.message).toMatch(/^Twilio rate limit reached \(429\)/);
  });

  it("maps GitHub's 403 with an exhausted quota to VendorRateLimited until the reset", async () => {
    const headers = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 120) };
    const err = await failure('github', { status: 403, headers, body: { message: 'API rate limit exceeded' } });
    expect(err).toBeInstanceOf(VendorRateLimited);
    expect((err as VendorRateLimited).retryAfterMs).toBe(120_000);
  });

  it("maps GitHub's 403 with Retry-After (secondary limit) to VendorRateLimited", async () => {
    const err = await failure('github', { status: 403, headers: { 'retry-after': '60', 'x-ratelimit-remaining': '4000' }, body: {} });
    expect((err as VendorRateLimited).retryAfterMs).toBe(60_000);
  });

  it("maps GitHub's 403 secondary limit without Retry-After (quota left) to VendorRateLimited for a minute", async () => {
    const body = {
      message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      documentation_url: 'https://docs.github.com',
    };
    const err = await failure('github', { status: 403, headers: { 'x-ratelimit-remaining': '4990', 'x-ratelimit-reset': String(NOW / 1000 + 3000) }, body });
    expect(err).toBeInstanceOf(VendorRateLimited);
    expect((err as VendorRateLimited).retryAfterMs).toBe(60_000);
    const abuse = await failure('github', { status: 403, headers: {}, body: { message: 'You have triggered an abuse detection mechanism.' } });
    expect((abuse as VendorRateLimited).retryAfterMs).toBe(60_000);
    const on429 = await failure('github', { status: 429, headers: {}, body });
    expect((on429 as VendorRateLimited).retryAfterMs).toBe(60_000);
    // The same message from another vendor is an ordinary 403.
    expect(await failure('hubspot', { status: 403, headers: {}, body })).toBeInstanceOf(VendorRejected);
  });

  it("maps GitHub's 403 without rate-limit signals, and other vendors' 403, to VendorRejected", async () => {
    const gh = await failure('github', {
      status: 403,
      headers: { 'x-ratelimit-remaining': '4999' },
      body: { message: 'Resource not accessible by integration' },
    });
    expect(gh).toBeInstanceOf(VendorRejected);
    expect(gh.message).toBe('GitHub answered 403: Resource not accessible by integration');
    const hs = await failure('hubspot', { status: 403, headers: { 'retry-after': '5' }, body: {} });
    expect(hs).toBeInstanceOf(VendorRejected);
  });

  it('maps 5xx to VendorUnavailable naming vendor, status and the vendor message', async () => {
    const err = await failure('hubspot', { status: 502, body: { status: 'error', message: 'internal error', correlationId: 'c' } });
    expect(err).toBeInstanceOf(VendorUnavailable);
    expect(err.message).toBe('HubSpot answered 502: internal error');
    expect((err as VendorUnavailable).status).toBe(502);
  });

  it('maps 401 to VendorRejected telling to check or reconnect, and never echoes headers or queries', async () => {
    const err = await failure('twilio', { status: 401, body: { code: 20003, message: 'Authenticate', more_info: 'x' } });
    expect(err).toBeInstanceOf(VendorRejected);
    expect((err as VendorRejected).retryable).toBe(false);
    expect(err.message).toBe("Twilio answered 401: Authenticate (check the connection's credentials, or reconnect it)");
    const echoed = await failure('twilio', { status: 404, body: { message: 'The requested resource /Calls.json?token=s3cret was not found' } });
    expect(echoed.message).toBe('Twilio answered 404: The requested resource /Calls.json was not found');
    expect(echoed.message).not.toContain('s3cret');
  });

  it('cuts long vendor messages and ignores non-JSON bodies', async () => {
    const long = await failure('github', { status: 422, body: { message: 'x'.repeat(500) } });
    expect(long.message.length).toBeLessThan(240);
    const html = await failure('github', { status: 400, body: '<html>oops</html>' });
    expect(html.message).toBe('GitHub answered 400');
  });

  it('maps timeouts and network failures to VendorUnavailable, refused addresses to VendorRejected', async () => {
    const timeout = await failure('github', named('OutboundTimeout', 'Request to api.github.com timed out after 5000 ms'));
    expect(timeout).toBeInstanceOf(VendorUnavailable);
    expect(timeout.message).toBe('GitHub could not be reached: Request to api.github.com timed out after 5000 ms');
    expect(await failure('github', new Error('Request to api.github.com failed: ECONNRESET'))).toBeInstanceOf(VendorUnavailable);
    const refused = await failure('twilio', named('OutboundRefused', 'Address 10.0.0.1 of api.twilio.com is not public'));
    expect(refused).toBeInstanceOf(VendorRejected);
    expect(refused.message).not.toContain('s3cret');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP-dates, and nothing else', () => {
    expect(parseRetryAfter('5', NOW)).toBe(5000);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:10 GMT', NOW)).toBe(10_000);
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('-3', NOW)).toBeUndefined();
  });
});

describe('vendorMessage', () => {
  it("reads JSON's message and a plain-text body, never an HTML page", () => {
    expect(vendorMessage({ message: 'Bad credentials' })).toBe('Bad credentials');
    expect(vendorMessage('Request forbidden by administrative rules. Please make sure your request has a User-Agent header')).toBe(
      'Request forbidden by administrative rules. Please make sure your request has a User-Agent header',
    );
    expect(vendorMessage('<html><body>502 Bad Gateway</body></html>')).toBeUndefined();
    expect(vendorMessage('  ')).toBeUndefined();
    expect(vendorMessage({ message: 'see https://x.test/a?token=s3cret now' })).toBe('see https://x.test/a now');
  });
});
