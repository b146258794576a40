import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import {
  createOutboundHttp,
  OutboundInvalidUrl,
  OutboundRedirectRefused,
  OutboundRefused,
  OutboundResponseTooLarge,
  OutboundTimeout,
  OutboundTooManyRedirects,
  type OutboundHttp,
  type OutboundRequest,
} from './outbound-http';

/** Echoes what arrived; a few paths misbehave on purpose. */
function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const to = url.searchParams.get('to');
    if (url.pathname === '/redirect' && to) {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
    } else if (url.pathname.startsWith('/chain/')) {
      const n = Number(url.pathname.slice('/chain/'.length));
      if (n > 0) res.writeHead(302, { location: `${n - 1}` }).end();
      else res.end('end of chain');
    } else if (url.pathname === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain', 'X-Multi': ['a', 'b'] }).end('plain {"not":"json"}');
    } else if (url.pathname === '/problem') {
      res.writeHead(400, { 'content-type': 'application/problem+json; charset=utf-8' }).end('{"title":"bad"}');
    } else if (url.pathname === '/broken-json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{oops');
    } else if (url.pathname === '/empty') {
      res.writeHead(204).end();
    } else if (url.pathname === '/hang') {
      // never answers
    } else if (url.pathname === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    } else if (url.pathname === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024, 'x'));
      res.end();
    } else if (url.pathname === '/big-declared') {
      res.writeHead(200, { 'content-length': 4096 }).end(Buffer.alloc(4096, 'x'));
    } else {
      const echo = { method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo));
    }
  });
}

interface TestServer {
  server: http.Server;
  port: number;
  hits: number;
}

