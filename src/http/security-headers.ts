import type { RequestHandler } from 'express';

/**
 * Every answer outside the console (which has its own policy) and the API
 * reference page: never a document that runs script on this origin, never
 * framed, never sniffed into something else. A webhook's reply may carry any
 * content type its workflow sets, HTML included; on the console's origin, with
 * the session cookie in the browser, a script in it could act as whoever opens
 * the link. `sandbox` gives such a page an opaque origin of its own.
 */
export const apiSecurityHeaders: RequestHandler = (req, res, next) => {
  if (!req.path.startsWith('/console') && !req.path.startsWith('/docs')) {
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox; frame-ancestors 'none'");
    res.setHeader('X-Content-Type-Options', 'nosniff');
  }
  next();
};
