/**
 * The console's one way to the API: same origin, the session cookie (HttpOnly,
 * never visible here), and the CSRF token of the session on every write (from
 * its readable cookie, and from GET /session).
 */

import type { ApiSchema } from './schemas';

/** A field the API names in a validation error (`error.details`). */
export type FieldProblem = NonNullable<ApiSchema<'Error'>['error']['details']>[number];

/** An error answer of the API: `{ error: { code, message, details?, requestId } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The session's CSRF token as its readable cookie holds it (set at sign-in beside the HttpOnly session cookie), if any. */
function csrfFromCookie(): string | undefined {
  const match = /(?:^|;\s*)(?:__Host-)?flowbase_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : undefined;
}

// Known before GET /session answers, so a page can start its first requests at once; GET /session confirms it.
let csrfToken: string | undefined = csrfFromCookie();
let onSignedOut: () => void = () => undefined;

/** Called by the session provider: the token to send on writes, and what to do when the session ends. */
export function configureClient(options: { csrfToken?: string; onSignedOut?: () => void }): void {
  csrfToken = options.csrfToken;
  if (options.onSignedOut) onSignedOut = options.onSignedOut;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  signal?: AbortSignal;
  /** Query parameters; undefined and empty values are left out. */
  query?: Record<string, string | number | boolean | undefined | null>;
}

export function withQuery(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

/** The CSRF header for a write sent outside `send` (an upload through XMLHttpRequest, which reports its progress). */
export const csrfHeaders = (): Record<string, string> => (csrfToken ? { 'X-CSRF-Token': csrfToken } : {});

/** Whether this browser looks signed in (it holds a session's CSRF cookie): worth starting requests before GET /session answers. */
export const mayBeSignedIn = () => csrfToken !== undefined;

/** Sends one request; answers the raw Response of a success, throws ApiError otherwise. */
export async function send(method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const response = await fetch(withQuery(path, options.query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  if (response.ok) return response;
  const error = await toApiError(response);
  // The session ended (signed out elsewhere, token revoked, member removed): back to sign-in.
  if (response.status === 401 && path !== '/session') onSignedOut();
  throw error;
}

async function toApiError(response: Response): Promise<ApiError> {
  return apiErrorFrom(response.status, response.statusText, await response.text());
}

/** An error answer's body as an ApiError: the API's `{error: {code, message, details, requestId}}`, or the status line. */
export function apiErrorFrom(status: number, statusText: string, text: string): ApiError {
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; details?: FieldProblem[]; requestId?: string } };
    return new ApiError(status, error.code, error.message, error.details ?? [], error.requestId);
  } catch {
    return new ApiError(status, 'http_error', `${status} ${statusText}${text ? `: ${text.slice(0, 200)}` : ''}`);
  }
}

export async function api<T>(method: Method, path: string, body?: unknown, options?: RequestOptions): Promise<T> {
  const response = await send(method, path, body, options);
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

export const get = <T>(path: string, options?: RequestOptions) => api<T>('GET', path, undefined, options);
export const post = <T>(path: string, body?: unknown, options?: RequestOptions) => api<T>('POST', path, body ?? {}, options);
export const patch = <T>(path: string, body: unknown, options?: RequestOptions) => api<T>('PATCH', path, body, options);
export const put = <T>(path: string, body: unknown, options?: RequestOptions) => api<T>('PUT', path, body, options);
export const del = <T>(path: string, options?: RequestOptions) => api<T>('DELETE', path, undefined, options);

/** Downloads a file answer (CSV, PDF) under the name the server's Content-Disposition gives. */
export async function download(method: Method, path: string, body?: unknown, fallbackName = 'download'): Promise<void> {
  const response = await send(method, path, body);
  const disposition = response.headers.get('content-disposition') ?? '';
  const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
