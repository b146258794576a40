import {
  OutboundInvalidUrl,
  OutboundRedirectRefused,
  OutboundRefused,
  OutboundResponseTooLarge,
  OutboundTimeout,
  OutboundTooManyRedirects,
  type OutboundHttp,
} from '../../src/outbound/outbound-http';
import { idempotencyKey, withIdempotencyKey } from './idempotency-key';
import { asText } from '../../src/templates/template-renderer';
import { HTTP_DEFAULT_TIMEOUT_MS, type StepRequest } from '../../workflows/run.types';
import { activityContext } from './activity-context';
import { replaceHeader, signRequest, SIGNING_CONNECTION_TYPE } from './request-signing';
import { StepError } from './step-errors';
import { runStep, type StepRunnerDeps } from './step-runner';
import type { ResolvedConnection, StepScope } from './step-scope';

/** Statuses worth another attempt under the step's `retry.limit`; other 4xx answers will not change. */
const RETRYABLE_STATUS = (status: number) => status >= 500 || status === 429 || status === 408;

/**
 * `core.http`: renders the request, applies the connection, sends it through
 * the SSRF-guarded client, and fails on a 4xx/5xx answer (retried per
 * `retry.limit` when the status may be transient). Output `{ status, headers, body, text }`
 * for a textual answer; for a binary one (a PDF, an image: see
 * `isTextualMediaType`) `body` and `text` are null and `bodyBase64` holds
 * the exact bytes, `bytes` their count.
 */
export function createHttpStep(deps: StepRunnerDeps, http: OutboundHttp) {
  return {
    httpStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const input = request.step.input;
        // `retry.limit` counts retries of the request's own failures; attempts past it are the worker's (see the interpreter).
        const mayRetry = (activityContext()?.info.attempt ?? 1) <= (input.retry?.limit ?? 0);
        const key = idempotencyKey(request.run.executionId, request.step.stepId);
        const { url, response } = await sendHttpRequest(scope, http, input, mayRetry, trace, key);
        if (response.status >= 400) {
          throw new StepError(`HTTP ${response.status} from ${url.host}`, 'HttpStatus', mayRetry && RETRYABLE_STATUS(response.status));
        }
        const { status, headers, body, text, binary } = response;
        if (binary) return { status, headers, body: null, text: null, bodyBase64: binary.toString('base64'), bytes: binary.length };
        return { status, headers, body, text };
      });
    },
  };
}

/** What `core.http` and an agent's HTTP tool send: the request fields, each string a template. */
export interface HttpRequestInput {
  url: string;
  method: string;
  headers?: Record<string, string>;
  searchParams?: Record<string, string>;
  body?: unknown;
  /** `base64`: `body` renders to base64 text, sent as the bytes it encodes. */
  bodyType?: 'json' | 'text' | 'base64';
  connection?: string;
  /** A `webhook-signing` connection that signs the body as sent (request-signing.ts). */
  sign?: { connection: string };
  timeoutMs?: number;
}

/**
 * Renders a request, applies its connection, signs it (`sign`) and sends it
 * through the SSRF-guarded client with `idempotencyKey` (unless the request
 * sets its own); `trace.input` gets the request as rendered (masked later,
 * like every recorded value). Each call renders and signs afresh: a retried
 * attempt sends the same key with a new signature timestamp. Transport
 * failures are StepErrors, any HTTP status is an answer: the caller decides
 * what a 4xx means.
 */
export async function sendHttpRequest(
  scope: StepScope,
  http: OutboundHttp,
  input: HttpRequestInput,
  mayRetry: boolean,
  trace: { input?: unknown },
  idempotencyKey: string,
) {
  const url = parseUrl(asText(await scope.render(input.url)));
  for (const [name, value] of Object.entries(await scope.renderStrings(input.searchParams))) url.searchParams.append(name, value);
  const headers = await scope.renderStrings(input.headers);
  withIdempotencyKey(headers, idempotencyKey);
  if (input.connection) applyConnection(headers, await scope.connection(input.connection), scope);
  const body = await renderBody(input, headers, scope);
  if (input.sign) signRequest(headers, body?.payload, await scope.connection(input.sign.connection), scope);
  // The body as rendered, not serialized: masking finds secrets in values, not inside escaped JSON text.
  trace.input = { method: input.method, url: url.toString(), headers, ...(body ? { body: body.rendered } : {}) };
  const response = await send(mayRetry, http, {
    url: url.toString(),
    method: input.method,
    headers,
    body: body?.payload,
    timeoutMs: input.timeoutMs ?? HTTP_DEFAULT_TIMEOUT_MS,
    signal: activityContext()?.cancellationSignal,
  });
  return { url, response };
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new StepError(`url does not render to an absolute URL: "${text}"`, 'InvalidUrl');
  }
}

