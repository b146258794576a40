import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, buildConnector, type Dispatcher, request as undiciRequest } from 'undici';
import { createAddressPolicy, OutboundRefused, resolveAllowed, type AddressPolicy } from './address-policy';

export { OutboundRefused };

/** Limits and SSRF exceptions for one outbound HTTP client. */
export interface OutboundHttpOptions {
  /** Entries that may be reached despite being non-public: an IP ("127.0.0.1", "::1"), a CIDR ("10.0.0.0/8", "fd00::/8"), or an IP with a port ("127.0.0.1:8080", "[::1]:8080"). */
  allowList: string[];
  /** Bytes of the answer's body as received, textual or binary. */
  maxResponseBytes: number;
  maxRedirects: number;
}

/** One request as the `core.http` step hands it over. */
export interface OutboundRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Text (sent as UTF-8) or exact bytes. */
  body?: string | Buffer;
  /** Whole request including redirects and body read. */
  timeoutMs: number;
  /** Stops the request early (the activity's cancellation). */
  signal?: AbortSignal;
}

/**
 * The final response, after redirects, with the body fully read. A textual
 * answer (see `isTextualMediaType`) comes as `text` and `body`; any other as
 * its exact bytes in `binary`, with `text` and `body` null.
 */
export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body decoded as UTF-8; null for a binary answer. */
  text: string | null;
  /** Parsed JSON when the content-type is JSON and the text parses; otherwise the text; null for a binary answer. */
  body: unknown;
  /** The body as received, for a binary answer only. */
  binary?: Buffer;
  url: string;
}

/** One GET whose body is handed over as it arrives (the media proxy). */
export interface OutboundStreamRequest {
  url: string;
  headers: Record<string, string>;
  /**
   * Names of headers that describe the request, not who sends it (`Range`):
   * kept on a redirect to another origin, where every other header is dropped.
   */
  portableHeaders?: string[];
  /** Until the final status and headers arrive, redirects included. */
  headersTimeoutMs: number;
  /**
   * The body may send nothing for this long while the reader wants data;
   * time the reader spends not reading (backpressure) does not count.
   */
  idleTimeoutMs: number;
  /** Stops the request, or the body being read (the caller left). */
  signal?: AbortSignal;
}

/** The final response of `stream`, its body unread. */
export interface OutboundStream {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Destroying it closes the upstream connection. Errors when the upstream goes idle too long, or the signal fires. */
  body: Readable;
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

const NO_PORTABLE_HEADERS: ReadonlySet<string> = new Set();
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

async function readBytes(body: AsyncIterable<Buffer>, max: number, host: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    // Leaving the loop by throwing destroys the stream, so the rest is never buffered.
    if (size > max) throw new OutboundResponseTooLarge(`Response from ${host} is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads the final response of `request`, at most `max` bytes of it. */
async function readResponse(res: Dispatcher.ResponseData, url: URL, max: number): Promise<OutboundResponse> {
  const declared = Number(res.headers['content-length']);
  if (declared > max) {
    res.body.on('error', () => undefined).destroy(); // destroying emits an abort error nobody awaits
    throw new OutboundResponseTooLarge(`Response from ${url.host} is larger than ${max} bytes`);
  }
  const bytes = await readBytes(res.body, max, url.host);
  const flat = flattenHeaders(res.headers);
  const answer = { status: res.statusCode, headers: flat, url: url.href };
  if (!isTextualMediaType(flat['content-type'])) return { ...answer, text: null, body: null, binary: bytes };
  const text = bytes.toString('utf8');
  return { ...answer, text, body: parseBody(text, flat['content-type']) };
}

/** Media types read as text besides `text/*`, `+json` and `+xml`. */
const TEXTUAL_MEDIA_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/x-www-form-urlencoded',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
]);

/** The media type of a Content-Type value: lower case, without parameters ('' when absent). */
const mediaTypeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase();

/**
 * True when an answer with this Content-Type is read as text: no
 * Content-Type at all (as before binary answers existed), `text/*`, JSON and
 * XML (`+json`, `+xml` included), form encoding, JavaScript, or any type that
 * declares a `charset` other than `binary` (text by its own account, such
 * as `application/x-ndjson; charset=utf-8`). Anything else (a PDF, an image,
 * `application/octet-stream`) is binary: kept as its exact bytes.
 */
export function isTextualMediaType(contentType: string | undefined): boolean {
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === '' || mediaType.startsWith('text/')) return true;
  if (TEXTUAL_MEDIA_TYPES.has(mediaType) || mediaType.endsWith('+json') || mediaType.endsWith('+xml')) return true;
  // `charset=binary` is what `file --mime` says of a PDF or an image: not text.
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1].toLowerCase();
  return charset !== undefined && charset !== '' && charset !== 'binary';
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  const mediaType = mediaTypeOf(contentType);
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