async function startServer(): Promise<TestServer> {
  const state = { server: http.createServer(), port: 0, hits: 0 };
  state.server.on('request', (req, res) => {
    state.hits++;
    handler(req, res);
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

let main: TestServer;
let other: TestServer;
let client: OutboundHttp;
let strict: OutboundHttp;
const clients: OutboundHttp[] = [];
const base = () => `http://127.0.0.1:${main.port}`;

function make(allowList: string[], maxResponseBytes = 16 * 1024): OutboundHttp {
  const made = createOutboundHttp({ allowList, maxResponseBytes, maxRedirects: 3 });
  clients.push(made);
  return made;
}

function send(on: OutboundHttp, url: string, extra: Partial<OutboundRequest> = {}) {
  return on.request({ url, method: 'GET', headers: {}, timeoutMs: 5000, ...extra });
}

beforeAll(async () => {
  main = await startServer();
  other = await startServer();
  client = make([`127.0.0.1:${main.port}`]);
  strict = make([]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of [main, other]) {
    s.server.closeAllConnections();
    s.server.close();
  }
});

describe('requests to an allow-listed server', () => {
  test.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s reaches it, JSON is parsed', async (method) => {
    const body = method === 'GET' ? undefined : '{"a":1}';
    const res = await send(client, `${base()}/echo?q=1`, { method, body, headers: { 'X-Token': 't' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ method, path: '/echo?q=1', body: body ?? '' });
    expect((res.body as { headers: Record<string, string> }).headers['x-token']).toBe('t');
    expect(JSON.parse(res.text!)).toEqual(res.body);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.url).toBe(`${base()}/echo?q=1`);
  });

  test('HEAD and 204 give an empty text', async () => {
    const head = await send(client, `${base()}/echo`, { method: 'HEAD' });
    expect([head.status, head.text, head.body]).toEqual([200, '', '']);
    const empty = await send(client, `${base()}/empty`);
    expect([empty.status, empty.text, empty.body]).toEqual([204, '', '']);
  });

  test('non-JSON stays text; headers are lower-case and repeated ones joined', async () => {
    const res = await send(client, `${base()}/text`);
    expect(res.body).toBe('plain {"not":"json"}');
    expect(res.headers['x-multi']).toBe('a, b');
    expect(Object.keys(res.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  test('+json is parsed, unparsable JSON stays text', async () => {
    expect((await send(client, `${base()}/problem`)).body).toEqual({ title: 'bad' });
    expect((await send(client, `${base()}/broken-json`)).body).toBe('{oops');
  });

  test('a hostname is connected by its checked IP but keeps its Host header', async () => {
    const res = await send(client, `http://localhost:${main.port}/echo`);
    expect((res.body as { headers: Record<string, string> }).headers.host).toBe(`localhost:${main.port}`);
  });
});

describe('SSRF guard', () => {
  test.each([
    () => `http://127.0.0.1:${main.port}/`,
    () => `http://localhost:${main.port}/`,
    () => `http://2130706433:${main.port}/`,
    () => `http://0x7f000001:${main.port}/`,
    () => `http://0x7f.1:${main.port}/`,
    () => `http://[::1]:${main.port}/`,
    () => `http://[::ffff:127.0.0.1]:${main.port}/`,
    () => `http://[::127.0.0.1]:${main.port}/`,
    () => `http://[64:ff9b::7f00:1]:${main.port}/`,
    () => `http://[2002:7f00:1::1]:${main.port}/`,
  ])('loopback is refused without an allow-list (%#)', async (url) => {
    const hits = main.hits;
    await expect(send(strict, url())).rejects.toThrow(OutboundRefused);
    expect(main.hits).toBe(hits);
  });

  test.each([
    ['http://169.254.169.254/latest/meta-data', 'link-local address'],
    ['http://[::ffff:169.254.169.254]/', 'link-local address'],
    ['http://[::ffff:a9fe:a9fe]/', 'link-local address'],
    ['http://0xa9fea9fe/', 'link-local address'],
    ['http://2852039166/', 'link-local address'],
    ['http://10.0.0.1/', 'private address'],
    ['http://192.168.1.1/', 'private address'],
    ['http://100.64.0.1/', 'carrier-grade NAT address'],
    ['http://[fd00::1]/', 'unique-local address'],
    ['http://0.0.0.0/', 'unspecified address'],
    ['https://169.254.169.254/', 'link-local address'],
    ['http://[::a9fe:a9fe]/', 'link-local address'],
    ['http://[::169.254.169.254]/', 'link-local address'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'link-local address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'link-local address'],
    ['http://[64:ff9b:1::808:808]/', 'local-use NAT64 address'],
    ['http://[2002:a9fe:a9fe::1]/', 'link-local address'],
    ['http://[2001:0:808:808:8000:63bf:5601:5601]/', 'link-local address'],
    ['http://[2606:4700::5efe:a9fe:a9fe]/', 'link-local address'],
  ])('%s is refused before any connection (%s)', async (url, reason) => {
    const err = await send(strict, url, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect((err as Error).message).toContain(`(${reason}): address not allowed`);
    expect((err as Error).message).toContain('HTTP_OUTBOUND_ALLOW');
    // Only the host as the URL spells it (the record shows that too), no address it was turned into.
    for (const ipv4 of (err as Error).message.match(/\d+\.\d+\.\d+\.\d+/g) ?? []) expect(new URL(url).host).toContain(ipv4);
  });

  test('the message names the host and the kind of range, never the address it resolved to', async () => {
    await expect(send(strict, 'http://[::a9fe:a9fe]/')).rejects.toThrow(
      'Refused to connect to ::a9fe:a9fe (link-local address): address not allowed; an operator can allow it in HTTP_OUTBOUND_ALLOW',
    );
    const err = (await send(strict, `http://localhost:${main.port}/`).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^Refused to connect to localhost \(loopback address\): address not allowed;/);
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  test('an embedded form is allowed by its IPv4 entry', async () => {
    const res = await send(make([`127.0.0.1:${main.port}`]), `http://[::ffff:127.0.0.1]:${main.port}/echo`);
    expect(res.status).toBe(200);
    await expect(send(make([`127.0.0.1:${main.port}`]), `http://[::ffff:127.0.0.1]:${other.port}/echo`)).rejects.toThrow(
      `not allow-listed on port ${other.port}`,
    );
  });

  test('an allow-list entry for another port still refuses; a CIDR allows', async () => {
    await expect(send(make([`127.0.0.1:${other.port}`]), `${base()}/echo`)).rejects.toThrow(`not allow-listed on port ${main.port}`);
    expect((await send(make(['127.0.0.0/8']), `${base()}/echo`)).status).toBe(200);
  });

  test('a redirect to the metadata address is refused', async () => {
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data');
    await expect(send(client, `${base()}/redirect?to=${to}`)).rejects.toThrow(OutboundRefused);
  });

  test('a redirect to a loopback port that is not allow-listed is refused', async () => {
    const hits = other.hits;
    const to = encodeURIComponent(`http://127.0.0.1:${other.port}/echo`);
    await expect(send(client, `${base()}/redirect?to=${to}`)).rejects.toThrow(`port ${other.port}`);
    expect(other.hits).toBe(hits);
  });
});

describe('redirects', () => {
  test('a chain within the allowed server is followed, relative Locations included', async () => {
    const res = await send(client, `${base()}/chain/3`);
    expect([res.status, res.text, res.url]).toEqual([200, 'end of chain', `${base()}/chain/0`]);
  });

  test('more than maxRedirects throws', async () => {
    await expect(send(client, `${base()}/chain/4`)).rejects.toThrow(OutboundTooManyRedirects);
  });

  test.each([
    [303, 'POST', 'GET', ''],
    [302, 'POST', 'GET', ''],
    [303, 'PUT', 'GET', ''],
    [307, 'POST', 'POST', 'payload'],
    [308, 'PUT', 'PUT', 'payload'],
    [302, 'PUT', 'PUT', 'payload'],
  ])('%i after %s continues as %s', async (status, method, expected, body) => {
    const res = await send(client, `${base()}/redirect?status=${status}&to=/echo`, {
      method,
      body: 'payload',
      headers: { 'Content-Type': 'text/plain' },
    });
    const echo = res.body as { method: string; body: string; headers: Record<string, string> };
    expect([echo.method, echo.body]).toEqual([expected, body]);
    expect(echo.headers['content-type']).toBe(body ? 'text/plain' : undefined);
  });

  describe('to another origin', () => {
    let both: OutboundHttp;
    const headers = { Authorization: 'Bearer s3cret', Cookie: 'c=1', 'X-Api-Key': 'k3y', 'X-Kept': 'yes', Host: 'spoofed.example' };
    const toOther = (status = 302) => `${base()}/redirect?status=${status}&to=${encodeURIComponent(`http://127.0.0.1:${other.port}/echo`)}`;
    const seenBy = (res: { body: unknown }) => (res.body as { headers: Record<string, string> }).headers;
    beforeAll(() => {
      both = make([`127.0.0.1:${main.port}`, `127.0.0.1:${other.port}`]);
    });

    test('every header the step set survives a same-origin redirect', async () => {
      const seen = seenBy(await send(both, `${base()}/redirect?to=/echo`, { headers }));
      expect([seen.authorization, seen.cookie, seen['x-api-key'], seen['x-kept']]).toEqual(['Bearer s3cret', 'c=1', 'k3y', 'yes']);
    });

    test.each([301, 302, 303, 307, 308])('a %i drops every header the step set', async (status) => {
      const res = await send(both, toOther(status), { headers });
      expect(res.url).toBe(`http://127.0.0.1:${other.port}/echo`);
      const seen = seenBy(res);
      expect(['authorization', 'cookie', 'x-api-key', 'x-kept'].filter((name) => name in seen)).toEqual([]);
      expect(seen.host).toBe(`127.0.0.1:${other.port}`); // not the Host the step set
    });

    test('a 303 after POST continues as a GET without the body or the step headers', async () => {
      const res = await send(both, toOther(303), { method: 'POST', body: 'payload', headers: { ...headers, 'Content-Type': 'text/plain' } });
      const echo = res.body as { method: string; body: string; headers: Record<string, string> };
      expect([echo.method, echo.body, echo.headers['content-type'], echo.headers.authorization]).toEqual(['GET', '', undefined, undefined]);
    });

    test.each([
      [307, 'POST'],
      [308, 'PUT'],
      [307, 'DELETE'],
      // 301/302 keep the method and body of anything but POST, so they are refused the same way.
      [302, 'PUT'],
      [301, 'PATCH'],
    ])('a %i of a %s with a body is not followed: the body is not re-sent', async (status, method) => {
      const hits = other.hits;
      const err = (await send(both, toOther(status), { method, body: 'SECRET-BODY', headers }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(OutboundRedirectRefused);
      expect(err.message).toBe(`Redirect (${status}) to 127.0.0.1:${other.port} not followed: the request body is not re-sent to another origin`);
      expect(other.hits).toBe(hits);
    });

    test('a 307 of a request without a body is followed, without the step headers', async () => {
      const res = await send(both, toOther(307), { method: 'DELETE', headers });
      const echo = res.body as { method: string; headers: Record<string, string> };
      expect([echo.method, echo.headers.authorization, echo.headers['x-kept']]).toEqual(['DELETE', undefined, undefined]);
    });

    test('a 307 to the same origin keeps method, body and headers', async () => {
      const res = await send(both, `${base()}/redirect?status=307&to=/echo`, { method: 'POST', body: 'payload', headers: { 'X-Api-Key': 'k3y' } });
      const echo = res.body as { method: string; body: string; headers: Record<string, string> };
      expect([echo.method, echo.body, echo.headers['x-api-key']]).toEqual(['POST', 'payload', 'k3y']);
    });

    test('headers dropped on the way out do not come back when a later redirect returns to the first origin', async () => {
      const back = encodeURIComponent(`${base()}/echo`);
      const via = encodeURIComponent(`http://127.0.0.1:${other.port}/redirect?to=${back}`);
      const res = await send(both, `${base()}/redirect?to=${via}`, { headers });
      expect(seenBy(res)['x-kept']).toBeUndefined();
    });
  });

  test('a redirect to another scheme is an invalid URL', async () => {
    await expect(send(client, `${base()}/redirect?to=file:///etc/passwd`)).rejects.toThrow(OutboundInvalidUrl);
  });
});

describe('failures', () => {
  const secret = { headers: { authorization: 'Bearer SECRET-TOKEN' }, body: 'SECRET-BODY', method: 'POST' };
  // What a loaded 2-core machine still guarantees: the step's own deadline fired, never before it and well before
  // undici's own timeouts (10 s to connect, 300 s for headers and body). How soon after the deadline it fires is a
  // measurement, not a test: bench/outbound-timeouts.ts.
  const WELL_BEFORE_UNDICI_MS = 5000;

  test.each([
    ['a server that never answers', '/hang'],
    ['a body that never ends', '/slow-body'],
  ])('%s times out within about timeoutMs', async (_, path) => {
    const started = Date.now();
    const err = await send(client, `${base()}${path}`, { ...secret, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundTimeout);
    expect((err as Error).message).toBe(`Request to 127.0.0.1:${main.port} timed out after 300 ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(WELL_BEFORE_UNDICI_MS);
  });

  test('a TLS handshake that never completes (connect phase) times out too', async () => {
    // Accepts TCP and stays silent, so undici never gets past connecting.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    try {
      await expect(send(make(['127.0.0.1']), `https://127.0.0.1:${port}/`, { timeoutMs: 300 })).rejects.toThrow(OutboundTimeout);
      expect(Date.now() - started).toBeLessThan(WELL_BEFORE_UNDICI_MS);
    } finally {
      // Otherwise the Agent keeps connecting until undici's 10 s connect timeout and close() waits for it.
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  });

  test('a body larger than maxResponseBytes is cut off, streamed or declared', async () => {
    const small = make([`127.0.0.1:${main.port}`], 2048);
    await expect(send(small, `${base()}/big`)).rejects.toThrow(OutboundResponseTooLarge);
    await expect(send(small, `${base()}/big-declared`)).rejects.toThrow('larger than 2048 bytes');
    await expect(send(make([`127.0.0.1:${main.port}`], 4096), `${base()}/big-declared`)).resolves.toMatchObject({
      status: 200,
    });
  });

  test('connection refused is a plain Error naming the host, without headers or body', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = (await send(make(['127.0.0.1']), `http://127.0.0.1:${port}/`, secret).catch((e: unknown) => e)) as Error;
    expect(err.constructor).toBe(Error);
    expect(err.message).toMatch(new RegExp(`^Request to 127\\.0\\.0\\.1:${port} failed: .*ECONNREFUSED`));
    expect(err.message).not.toMatch(/SECRET/);
  });

  test('a DNS failure is a plain Error naming the host', async () => {
    const err = (await send(strict, 'http://does-not-exist.invalid/').catch((e: unknown) => e)) as Error;
    expect(err.constructor).toBe(Error);
    expect(err.message).toContain('does-not-exist.invalid');
  });

  test.each(['ftp://example.com/', 'not a url', 'http://user:pass@example.com/', 'javascript:alert(1)'])('%s is an invalid URL', async (url) => {
    await expect(send(strict, url)).rejects.toThrow(OutboundInvalidUrl);
  });
});
