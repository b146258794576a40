import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app/app';
import { createLogger } from '../src/logging/logger';
import { as, createConnection, expectError, startHarness, type Harness } from './harness';
import { createTestOrg, eventually, uniqueName, waitFor, type TestOrg } from './factories';
import { startVendorStubs, type VendorStubs } from './stubs/vendor-apis';

const MB = 1024 * 1024;
const PER_ORGANIZATION = 2;

let harness: Harness;
let stubs: VendorStubs;
let app: Express;
/** Has the stub's Twilio account as its only twilio connection. */
let orgB: TestOrg;
/** A twilio connection of its own (another account); never B's. */
let orgA: TestOrg;
/** No twilio connection at all. */
let orgNone: TestOrg;
let media: Buffer;
let sid: string;

const ref = (recordingSid: string) => `proxy+twilio:recording://${recordingSid}`;
const proxyUrl = (reference: string, extra = '') => `/dashboards/proxy?url=${encodeURIComponent(reference)}${extra}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const twilioRequests = () => stubs.requests.filter((r) => r.vendor === 'twilio');

/** supertest reads binary bodies into a Buffer with this. */
function binary(res: request.Response, done: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

function getMedia(org: TestOrg, url: string, headers: Record<string, string> = {}, on: Express = app) {
  return request(on).get(url).set('Authorization', `Bearer ${org.tokens.viewer}`).set(headers).buffer(true).parse(binary);
}

/** Every place a credential could leak in an answer. */
function expectNoSecrets(res: request.Response) {
  const seen = JSON.stringify(res.headers) + (Buffer.isBuffer(res.body) ? res.body.toString('latin1') : JSON.stringify(res.body));
  for (const secret of [stubs.twilio.authToken, basic(stubs.twilio.accountSid, stubs.twilio.authToken).slice(6)]) expect(seen).not.toContain(secret);
}

beforeAll(async () => {
  stubs = await startVendorStubs();
  harness = await startHarness({
    configure: (config) => {
      config.vendors.baseUrls = { ...config.vendors.baseUrls, twilio: stubs.urls.twilio };
      config.steps.httpAllowList = [...stubs.allowList];
      config.proxy = { ...config.proxy, maxStreamsPerOrganization: PER_ORGANIZATION, headersTimeoutMs: 3000, idleTimeoutMs: 2000 };
    },
  });
  app = harness.app;
  [orgA, orgB, orgNone] = await Promise.all([createTestOrg(harness.services), createTestOrg(harness.services), createTestOrg(harness.services)]);
  await createConnection(app, orgB, { name: 'twilio_main', type: 'twilio', config: stubs.twilio.connectionConfig });
  await createConnection(app, orgA, {
    name: 'twilio_other',
    type: 'twilio',
    config: { accountSid: `AC${randomBytes(16).toString('hex')}`, authToken: 'a-token' },
  });
  media = randomBytes(3 * MB);
  sid = stubs.twilio.addRecording({ body: media, contentType: 'audio/mpeg' }).sid;
}, 60_000);

afterAll(async () => {
  await harness?.close();
  await stubs?.close();
});

describe('streaming a recording', () => {
  test("a viewer gets the whole body with the upstream's content type, fetched with the connection's Basic auth only", async () => {
    const before = twilioRequests().length;
    const res = await getMedia(orgB, proxyUrl(ref(sid)));
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'audio/mpeg',
      'content-length': String(media.length),
      'accept-ranges': 'bytes',
      'cache-control': 'private',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    expect((res.body as Buffer).equals(media)).toBe(true);
    const sent = twilioRequests().slice(before);
    expect(sent.map((r) => [r.method, r.path])).toEqual([['GET', `/2010-04-01/Accounts/${stubs.twilio.accountSid}/Recordings/${sid}`]]);
    // The connection's credentials as Basic auth; nothing of the caller's (its bearer token) goes upstream.
    expect(sent[0].headers.authorization).toBe(basic(stubs.twilio.accountSid, stubs.twilio.authToken));
    expect(JSON.stringify(sent[0].headers)).not.toContain(orgB.tokens.viewer);
    expectNoSecrets(res);
  });

  test('a body the vendor labels as anything but audio is sent as application/octet-stream, never rendered from our origin', async () => {
    const page = stubs.twilio.addRecording({ body: Buffer.from('<script>alert(1)</script>'), contentType: 'text/html; charset=utf-8' });
    const res = await getMedia(orgB, proxyUrl(ref(page.sid)));
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'x-content-type-options': 'nosniff' });
    expect(res.headers['content-security-policy']).toContain('sandbox');
  });

  test('HEAD answers the headers without the body', async () => {
    const res = await request(app)
      .head(proxyUrl(ref(sid)))
      .set('Authorization', `Bearer ${orgB.tokens.viewer}`);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'audio/mpeg', 'content-length': String(media.length), 'cache-control': 'private' });
  });

  test.each([
    ['mp3', '.mp3', 'audio/mpeg'],
    ['wav', '.wav', 'audio/x-wav'],
  ])('format=%s asks Twilio for %s and mirrors %s', async (format, suffix, type) => {
    const before = twilioRequests().length;
    const res = await getMedia(orgB, proxyUrl(ref(sid), `&format=${format}`));
    expect([res.status, res.headers['content-type']]).toEqual([200, type]);
    expect(twilioRequests().slice(before)[0].path).toMatch(new RegExp(`/Recordings/${sid}\\${suffix}$`));
  });

  test('an unsupported format is 400 invalid_format, before Twilio is asked', async () => {
    const before = twilioRequests().length;
    expectError(await as(app, orgB.tokens.viewer).get(proxyUrl(ref(sid), '&format=ogg')), 400, 'invalid_format');
    expect(twilioRequests().length).toBe(before);
  });

  test('a Range passes through: 206, its Content-Range and exactly that slice', async () => {
    const before = twilioRequests().length;
    const res = await getMedia(orgB, proxyUrl(ref(sid)), { Range: 'bytes=1000-1999', 'X-Other': 'not forwarded' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 1000-1999/${media.length}`);
    expect(res.headers['content-length']).toBe('1000');
    expect((res.body as Buffer).equals(media.subarray(1000, 2000))).toBe(true);
    const seen = twilioRequests().slice(before)[0].headers;
    expect([seen.range, seen['x-other']]).toEqual(['bytes=1000-1999', undefined]);
  });

  test('a suffix range works too; a range past the end is 416 naming the size', async () => {
    const tail = await getMedia(orgB, proxyUrl(ref(sid)), { Range: 'bytes=-10' });
    expect([tail.status, (tail.body as Buffer).equals(media.subarray(media.length - 10))]).toEqual([206, true]);
    const past = await as(app, orgB.tokens.viewer)
      .get(proxyUrl(ref(sid)))
      .set('Range', `bytes=${media.length + 5}-`);
    expectError(past, 416, 'range_not_satisfiable');
    expect(past.body.error.message).toContain(`${media.length} bytes`);
  });
});

