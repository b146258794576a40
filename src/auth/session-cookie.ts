import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse } from 'cookie';
import type { Request } from 'express';

/** The console's session cookie: HttpOnly and SameSite=Strict, so neither page script nor another site's request carries it. */
export const SESSION_COOKIE = 'flowbase_session';

/** Header a cookie-authenticated write must carry, holding the session's CSRF token (GET /session answers it). */
export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change nothing: they need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session cookie's value, when the request carries one. */
export function readSessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parse(header)[SESSION_COOKIE];
  return value || undefined;
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