const DEFAULT_CONTENT_TYPE = { json: 'application/json', text: 'text/plain; charset=utf-8', base64: 'application/octet-stream' } as const;

/**
 * JSON unless `bodyType` says text or base64 (bytes); the content type
 * follows unless the step set one. `rendered` is what the record shows (for
 * base64, the base64 text).
 */
async function renderBody(
  input: HttpRequestInput,
  headers: Record<string, string>,
  scope: StepScope,
): Promise<{ rendered: unknown; payload: string | Buffer } | undefined> {
  if (input.body === undefined) return undefined;
  const rendered = await scope.renderDeep(input.body);
  const bodyType = input.bodyType ?? 'json';
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = DEFAULT_CONTENT_TYPE[bodyType];
  if (bodyType === 'base64') return { rendered, payload: decodeBase64Body(rendered) };
  return { rendered, payload: bodyType === 'text' ? asText(rendered) : JSON.stringify(rendered) };
}

/** Standard or URL-safe alphabet, padding optional; whitespace (line breaks) is ignored. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * The bytes a `bodyType: base64` body encodes. Strict where Buffer.from is
 * lenient (it skips what it cannot read): anything but base64 text fails the
 * step, not retried, rather than sending other bytes than meant.
 */
export function decodeBase64Body(rendered: unknown): Buffer {
  if (typeof rendered !== 'string') {
    throw new StepError(`With bodyType base64, body must render to base64 text; it rendered to ${kindOf(rendered)}`, 'InvalidBase64Body');
  }
  const compact = rendered.replace(/\s+/g, '');
  if (compact === '') {
    // Most likely a template naming nothing: a textual answer has no bodyBase64.
    throw new StepError('With bodyType base64, body must render to base64 text; it rendered to nothing', 'InvalidBase64Body');
  }
  const padded = compact.endsWith('=');
  if (!BASE64.test(compact) || (padded ? compact.length % 4 !== 0 : compact.length % 4 === 1)) {
    // The value itself is not quoted: it may hold a secret.
    throw new StepError(
      `With bodyType base64, body must be base64 (A-Z, a-z, 0-9, + and / or - and _, = padding only at the end); the rendered body (${rendered.length} characters) is not`,
      'InvalidBase64Body',
    );
  }
  return Buffer.from(compact, 'base64');
}

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a value of type ${typeof value}`);

/**
 * Applies a connection as its type says (2.3): `api-key` as a header with its
 * prefix, `basic-auth` as Basic credentials.
 */
function applyConnection(headers: Record<string, string>, connection: ResolvedConnection, scope: StepScope): void {
  const config = connection.config;
  let name: string;
  let value: string;
  if (connection.type === 'api-key') {
    name = typeof config.headerName === 'string' && config.headerName ? config.headerName : 'Authorization';
    const prefix = typeof config.prefix === 'string' ? config.prefix : 'Bearer';
    value = prefix ? `${prefix} ${String(config.apiKey)}` : String(config.apiKey);
  } else if (connection.type === 'basic-auth') {
    name = 'Authorization';
    value = `Basic ${Buffer.from(`${String(config.username ?? '')}:${String(config.password ?? '')}`).toString('base64')}`;
  } else {
    const signing = connection.type === SIGNING_CONNECTION_TYPE ? ` (a ${SIGNING_CONNECTION_TYPE} connection goes in sign.connection)` : '';
    throw new StepError(
      `Connection "${connection.name}" has type "${connection.type}", which core.http cannot apply; use an api-key or basic-auth connection${signing}`,
      'InvalidStepInput',
    );
  }
  scope.addSecret(value);
  replaceHeader(headers, name, value);
}

async function send(mayRetry: boolean, http: OutboundHttp, req: Parameters<OutboundHttp['request']>[0]) {
  try {
    return await http.request(req);
  } catch (err) {
    if (err instanceof OutboundRefused) throw new StepError(err.message, 'OutboundRefused');
    if (err instanceof OutboundInvalidUrl) throw new StepError(err.message, 'InvalidUrl');
    if (err instanceof OutboundTooManyRedirects) throw new StepError(err.message, 'TooManyRedirects');
    if (err instanceof OutboundRedirectRefused) throw new StepError(err.message, 'RedirectRefused');
    if (err instanceof OutboundResponseTooLarge) throw new StepError(err.message, 'ResponseTooLarge');
    if (err instanceof OutboundTimeout) throw new StepError(err.message, 'HttpTimeout', mayRetry);
    throw new StepError((err as Error).message, 'HttpError', mayRetry);
  }
}
