import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { createOutboundHttp, OutboundRefused, OutboundTimeout, type OutboundHttp, type OutboundStreamRequest } from './outbound-http';

const MB = 1024 * 1024;
/** Deterministic bytes, so a slice can be checked against the whole. */
const media = Buffer.from(Array.from({ length: 4 * MB }, (_, i) => (i * 31 + 7) % 256));

interface TestServer {
  server: http.Server;
  port: number;
  seen: http.IncomingHttpHeaders[];
  /** Requests whose response ended early because the client went away. */
  abandoned: number;
}

function handler(state: TestServer, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  state.seen.push(req.headers);
  res.on('close', () => {
    if (!res.writableFinished) state.abandoned++;
  });
  const to = url.searchParams.get('to');
  if (url.pathname === '/redirect' && to) {
    res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
  } else if (url.pathname === '/media') {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      res.writeHead(206, { 'content-type': 'audio/mpeg', 'content-range': `bytes ${start}-${end}/${media.length}`, 'content-length': end - start + 1 });
      res.end(media.subarray(start, end + 1));
    } else {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': media.length, 'accept-ranges': 'bytes' });
      res.end(media);
    }
  } else if (url.pathname === '/echo') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
  } else if (url.pathname === '/missing') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":20404}');
  } else if (url.pathname === '/hang') {
    // never answers
  } else if (url.pathname === '/stall') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first part');
  } else if (url.pathname === '/trickle') {
    // One chunk, then the rest only when the test asks: lets a test see the first bytes before the body ends.
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first part');
    trickleEnd = () => res.end(' and the rest');
  } else {
    res.writeHead(404).end();
  }
}

let trickleEnd: (() => void) | undefined;

async function startServer(): Promise<TestServer> {
  const state: TestServer = { server: http.createServer(), port: 0, seen: [], abandoned: 0 };
  state.server.on('request', (req, res) => handler(state, req, res));
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let main: TestServer;
let other: TestServer;
let client: OutboundHttp;
let strict: OutboundHttp;
const base = () => `http://127.0.0.1:${main.port}`;

function open(on: OutboundHttp, url: string, extra: Partial<OutboundStreamRequest> = {}) {
  return on.stream({ url, headers: {}, headersTimeoutMs: 5000, idleTimeoutMs: 5000, ...extra });
}

beforeAll(async () => {
  main = await startServer();
  other = await startServer();
  client = createOutboundHttp({ allowList: [`127.0.0.1:${main.port}`, `127.0.0.1:${other.port}`], maxResponseBytes: 1024, maxRedirects: 3 });
  strict = createOutboundHttp({ allowList: [], maxResponseBytes: 1024, maxRedirects: 3 });
});

afterAll(async () => {
  await Promise.all([client.close(), strict.close()]);
  for (const s of [main, other]) {
    s.server.closeAllConnections();
    s.server.close();
  }
});

describe('stream', () => {
  test('hands over a body far above maxResponseBytes, byte for byte, with its status and headers', async () => {
    const res = await open(client, `${base()}/media`);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'audio/mpeg', 'content-length': String(media.length), 'accept-ranges': 'bytes' });
    expect((await readAll(res.body)).equals(media)).toBe(true);
  });

  test('resolves once the headers arrive, before the body ends', async () => {
    const res = await open(client, `${base()}/trickle`);
    const first = await new Promise<Buffer>((resolve) => res.body.once('data', resolve));
    expect(first.toString()).toBe('first part');
    trickleEnd!();
    expect((await readAll(res.body)).toString()).toBe(' and the rest');
  });

  test('a Range header reaches the server; the 206 and its slice come back', async () => {
    const res = await open(client, `${base()}/media`, { headers: { Range: 'bytes=100-1099' } });
    expect([res.status, res.headers['content-range']]).toEqual([206, `bytes 100-1099/${media.length}`]);
    expect((await readAll(res.body)).equals(media.subarray(100, 1100))).toBe(true);
  });

  test('a non-2xx answer is returned as it is, for the caller to judge', async () => {
    const res = await open(client, `${base()}/missing`);
    expect(res.status).toBe(404);
    expect((await readAll(res.body)).toString()).toBe('{"code":20404}');
  });

  test('the signal firing mid-body (the caller left) closes the upstream connection', async () => {
    const abandoned = main.abandoned;
    const controller = new AbortController();
    const res = await open(client, `${base()}/stall`, { signal: controller.signal });
    await new Promise((resolve) => res.body.once('data', resolve));
    const ended = new Promise((resolve) => res.body.once('close', resolve));
    res.body.on('error', () => undefined);
    controller.abort();
    await ended;
    await waitUntil(() => main.abandoned > abandoned);
  });
});

describe('stream: redirects and the SSRF guard', () => {
  const headers = { Authorization: 'Basic c2VjcmV0', Range: 'bytes=0-9' };
  const portableHeaders = ['Range'];

  test('a same-origin redirect keeps every header', async () => {
    const res = await open(client, `${base()}/redirect?to=/echo`, { headers, portableHeaders });
    const seen = JSON.parse((await readAll(res.body)).toString()) as Record<string, string>;
    expect([seen.authorization, seen.range]).toEqual(['Basic c2VjcmV0', 'bytes=0-9']);
  });

  test('another origin gets the portable headers only: never the credentials', async () => {
    const to = encodeURIComponent(`http://127.0.0.1:${other.port}/echo`);
    const res = await open(client, `${base()}/redirect?to=${to}`, { headers, portableHeaders });
    const seen = JSON.parse((await readAll(res.body)).toString()) as Record<string, string>;
    expect([seen.authorization, seen.range]).toEqual([undefined, 'bytes=0-9']);
  });

  test('without portable headers another origin gets none', async () => {
    const to = encodeURIComponent(`http://127.0.0.1:${other.port}/echo`);
    const seen = JSON.parse((await readAll((await open(client, `${base()}/redirect?to=${to}`, { headers })).body)).toString());
    expect([seen.authorization, seen.range]).toEqual([undefined, undefined]);
  });

  test('a server that is not allow-listed is refused before any connection, also behind a redirect', async () => {
    const before = main.seen.length;
    await expect(open(strict, `${base()}/media`)).rejects.toThrow(OutboundRefused);
    expect(main.seen.length).toBe(before);
    await expect(open(client, `${base()}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest')}`)).rejects.toThrow(OutboundRefused);
  });
});

describe('stream: time limits', () => {
  test('headers that never come end at the headers deadline, naming the host only', async () => {
    const err = (await open(client, `${base()}/hang`, { headersTimeoutMs: 300, headers: { Authorization: 'Basic SECRET' } }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(OutboundTimeout);
    expect(err.message).toBe(`Request to 127.0.0.1:${main.port} timed out after 300 ms`);
  });

  test('an upstream that stops sending mid-body is cut off after the idle timeout', async () => {
    const started = Date.now();
    const res = await open(client, `${base()}/stall`, { idleTimeoutMs: 300 });
    await expect(readAll(res.body)).rejects.toThrow(/timeout/i);
    // Not before the idle timeout (how soon after it is bench:outbound-timeouts' measurement).
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  test('a reader that pauses longer than the idle timeout (backpressure) is not cut off', async () => {
    const res = await open(client, `${base()}/media`, { idleTimeoutMs: 300 });
    const chunks: Buffer[] = [];
    let paused = false;
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      if (!paused) {
        paused = true;
        await new Promise((resolve) => setTimeout(resolve, 1200));
      }
    }
    expect(Buffer.concat(chunks).equals(media)).toBe(true);
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
