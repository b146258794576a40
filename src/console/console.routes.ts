import path from 'node:path';
import express, { type Express, type RequestHandler } from 'express';

/** Where the console lives: its own prefix, so no page ever shadows an API route of the same name. */
export const CONSOLE_PREFIX = '/console';

/**
 * The console's Content-Security-Policy: scripts only from this origin (no
 * inline script, no eval), data only from this API, never framed. Styles
 * allow inline because the editor (CodeMirror) and the charts set style
 * elements and attributes at run time; a style cannot run code.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
};

/**
 * Serves the built console (console/, built by scripts/run.mjs at install
 * time) under /console/, and sends the service's root URL there. Hashed
 * assets are cached for good; every other path under the prefix answers the
 * page itself, which routes in the browser, so reload and deep links work.
 */
export function registerConsole(app: Express, options: { assetsDir: string }): void {
  const indexFile = path.join(options.assetsDir, 'index.html');
  app.get('/', (_req, res) => res.redirect(302, `${CONSOLE_PREFIX}/`));
  app.use(CONSOLE_PREFIX, securityHeaders);
  app.use(
    `${CONSOLE_PREFIX}/assets`,
    express.static(path.join(options.assetsDir, 'assets'), { immutable: true, maxAge: '365d', index: false }),
    (_req, res) => {
      // A missing script must not be answered with the page: the browser would run HTML as JavaScript and say nothing useful.
      res.status(404).type('text/plain').send('No such console asset; reload the page (the console was rebuilt)\n');
    },
  );
  app.get([CONSOLE_PREFIX, `${CONSOLE_PREFIX}/{*page}`], (req, res, next) => {
    if (req.path === CONSOLE_PREFIX) return res.redirect(301, `${CONSOLE_PREFIX}/`);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexFile, (err?: NodeJS.ErrnoException) => {
      if (!err || res.headersSent) return;
      if (err.code !== 'ENOENT') return next(err);
      res.status(503).type('text/plain').send('The console is not built. `npm start` builds it (console/), as does `npm run build`.\n');
    });
  });
}