/** What `follow` sends on the first hop. */
interface FirstHop {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Lower-case names of headers kept on a redirect to another origin; every other header is dropped there. */
  portable: ReadonlySet<string>;
}

/** The client `core.http` and the media proxy use; one per process, closed on shutdown. */
export interface OutboundHttp {
  request(req: OutboundRequest): Promise<OutboundResponse>;
  stream(req: OutboundStreamRequest): Promise<OutboundStream>;
  close(): Promise<void>;
}

/**
 * Creates the outbound HTTP client: one undici Agent whose connector refuses
 * non-public addresses (unless allow-listed) on every hop, manual redirects
 * (leaving the origin: without the caller's headers, and never with a body).
 * `request` has one deadline for everything and a bounded body read;
 * `stream` hands over the body as it arrives.
 */
export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const policy = createAddressPolicy(options.allowList);
  const agent = new Agent({ connect: guardedConnector(policy) });

  /** Follows redirects to the final response, whose body is left unread. */
  async function follow(first: FirstHop, signal: AbortSignal, at: { url: URL }, bodyTimeout?: number): Promise<Dispatcher.ResponseData> {
    let method = first.method.toUpperCase();
    let headers = { ...first.headers };
    let body = first.body;
    for (let redirects = 0; ; redirects++) {
      const url = at.url;
      const res = await undiciRequest(url, { method, headers, body, signal, dispatcher: agent, bodyTimeout });
      const location = REDIRECT_STATUSES.has(res.statusCode) ? [res.headers.location].flat()[0] : undefined;
      if (location === undefined) return res;
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
        // The body and the caller's headers (a connection's credentials under any name) were meant for one origin only;
        // with no body crossing, no header describing one is left to keep either. Portable ones (Range) say nothing of who asks.
        if (body !== undefined) {
          throw new OutboundRedirectRefused(`Redirect (${res.statusCode}) to ${next.host} not followed: the request body is not re-sent to another origin`);
        }
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => first.portable.has(name.toLowerCase())));
      }
      at.url = next;
    }
  }

  /** The error a caller sees: Outbound* errors as they are, a timeout as OutboundTimeout, anything else a plain Error naming the host only. */
  function failure(err: unknown, host: string, cancelled: boolean, timedOut: boolean, timeoutMs: number): Error {
    if (cancelled) return new Error(`Request to ${host} was cancelled`, { cause: err });
    if (timedOut && !(err instanceof OutboundRefused || err instanceof OutboundInvalidUrl)) {
      return new OutboundTimeout(`Request to ${host} timed out after ${timeoutMs} ms`);
    }
    if (isOutboundError(err)) return err as Error;
    // Only the error's own message: never the request headers or body.
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`Request to ${host} failed: ${message}`, { cause: err });
  }

  return {
    /** Sends the request; throws the Outbound* errors above, or a plain Error naming the host for network failures. */
    async request(req: OutboundRequest): Promise<OutboundResponse> {
      const at = { url: parseUrl(req.url) };
      const timeout = AbortSignal.timeout(Math.max(0, Math.round(req.timeoutMs)));
      const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
      const first = { method: req.method, headers: req.headers, body: req.body, portable: NO_PORTABLE_HEADERS };
      try {
        return await untilAborted(
          follow(first, signal, at).then((res) => readResponse(res, at.url, options.maxResponseBytes)),
          signal,
        );
      } catch (err) {
        throw failure(err, at.url.host, req.signal?.aborted === true, signal.aborted, req.timeoutMs);
      }
    },

    /**
     * Sends a GET and resolves with the final response (any status) once its
     * headers arrive, the body unread: the caller reads it at its own pace, and
     * must read or destroy it. Throws like `request` until the headers arrive
     * (OutboundTimeout past headersTimeoutMs); after that the body stream
     * errors when the upstream goes idle too long or the signal fires.
     */
    async stream(req: OutboundStreamRequest): Promise<OutboundStream> {
      const at = { url: parseUrl(req.url) };
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(new OutboundTimeout('headers deadline')), Math.max(0, Math.round(req.headersTimeoutMs)));
      const signal = req.signal ? AbortSignal.any([deadline.signal, req.signal]) : deadline.signal;
      const portable = new Set((req.portableHeaders ?? []).map((name) => name.toLowerCase()));
      let res: Dispatcher.ResponseData;
      try {
        res = await untilAborted(follow({ method: 'GET', headers: req.headers, portable }, signal, at, Math.max(1, Math.round(req.idleTimeoutMs))), signal);
      } catch (err) {
        throw failure(err, at.url.host, req.signal?.aborted === true, deadline.signal.aborted, req.headersTimeoutMs);
      } finally {
        clearTimeout(timer);
      }
      return { status: res.statusCode, headers: flattenHeaders(res.headers), body: res.body };
    },

    /** Closes the Agent's pooled connections. */
    close: () => agent.close(),
  };
}
