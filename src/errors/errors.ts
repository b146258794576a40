/** One field-level problem in a request, e.g. `{ path: "config.apiKey", message: "Required" }`. */
export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * Base of every error the API reports on purpose. `code` is stable and
 * documented; `message` is for humans and never carries secret values.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: FieldIssue[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: FieldIssue[], code = 'validation_failed') {
    super(400, code, message, details);
  }
}

/** 400 `duplicate_name`: names are unique per organization, for every resource that has one. */
export class DuplicateNameError extends ValidationError {
  constructor(resource: string, name: string) {
    super(`Another ${resource} is already named "${name}"`, [{ path: 'name', message: 'must be unique in the organization' }], 'duplicate_name');
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Missing or invalid access token', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, code = 'forbidden') {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string) {
    super(404, 'not_found', `${resource} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

/** The caller may try again after `retryAfterSeconds`, which the error middleware sends as `Retry-After`. */
export abstract class RetryLaterError extends AppError {
  constructor(
    status: 429 | 503,
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(status, code, message);
  }
}

/** 429: this caller sent more than its share. */
export class TooManyRequestsError extends RetryLaterError {
  constructor(message: string, code: string, retryAfterSeconds: number) {
    super(429, code, message, retryAfterSeconds);
  }
}

/** 503: the service has no room for this now, whoever sends it; nothing was started. */
export class ServiceBusyError extends RetryLaterError {
  constructor(message: string, code: string, retryAfterSeconds: number) {
    super(503, code, message, retryAfterSeconds);
  }
}
