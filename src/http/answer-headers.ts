import { validateHeaderName, validateHeaderValue } from 'node:http';

/**
 * The policy of every answer a workflow writes (a return step's response to a
 * webhook caller or a resume link's holder), and of every other answer outside
 * the console and the API reference page. Such an answer is served from the
 * service's origin, where a signed-in console user's browser holds the session
 * cookie: `sandbox` (without allow-scripts) gives the document an opaque origin
 * of its own and runs no script, so nothing in it can read the console's API.
 */
export const ANSWER_CSP = "default-src 'none'; sandbox; frame-ancestors 'none'";

/**
 * Standard headers a return step may set (lower case). Anything a browser or
 * a proxy in front of the service acts on for the origin as a whole (cookies,
 * credentialed CORS, security policies, HSTS, Clear-Site-Data, service worker
 * scope, authentication prompts, alternative services) is left out.
 * `content-security-policy` is sent beside the service's own policy: a
 * browser enforces every policy it receives, so a workflow's may only narrow.
 */
export const ANSWER_HEADERS = [
  'content-type',
  'content-language',
  'content-disposition',
  'cache-control',
  'expires',
  'etag',
  'last-modified',
  'vary',
  'pragma',
  'location',
  'retry-after',
  'allow',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'content-security-policy',
] as const;

const ALLOWED = new Set<string>(ANSWER_HEADERS);

/**
 * `X-` headers the service sets itself, or that a browser or a reverse proxy
 * acts on (nginx's `X-Accel-Redirect` serves an internal location, Apache's
 * and lighttpd's `X-Sendfile` a file): every other `X-` header is the
 * workflow's own.
 */
const RESERVED_X_HEADERS = new Set([
  'x-content-type-options',
  'x-frame-options',
  'x-xss-protection',
  'x-dns-prefetch-control',
  'x-permitted-cross-domain-policies',
  'x-download-options',
  'x-ua-compatible',
  'x-powered-by',
  'x-request-id',
  'x-execution-id',
  'x-delivery-duplicate',
  'x-sendfile',
]);
const RESERVED_X_PREFIXES = ['x-accel-', 'x-sendfile-', 'x-lighttpd-', 'x-litespeed-', 'x-forwarded-'];

/** Why a return step may not set header `name`, or undefined when it may. Names are compared without case. */
export function answerHeaderRefusal(name: string): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return 'is not a valid header name';
  }
  const lower = name.toLowerCase();
  if (ALLOWED.has(lower)) return undefined;
  if (lower.startsWith('x-') && !RESERVED_X_HEADERS.has(lower) && !RESERVED_X_PREFIXES.some((prefix) => lower.startsWith(prefix))) return undefined;
  return lower.startsWith('x-')
    ? 'is reserved by the service'
    : `is not a header a return step may set (${ANSWER_HEADERS.join(', ')}, or an X- header of your own)`;
}

/**
 * The headers of a workflow's answer that may be sent: permitted names
 * (answerHeaderRefusal) with values HTTP can carry. Definitions are checked
 * when saved; this filter still applies to every answer, so one saved before
 * a header was refused, or a value rendered with a newline, never reaches the
 * caller.
 */
export function sendableAnswerHeaders(headers: Record<string, string> | undefined): Array<[string, string]> {
  const sendable: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (answerHeaderRefusal(name) !== undefined) continue;
    try {
      validateHeaderValue(name, value);
    } catch {
      continue;
    }
    sendable.push([name, value]);
  }
  return sendable;
}
