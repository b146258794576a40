import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isStatementTimeout, isUnstorableText } from '../db/database-errors';
import { AppError, RetryLaterError } from '../errors/errors';
import type { Logger } from '../logging/logger';

/** Errors raised by express.json() before any route runs. */
function fromBodyParser(err: { type?: string; status?: number }): AppError | undefined {
  if (err.type === 'entity.parse.failed') return new AppError(400, 'invalid_json', 'Request body is not valid JSON');
  if (err.type === 'entity.too.large') return new AppError(413, 'payload_too_large', 'Request body is too large');
  // The router's own 400: a path whose percent-encoding does not decode (%E0%A4%A).
  if (err instanceof URIError && err.status === 400) return new AppError(400, 'invalid_path', 'The request path is not valid percent-encoded UTF-8');
  if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
    return new AppError(415, 'unsupported_media_type', 'Unsupported request body encoding');
  }
  return undefined;
}

/**
 * A statement of the request ran past its statement_timeout; or PostgreSQL
 * refused text of the request that the input guard (json-guard.ts) should
 * have stopped first, so its transaction rolled back: still the caller's 400.
 */
function fromDatabase(err: unknown): AppError | undefined {
  if (isStatementTimeout(err)) {
    return new AppError(504, 'query_timeout', 'The request took longer than the database time limit allows; try again, or narrow it');
  }
  if (isUnstorableText(err)) {
    return new AppError(400, 'validation_failed', 'The request holds text the service cannot store: a NUL character (\\u0000) or an unpaired surrogate');
  }
  return undefined;
}

/** Serializes AppErrors as the one documented error body; anything else is a logged, opaque 500. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      // A stream (CSV export) failed midway or its caller left: the answer cannot change now, only stop.
      logger.debug({ err: { type: err?.name, message: err?.message }, requestId: req.id }, 'response stream ended early');
      res.destroy();
      return;
    }
    const known = err instanceof AppError ? err : (fromBodyParser(err) ?? fromDatabase(err));
    const requestId = req.id === undefined ? undefined : String(req.id);
    if (!known) {
      // Log the error type and stack, not the request: bodies may carry secrets.
      logger.error({ err: { type: err?.name, message: err?.message, stack: err?.stack }, requestId }, 'unhandled error');
      res.status(500).json({ error: { code: 'internal_error', message: 'Internal server error', requestId } });
      return;
    }
    if (known instanceof RetryLaterError) res.setHeader('Retry-After', String(known.retryAfterSeconds));
    res.status(known.status).json({
      error: { code: known.code, message: known.message, details: known.details, requestId },
    });
  };
}

export const notFoundRoute: RequestHandler = (req, res) => {
  const requestId = req.id === undefined ? undefined : String(req.id);
  res.status(404).json({ error: { code: 'route_not_found', message: `No route ${req.method} ${req.path}`, requestId } });
};
