import type { OutboundHttp } from '../outbound/outbound-http';
import type { Vendor } from '../config/config';
import { SERVICE_USER_AGENT } from '../config/service-identity';
import type { FeedHttp, FeedRequest, FeedResponse } from './feed-definition';
import { VENDOR_NAMES, VendorRateLimited, VendorRejected, VendorUnavailable } from './vendor-errors';

export const DEFAULT_RETRY_AFTER_MS = 10_000;
/** GitHub's advice for a secondary rate limit that names no wait: at least a minute. */
export const GITHUB_SECONDARY_LIMIT_WAIT_MS = 60_000;
export const MIN_RETRY_AFTER_MS = 1_000;
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

// Outbound errors that mean the request can never succeed as built: the address is refused or the URL unusable.
const NEVER_SUCCEEDS = new Set(['OutboundRefused', 'OutboundInvalidUrl', 'OutboundTooManyRedirects', 'OutboundRedirectRefused', 'OutboundResponseTooLarge']);

/**
 * The FeedHttp of one vendor over the SSRF-guarded outbound client: the
 * service's User-Agent and JSON bodies out, vendor answers mapped to the
 * Vendor* errors (feed-definition.ts).
 */
export function createFeedHttp(
  outbound: Pick<OutboundHttp, 'request'>,
  options: { vendor: Vendor; timeoutMs: number; signal?: AbortSignal; now?: () => number },
): FeedHttp {
  const { vendor } = options;
  const name = VENDOR_NAMES[vendor];
  const now = options.now ?? Date.now;
  return {
    async send(req: FeedRequest): Promise<FeedResponse> {
      // A feed's own headers (GitHub's Accept and API version) come on top of the User-Agent every vendor gets.
      const headers: Record<string, string> = { 'user-agent': SERVICE_USER_AGENT, ...req.headers };
      if (req.body !== undefined) headers['content-type'] = 'application/json';
      let res;
      try {
        res = await outbound.request({
          url: req.url,
          method: req.method,
          headers,
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
          timeoutMs: options.timeoutMs,
          signal: options.signal,
        });
      } catch (err) {
        // The outbound client's messages name the host only, never the path, query or headers.
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof Error && NEVER_SUCCEEDS.has(err.name)) throw new VendorRejected(vendor, null, `${name} request refused: ${message}`);
        throw new VendorUnavailable(vendor, null, `${name} could not be reached: ${message}`);
      }
      const { status } = res;
      if (status >= 200 && status < 300) return { status, headers: res.headers, body: res.body };
      const retryAfterMs = rateLimitDelay(vendor, status, res.headers, now(), res.body);
      if (retryAfterMs !== undefined) throw new VendorRateLimited(vendor, status, retryAfterMs);
      const detail = vendorMessage(res.body);
      const text = `${name} answered ${status}${detail ? `: ${detail}` : ''}`;
      if (status >= 500) throw new VendorUnavailable(vendor, status, text);
      throw new VendorRejected(vendor, status, status === 401 ? `${text} (check the connection's credentials, or reconnect it)` : text);
    },
  };
}

/**
 * The wait a rate-limited answer asks for, or undefined when the answer is not a rate limit.
 * GitHub signals its limits with 403 too (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api):
 * an exhausted quota with its reset for the primary limit; for secondary limits Retry-After, or
 * nothing but the message ("You have exceeded a secondary rate limit"), which means wait at least a minute.
 */
export function rateLimitDelay(vendor: Vendor, status: number, headers: Record<string, string>, now: number, body?: unknown): number | undefined {
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  const reset = headers['x-ratelimit-remaining'] === '0' ? parseReset(headers['x-ratelimit-reset'], now) : undefined;
  const secondary = vendor === 'github' && (status === 403 || status === 429) && githubSecondaryLimit(body);
  const limited = status === 429 || (vendor === 'github' && status === 403 && (retryAfter !== undefined || reset !== undefined || secondary));
  if (!limited) return undefined;
  return clampDelay(retryAfter ?? reset ?? (secondary ? GITHUB_SECONDARY_LIMIT_WAIT_MS : DEFAULT_RETRY_AFTER_MS));
}

/** GitHub's secondary (formerly "abuse") rate-limit message. */
function githubSecondaryLimit(body: unknown): boolean {
  const message = body !== null && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  return typeof message === 'string' && /secondary rate limit|abuse detection/i.test(message);
}

/** Retry-After as delay-seconds or an HTTP-date, in ms from now. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its month (and day); Date.parse alone would read "-3" as a year.
  const at = /[A-Za-z]{3}/.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? undefined : at - now;
}

function parseReset(value: string | undefined, now: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value) * 1000 - now;
}

const clampDelay = (ms: number) => Math.min(Math.max(Math.ceil(ms), MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);

/**
 * The vendor's own short error message (Twilio, GitHub and HubSpot all say
 * `message` in JSON; GitHub's refusal of a request without a User-Agent is
 * plain text), without URLs' queries, at most 200 characters. An HTML page
 * (a proxy's error page) says nothing useful and is left out.
 */
export function vendorMessage(body: unknown): string | undefined {
  const message = typeof body === 'string' ? body : body !== null && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  if (typeof message !== 'string' || message.trim() === '' || message.trimStart().startsWith('<')) return undefined;
  const clean = message.replace(/\?\S*/g, '').replace(/\s+/g, ' ').trim();
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean;
}