describe('refusals', () => {
  test('no url is 400 url_required; no token is 401', async () => {
    expectError(await as(app, orgB.tokens.viewer).get('/dashboards/proxy'), 400, 'url_required');
    expectError(await request(app).get(proxyUrl(ref(sid))), 401);
  });

  test.each([
    `https://api.twilio.com/2010-04-01/Accounts/AC1/Recordings/${'RE'.padEnd(34, '0')}`,
    'http://169.254.169.254/latest/meta-data',
    'twilio:recording://RE0123456789abcdef0123456789abcdef',
    'proxy+twilio:recording://RE0123',
    'proxy+twilio:recording://RE0123456789abcdef0123456789abcdef/../../Calls.json',
  ])('%s is 400 invalid_reference and reaches no vendor', async (url) => {
    const before = stubs.requests.length;
    expectError(await as(app, orgB.tokens.viewer).get(proxyUrl(url)), 400, 'invalid_reference');
    expect(stubs.requests.length).toBe(before);
  });

  test.each(['proxy+twilio:call://CA0123456789abcdef0123456789abcdef', 'proxy+dropbox:file://abc'])('%s is 404 unknown_reference_type', async (url) => {
    expectError(await as(app, orgB.tokens.viewer).get(proxyUrl(url)), 404, 'unknown_reference_type');
  });

  test('an organization without a twilio connection gets 404 connection_not_found', async () => {
    const before = stubs.requests.length;
    const res = await as(app, orgNone.tokens.viewer).get(proxyUrl(ref(sid)));
    expectError(res, 404, 'connection_not_found');
    expect(stubs.requests.length).toBe(before);
  });

  test('a recording Twilio does not have is 404 upstream_error', async () => {
    const res = await as(app, orgB.tokens.viewer).get(proxyUrl(ref(`RE${randomBytes(16).toString('hex')}`)));
    expectError(res, 404, 'upstream_error');
    expect(res.body.error.message).toContain('twilio_main');
    expectNoSecrets(res);
  });

  test.each([
    [500, 'upstream_error'],
    [503, 'upstream_error'],
    [0, 'upstream_unreachable'],
  ])('an upstream answering %i is 404 %s', async (status, code) => {
    stubs.failNext('twilio', 1, { status });
    const res = await as(app, orgB.tokens.viewer).get(proxyUrl(ref(sid)));
    expectError(res, 404, code);
    expectNoSecrets(res);
  });

  test('an upstream that keeps the headers waiting past the deadline is 404 upstream_unreachable', async () => {
    stubs.setDelay(4000);
    try {
      const res = await as(app, orgB.tokens.viewer).get(proxyUrl(ref(sid)));
      expectError(res, 404, 'upstream_unreachable');
      // The stub would answer after 4 s: this error, not its 200, shows the 3 s deadline fired.
      expect(res.body.error.message).toContain('did not answer in time');
    } finally {
      stubs.setDelay(0);
    }
  });

  test('an empty body is 404 upstream_empty', async () => {
    const empty = stubs.twilio.addRecording({ body: Buffer.alloc(0), contentType: 'audio/mpeg' }).sid;
    expectError(await as(app, orgB.tokens.viewer).get(proxyUrl(ref(empty))), 404, 'upstream_empty');
  });
});

