import type { RequestHandler } from 'express';
import { CONSOLE_PREFIX } from '../console/console.routes';
import { ANSWER_CSP } from './answer-headers';

/** The API reference page's prefix. Prefixes match whole segments: /consolefoo is neither the console (which sets its own policy) nor this. */
export const DOCS_PREFIX = '/docs';
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The API reference page (swagger-ui, served from npm): its own scripts and
 * styles only (it sets inline styles), requests to this API only, never framed.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every answer outside the console: never a document that runs script on
 * this origin, never framed, never sniffed into something else. A webhook's
 * reply may carry any content type its workflow sets, HTML included (what it
 * may set: answer-headers.ts); on the console's origin, with the session
 * cookie in the browser, a script in it could act as whoever opens the link.
 * 404s included: their path is the caller's.
 */
export const apiSecurityHeaders: RequestHandler = (req, res, next) => {
  if (under(req.path, CONSOLE_PREFIX)) return next();
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (under(req.path, DOCS_PREFIX)) {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
  } else {
    res.setHeader('Content-Security-Policy', ANSWER_CSP);
  }
  next();
};
