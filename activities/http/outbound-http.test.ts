import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import {
  createOutboundHttp,
  OutboundInvalidUrl,
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
    expect(JSON.parse(res.text)).toEqual(res.body);
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
  ])('%s is refused before any connection (%s)', async (url, reason) => {
    const started = Date.now();
    const err = await send(strict, url, { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect((err as Error).message).toContain(reason);
    expect((err as Error).message).toContain('HTTP_OUTBOUND_ALLOW');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test('the message names the host and how to allow it', async () => {
    await expect(send(strict, 'http://169.254.169.254/')).rejects.toThrow(
      'Refused to connect to 169.254.169.254 (link-local address); an operator can allow it by adding 169.254.169.254 to HTTP_OUTBOUND_ALLOW',
    );
  });

  test('an allow-list entry for another port still refuses; a CIDR allows', async () => {
    await expect(send(make([`127.0.0.1:${other.port}`]), `${base()}/echo`)).rejects.toThrow(
      `not allow-listed on port ${main.port}`,
    );
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

  test('authorization survives a same-origin redirect and is dropped across origins', async () => {
    const both = make([`127.0.0.1:${main.port}`, `127.0.0.1:${other.port}`]);
    const headers = { Authorization: 'Bearer s3cret', Cookie: 'c=1', 'X-Kept': 'yes' };
    const same = await send(both, `${base()}/redirect?to=/echo`, { headers });
    expect((same.body as { headers: Record<string, string> }).headers.authorization).toBe('Bearer s3cret');
    const to = encodeURIComponent(`http://127.0.0.1:${other.port}/echo`);
    const cross = await send(both, `${base()}/redirect?to=${to}`, { headers });
    const seen = (cross.body as { headers: Record<string, string> }).headers;
    expect([seen.authorization, seen.cookie, seen['x-kept']]).toEqual([undefined, undefined, 'yes']);
  });

  test('a redirect to another scheme is an invalid URL', async () => {
    await expect(send(client, `${base()}/redirect?to=file:///etc/passwd`)).rejects.toThrow(OutboundInvalidUrl);
  });
});

describe('failures', () => {
  const secret = { headers: { authorization: 'Bearer SECRET-TOKEN' }, body: 'SECRET-BODY', method: 'POST' };

  test.each([
    ['a server that never answers', '/hang'],
    ['a body that never ends', '/slow-body'],
  ])('%s times out within about timeoutMs', async (_, path) => {
    const started = Date.now();
    const err = await send(client, `${base()}${path}`, { ...secret, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundTimeout);
    expect((err as Error).message).toBe(`Request to 127.0.0.1:${main.port} timed out after 300 ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test('a TLS handshake that never completes (connect phase) times out too', async () => {
    // Accepts TCP and stays silent, so undici never gets past connecting.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    try {
      await expect(send(make(['127.0.0.1']), `https://127.0.0.1:${port}/`, { timeoutMs: 300 })).rejects.toThrow(
        OutboundTimeout,
      );
      expect(Date.now() - started).toBeLessThan(1500);
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

  test.each(['ftp://example.com/', 'not a url', 'http://user:pass@example.com/', 'javascript:alert(1)'])(
    '%s is an invalid URL',
    async (url) => {
      await expect(send(strict, url)).rejects.toThrow(OutboundInvalidUrl);
    },
  );
});