describe('choosing the connection', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createTestOrg(harness.services);
    await createConnection(app, org, { name: 'twilio_sales', type: 'twilio', config: stubs.twilio.connectionConfig });
    await createConnection(app, org, { name: 'twilio_support', type: 'twilio', config: { accountSid: `AC${'0'.repeat(32)}`, authToken: 'x' } });
    await createConnection(app, org, { name: 'not_twilio', type: 'api-key', config: { apiKey: 'k' } });
  });

  test('several twilio connections and none named is 400 connection_ambiguous, listing them', async () => {
    const res = await as(app, org.tokens.viewer).get(proxyUrl(ref(sid)));
    expectError(res, 400, 'connection_ambiguous');
    expect(res.body.error.message).toContain('"twilio_sales", "twilio_support"');
  });

  test('the connection parameter picks one', async () => {
    const res = await getMedia(org, proxyUrl(ref(sid), '&connection=twilio_sales'));
    expect([res.status, (res.body as Buffer).length]).toEqual([200, media.length]);
    // The other account's credentials: Twilio refuses them.
    expectError(await as(app, org.tokens.viewer).get(proxyUrl(ref(sid), '&connection=twilio_support')), 404, 'upstream_error');
  });

  test('a name that is no twilio connection of the organization is 404 connection_not_found', async () => {
    for (const name of ['nope', 'not_twilio', 'twilio_main' /* orgB's */]) {
      expectError(await as(app, org.tokens.viewer).get(proxyUrl(ref(sid), `&connection=${name}`)), 404, 'connection_not_found');
    }
  });
});

describe('tenancy', () => {
  test("the same reference resolves through each organization's own connection only", async () => {
    const before = twilioRequests().length;
    expect((await getMedia(orgB, proxyUrl(ref(sid)))).status).toBe(200);
    // A's connection is another Twilio account: Twilio refuses it; B's credentials are never tried for A.
    expectError(await as(app, orgA.tokens.viewer).get(proxyUrl(ref(sid))), 404, 'upstream_error');
    const [forB, forA] = twilioRequests().slice(before);
    expect(forB.headers.authorization).toBe(basic(stubs.twilio.accountSid, stubs.twilio.authToken));
    expect(forA.headers.authorization).toBe(basic(forA.path.split('/')[3], 'a-token'));
    expect(forA.path).not.toContain(stubs.twilio.accountSid);
  });
});

