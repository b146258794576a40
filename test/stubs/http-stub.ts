import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub received it. */
export interface StubRequest {
  method: string;
  /** Path and query string, as sent. */
  url: string;
  /** The path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text ('' when none). */
  body: string;
  /** The body's exact bytes. */
  raw: Buffer;
}

/** Answers one request; may be async (e.g. waiting at a gate). */
export type StubHandler = (req: StubRequest, res: http.ServerResponse) => unknown;

/** A held answer: requests to `url` wait until `open()`. */
export interface Gate {
  name: string;
  /** `/gate/<name>` */
  path: string;
  /** The stub URL of the gate. */
  url: string;
  /** Settles once a request has reached the gate. */
  arrived: Promise<void>;
  /** Lets every request waiting at the gate (and any later one) through. */
  open(): void;
  /** For route handlers: records an arrival, then waits until the gate is opened. */
  pass(): Promise<void>;
}

export interface HttpStub {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** `127.0.0.1:<port>`, as an `httpAllowList` entry. */
  host: string;
  /** Every request received, in order. */
  requests: StubRequest[];
  /** Requests that reached `path` (query string ignored). */
  calls(path: string): StubRequest[];
  /** How `path` (exactly, query string ignored) answers from now on. */
  on(path: string, handler: StubHandler): void;
  /** The gate `name` (a new unique one when no name is given), created on first use. */
  gate(name?: string): Gate;
  /** Opens every gate, so held requests end and workers can drain. */
  openGates(): void;
  /** Opens every gate, stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Writes a JSON answer, unless the client has gone away. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A handler answering `status` with `body` (JSON; a string is sent as is). */
export const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}): StubHandler =>
  (_req, res) =>
    sendJson(res, status, body, headers);

/** A handler answering with the given statuses in turn (the last one repeats), body `{status, call}`. */
export function inTurn(...statuses: number[]): StubHandler {
  let n = 0;
  return (_req, res) => {
    const status = statuses[Math.min(n++, statuses.length - 1)];
    sendJson(res, status, { status, call: n });
  };
}

/** The default answer: the request echoed back as JSON `{method, url, body}`. */
export const echo: StubHandler = (req, res) => sendJson(res, 200, { method: req.method, url: req.url, body: req.body });

let gates = 0;

/**
 * A local HTTP server (127.0.0.1, a free port) for HTTP steps to call. It
 * records every request and answers, in this order:
 * - a handler set with `on(path, ...)`;
 * - `/gate/<name>`: held until that gate is opened, then answered by `fallback`;
 * - `/status/<n>`: status n, body `{path, status}`;
 * - anything else: `fallback` (default `echo`).
 */
export async function startHttpStub(options: { fallback?: StubHandler } = {}): Promise<HttpStub> {
  const fallback = options.fallback ?? echo;
  const requests: StubRequest[] = [];
  const routes = new Map<string, StubHandler>();
  const open = new Map<string, Gate>();
  let url = '';

  const gate = (name = `g${Date.now().toString(36)}${(gates++).toString(36)}`): Gate => {
    let g = open.get(name);
    if (!g) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((r) => (arrive = r));
      const opened = new Promise<void>((r) => (release = r));
      const path = `/gate/${name}`;
      g = {
        name,
        path,
        url: `${url}${path}`,
        arrived,
        open: release,
        pass: () => {
          arrive();
          return opened;
        },
      };
      open.set(name, g);
    }
    return g;
  };

  const answer = async (req: StubRequest, res: http.ServerResponse) => {
    const route = routes.get(req.path);
    if (route) return route(req, res);
    const [, kind, arg] = req.path.split('/');
    if (kind === 'gate' && arg) {
      await gate(arg).pass();
      return fallback(req, res);
    }
    if (kind === 'status' && /^\d{3}$/.test(arg ?? '')) return sendJson(res, Number(arg), { path: req.path, status: Number(arg) });
    return fallback(req, res);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = req.url ?? '/';
      const [path, search = ''] = raw.split(/\?(.*)/s);
      const bytes = Buffer.concat(chunks);
      const received: StubRequest = {
        method: req.method ?? '',
        url: raw,
        path,
        query: Object.fromEntries(new URLSearchParams(search)),
        headers: req.headers,
        body: bytes.toString('utf8'),
        raw: bytes,
      };
      requests.push(received);
      Promise.resolve()
        .then(() => answer(received, res))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  url = `http://${host}`;

  const openGates = () => open.forEach((g) => g.open());
  return {
    url,
    port,
    host,
    requests,
    calls: (path) => requests.filter((r) => r.path === path),
    on: (path, handler) => void routes.set(path, handler),
    gate,
    openGates,
    close: () =>
      new Promise<void>((resolve) => {
        openGates();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
