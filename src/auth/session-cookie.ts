import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse } from 'cookie';
import type { CookieOptions, Request } from 'express';

/**
 * The console's session cookie: HttpOnly and SameSite=Strict, so neither page
 * script nor another site's request carries it. Over HTTPS it is
 * `__Host-flowbase_session`: Secure, this host only, path `/`, so a sibling
 * subdomain can neither plant nor overwrite it. Plain HTTP (development on
 * localhost) cannot have that prefix and uses `flowbase_session`.
 */
export const SESSION_COOKIE = 'flowbase_session';
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/**
 * Beside it, the session's CSRF token in a cookie the page can read (not
 * HttpOnly, same attributes otherwise), so the console can start its first
 * writes (a dashboard's data call) before GET /session answers. The token is
 * an HMAC of the session's secret: a cookie planted by someone else matches no
 * session, and reading it gives nothing that GET /session would not.
 */
export const CSRF_COOKIE = 'flowbase_csrf';
export const SECURE_CSRF_COOKIE = `__Host-${CSRF_COOKIE}`;

/** Header a cookie-authenticated write must carry, holding the session's CSRF token (GET /session answers it). */
export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change nothing: they need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionCookies {
  /** The cookie's value, when the request carries the cookie this deployment uses. */
  read(req: Request): string | undefined;
  name(req: Request): string;
  options(req: Request): CookieOptions;
  /** The readable CSRF cookie's name and attributes. */
  csrfName(req: Request): string;
  csrfOptions(req: Request): CookieOptions;
}

/** The session cookie of a deployment: Secure (and `__Host-`) whenever it is reached over HTTPS, directly or as its public URL says. */
export function sessionCookies(publicBaseUrl: string | undefined): SessionCookies {
  const secure = (req: Request) => req.secure || Boolean(publicBaseUrl?.startsWith('https:'));
  const name = (req: Request) => (secure(req) ? SECURE_SESSION_COOKIE : SESSION_COOKIE);
  return {
    name,
    read(req) {
      const header = req.headers.cookie;
      if (!header) return undefined;
      return parse(header)[name(req)] || undefined;
    },
    options: (req) => ({ httpOnly: true, sameSite: 'strict', secure: secure(req), path: '/' }),
    csrfName: (req) => (secure(req) ? SECURE_CSRF_COOKIE : CSRF_COOKIE),
    csrfOptions: (req) => ({ httpOnly: false, sameSite: 'strict', secure: secure(req), path: '/' }),
  };
}

/**
 * The CSRF token of a session: an HMAC of its secret, so it needs no storage,
 * names nothing, and a page can hold it (in memory) without holding the
 * session. Another site can read neither the cookie nor GET /session's answer.
 */
export function csrfTokenFor(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('flowbase console csrf v1').digest('base64url');
}

/** Whether a cookie-authenticated request may proceed: safe methods always; writes only with the session's CSRF token. */
export function csrfAllows(req: Request, sessionSecret: string): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const sent = req.header(CSRF_HEADER);
  if (!sent) return false;
  const expected = Buffer.from(csrfTokenFor(sessionSecret));
  const given = Buffer.from(sent);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
