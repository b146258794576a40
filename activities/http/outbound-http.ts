import { isIP } from 'node:net';
import { Agent, buildConnector, request as undiciRequest } from 'undici';
import { createAddressPolicy, OutboundRefused, resolveAllowed, type AddressPolicy } from './address-policy';

export { OutboundRefused };

/** Limits and SSRF exceptions for one outbound HTTP client. */
export interface OutboundHttpOptions {
  /** Entries that may be reached despite being non-public: an IP ("127.0.0.1", "::1"), a CIDR ("10.0.0.0/8", "fd00::/8"), or an IP with a port ("127.0.0.1:8080", "[::1]:8080"). */
  allowList: string[];
  maxResponseBytes: number;
  maxRedirects: number;
}

/** One request as the `core.http` step hands it over. */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Whole request including redirects and body read. */
  timeoutMs: number;
  /** Stops the request early (the activity's cancellation). */
  signal?: AbortSignal;
}

/** The final response, after redirects, with the body fully read. */
export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** Parsed JSON when the content-type is JSON and the text parses; otherwise the text. */
  body: unknown;
  url: string;
}

/** The whole request, redirects and body read included, took longer than timeoutMs. */
export class OutboundTimeout extends Error {
  override name = 'OutboundTimeout';
}
/** The response body is larger than maxResponseBytes. */
export class OutboundResponseTooLarge extends Error {
  override name = 'OutboundResponseTooLarge';
}
/** The URL (or a redirect Location) is unparsable, not http(s), or carries credentials. */
export class OutboundInvalidUrl extends Error {
  override name = 'OutboundInvalidUrl';
}
/** More redirects than maxRedirects; not part of the agreed interface, but not worth retrying either. */
export class OutboundTooManyRedirects extends Error {
  override name = 'OutboundTooManyRedirects';
}
/** A redirect would carry the request body to another origin; it is not followed. */
export class OutboundRedirectRefused extends Error {
  override name = 'OutboundRedirectRefused';
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Per fetch: a redirect that turns the request into a GET drops the body and its description.
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']);

/** Wraps undici's connector so every connection, on every hop, goes to a checked IP while SNI keeps the hostname. */
function guardedConnector(policy: AddressPolicy): buildConnector.connector {
  const connect = buildConnector({});
  return (opts, callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    resolveAllowed(policy, opts.hostname, port).then(
      (ip) => {
        const servername = opts.servername || (isIP(opts.hostname) ? undefined : opts.hostname);
        try {
          connect({ ...opts, hostname: ip, servername }, callback);
        } catch (err) {
          callback(err as Error, null);
        }
      },
      (err: Error) => callback(err, null),
    );
  };
}

function parseUrl(input: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new OutboundInvalidUrl(base ? `Redirect from ${base.host} has an unparsable Location` : 'The URL could not be parsed');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundInvalidUrl(`URL scheme "${url.protocol}" is not allowed; only http: and https: are`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundInvalidUrl(`URL for ${url.host} contains credentials; send them in a header instead`);
  }
  return url;
}

async function readText(body: AsyncIterable<Buffer>, max: number, host: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    // Leaving the loop by throwing destroys the stream, so the rest is never buffered.
    if (size > max) throw new OutboundResponseTooLarge(`Response from ${host} is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function withoutHeaders(headers: Record<string, string>, names: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}

/** Settles with work, or rejects when the signal fires: undici honours the signal only once connected, so a hanging connect needs this. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function isOutboundError(err: unknown): boolean {
  return (
    err instanceof OutboundRefused ||
    err instanceof OutboundTimeout ||
    err instanceof OutboundInvalidUrl ||
    err instanceof OutboundResponseTooLarge ||
    err instanceof OutboundTooManyRedirects ||
    err instanceof OutboundRedirectRefused
  );
}

/** The client `core.http` uses; one per worker, closed on shutdown. */
export interface OutboundHttp {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  close(): Promise<void>;
}

/**
 * Creates the outbound HTTP client of the `core.http` step: one undici Agent whose
 * connector refuses non-public addresses (unless allow-listed) on every hop,
 * manual redirects (leaving the origin: without the step's headers, and
 * never with a body), one deadline for everything and a bounded body read.
 */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const policy = createAddressPolicy(options.allowList);
  const agent = new Agent({ connect: guardedConnector(policy) });

  async function follow(req: OutboundRequest, signal: AbortSignal, at: { url: URL }): Promise<OutboundResponse> {
    let method = req.method.toUpperCase();
    let headers = { ...req.headers };
    let body = req.body;
    for (let redirects = 0; ; redirects++) {
      const url = at.url;
      const res = await undiciRequest(url, { method, headers, body, signal, dispatcher: agent });
      const location = REDIRECT_STATUSES.has(res.statusCode) ? [res.headers.location].flat()[0] : undefined;
      if (location === undefined) {
        const declared = Number(res.headers['content-length']);
        if (declared > options.maxResponseBytes) {
          res.body.on('error', () => undefined).destroy(); // destroying emits an abort error nobody awaits
          throw new OutboundResponseTooLarge(`Response from ${url.host} is larger than ${options.maxResponseBytes} bytes`);
        }
        const text = await readText(res.body, options.maxResponseBytes, url.host);
        const flat = flattenHeaders(res.headers);
        return { status: res.statusCode, headers: flat, text, body: parseBody(text, flat['content-type']), url: url.href };
      }
      await res.body.dump();
      if (redirects >= options.maxRedirects) {
        throw new OutboundTooManyRedirects(`More than ${options.maxRedirects} redirects, last from ${url.host}`);
      }
      const next = parseUrl(location, url);
      const becomesGet =
        (res.statusCode === 303 && method !== 'GET' && method !== 'HEAD') || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST');
      if (becomesGet) {
        method = 'GET';
        body = undefined;
        headers = withoutHeaders(headers, BODY_HEADERS);
      }
      if (next.origin !== url.origin) {
        // The body and the step's headers (a connection's credentials under any name) were meant for one origin only;
        // with no body crossing, no header describing one is left to keep either.
        if (body !== undefined) {
          throw new OutboundRedirectRefused(`Redirect (${res.statusCode}) to ${next.host} not followed: the request body is not re-sent to another origin`);
        }
        headers = {};
      }
      at.url = next;
    }
  }

  return {
    /** Sends the request; throws the Outbound* errors above, or a plain Error naming the host for network failures. */
    async request(req: OutboundRequest): Promise<OutboundResponse> {
      const at = { url: parseUrl(req.url) };
      const timeout = AbortSignal.timeout(Math.max(0, Math.round(req.timeoutMs)));
      const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
      try {
        return await untilAborted(follow(req, signal, at), signal);
      } catch (err) {
        if (req.signal?.aborted) throw new Error(`Request to ${at.url.host} was cancelled`, { cause: err });
        if (signal.aborted && !(err instanceof OutboundRefused || err instanceof OutboundInvalidUrl)) {
          throw new OutboundTimeout(`Request to ${at.url.host} timed out after ${req.timeoutMs} ms`);
        }
        if (isOutboundError(err)) throw err;
        // Only the error's own message: never the request headers or body.
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(`Request to ${at.url.host} failed: ${message}`, { cause: err });
      }
    },
    /** Closes the Agent's pooled connections. */
    close: () => agent.close(),
  };
}
