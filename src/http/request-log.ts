import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logging/logger';
import { RESUME_PATH } from '../executions/resume-links';

/** The first path segment and the one after it: past an absolute-form target's scheme and host (`POST http://host/resume/…` is routed too), and any repeated slashes. */
const SECOND_SEGMENT = /^((?:[a-z][a-z\d+.-]*:\/\/[^/]*)?\/+([^/]*)\/+)[^/]+/i;
const RESUME_SEGMENT = RESUME_PATH.slice(1).toLowerCase();
/** The console's invitation link, `/console/invitations/<code>`: the code lets whoever holds it join the organization. */
const INVITATION_LINK = /^((?:[a-z][a-z\d+.-]*:\/\/[^/]*)?\/+console\/+([^/]+)\/+)([^/]+)/i;

/**
 * The path a request line logs: without the query string (it may carry secrets), a resume link's token and a console
 * invitation link's code replaced.
 * The token is a credential, so it goes whatever the spelling of `/resume` (case, percent-encoding): such a request
 * is a 404, but the token it carries may be a live one all the same.
 */
export function loggedPath(originalUrl: string): string {
  const path = originalUrl.split('?')[0];
  const match = SECOND_SEGMENT.exec(path);
  if (match && decoded(match[2]).toLowerCase() === RESUME_SEGMENT) return `${match[1]}:token${path.slice(match[0].length)}`;
  const invitation = INVITATION_LINK.exec(path);
  if (invitation && decoded(invitation[2]).toLowerCase() === 'invitations' && invitation[3] !== 'joined') {
    return `${invitation[1]}:code${path.slice(invitation[0].length)}`;
  }
  return path;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Gives every request an id (`X-Request-Id`, and `requestId` in error
 * bodies) and logs one line when it ends: method, path without the query
 * string (it may carry secrets), status and time. Nothing is built per
 * request unless the line will be written: on a busy data store API a
 * per-request child logger cost about 8% of the process's time.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (req.url === '/healthz' || !logger.isLevelEnabled('info')) return next();
    const started = performance.now();
    const line = (msg: string) => ({
      req: { id, method: req.method, path: loggedPath(req.originalUrl) },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - started),
      msg,
    });
    res.once('finish', () => logger.info(line('request completed')));
    res.once('close', () => {
      if (!res.writableFinished) logger.info(line('request aborted'));
    });
    next();
  };
}