describe('logs', () => {
  test('neither the credentials nor the upstream URL reach the logs, on success or failure', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'debug',
      new Writable({
        write: (chunk, _enc, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const proxy = harness.services.proxy as any;
    const original = proxy.logger;
    proxy.logger = logger;
    try {
      const logged = createApp({ ...harness.services, logger });
      expect((await getMedia(orgB, proxyUrl(ref(sid)), {}, logged)).status).toBe(200);
      stubs.failNext('twilio', 1, { status: 500 });
      expect((await getMedia(orgB, proxyUrl(ref(sid)), {}, logged)).status).toBe(404);
      expect((await getMedia(orgA, proxyUrl(ref(sid)), {}, logged)).status).toBe(404);
    } finally {
      proxy.logger = original;
    }
    const text = lines.join('');
    expect(text).toContain('proxy upstream failed');
    for (const secret of [stubs.twilio.authToken, 'a-token', basic(stubs.twilio.accountSid, stubs.twilio.authToken).slice(6), stubs.urls.twilio, sid]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('the SSRF guard', () => {
  test('a base URL that is not allow-listed is refused: 404 upstream_unreachable, and the stub is never reached', async () => {
    const strict = await startHarness({
      configure: (config) => {
        config.vendors.baseUrls = { ...config.vendors.baseUrls, twilio: stubs.urls.twilio };
        config.steps.httpAllowList = [];
      },
    });
    try {
      const org = await createTestOrg(strict.services);
      await createConnection(strict.app, org, { name: 'twilio_main', type: 'twilio', config: stubs.twilio.connectionConfig });
      const before = stubs.requests.length;
      const res = await as(strict.app, org.tokens.viewer).get(proxyUrl(ref(sid)));
      expectError(res, 404, 'upstream_unreachable');
      expect(res.body.error.message).toContain('HTTP_OUTBOUND_ALLOW');
      expect(stubs.requests.length).toBe(before);
    } finally {
      await strict.close();
    }
  }, 60_000);
});

describe('open streams', () => {
  let server: http.Server;
  let base: string;
  let big: string;
  const opened: http.ClientRequest[] = [];
  /** The proxy's answers on `server`, in order of arrival, to see whether one is held up by its caller. */
  const answers: http.ServerResponse[] = [];

  beforeAll(async () => {
    big = stubs.twilio.addRecording({ body: randomBytes(16 * MB), contentType: 'audio/mpeg' }).sid;
    server = http.createServer(app);
    server.on('request', (_req, res: http.ServerResponse) => answers.push(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    opened.forEach((req) => req.destroy());
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Starts a download, waits for its first bytes, then stops reading (the caller still holds the stream). */
  function openStream(org: TestOrg): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}${proxyUrl(ref(big))}`, { headers: { Authorization: `Bearer ${org.tokens.viewer}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
        res.once('data', () => {
          res.pause();
          resolve({ req, res });
        });
      });
      req.on('error', () => undefined);
      opened.push(req);
    });
  }

  const running = (org: TestOrg) => (harness.services.proxy as any).slots.stats(org.organizationId).running as number;

  test(`past ${PER_ORGANIZATION} open streams an organization gets 429 proxy_busy; another organization is not held up`, async () => {
    const streams = await Promise.all(Array.from({ length: PER_ORGANIZATION }, () => openStream(orgB)));
    const refused = await as(app, orgB.tokens.viewer).get(proxyUrl(ref(sid)));
    expectError(refused, 429, 'proxy_busy');
    expect(refused.headers['retry-after']).toBeDefined();
    const other = await createTestOrg(harness.services);
    await createConnection(app, other, { name: uniqueName('twilio'), type: 'twilio', config: stubs.twilio.connectionConfig });
    expect((await getMedia(other, proxyUrl(ref(sid)))).status).toBe(200);
    streams.forEach(({ req }) => req.destroy());
    await eventually(
      async () => running(orgB),
      (n) => n === 0,
      10_000,
    );
    expect((await getMedia(orgB, proxyUrl(ref(sid)))).status).toBe(200);
  });

  test('a caller leaving mid-stream releases the upstream request and its slot', async () => {
    // Paused after its first bytes, the caller holds the stream: 16 MB cannot all sit in socket buffers, so it cannot end by itself.
    const { req } = await openStream(orgB);
    const answer = answers.at(-1)!;
    // Back-pressure reached the proxy: it has written all the caller takes and waits for room, the upstream stream still open.
    await waitFor(() => answer.writableNeedDrain, { timeoutMs: 10_000, what: 'the proxy waiting for the paused caller' });
    expect(answer.writableFinished).toBe(false);
    expect(running(orgB)).toBe(1);
    req.destroy();
    await eventually(
      async () => running(orgB),
      (n) => n === 0,
      10_000,
    );
  });
});
