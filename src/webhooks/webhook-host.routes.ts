import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ValidationError } from '../errors/errors';
import { assertSafeInput } from '../http/json-guard';
import { statusClass, webhookAnswers } from '../observability/metrics';
import { sendReply } from '../executions/reply-resolver';
import { MethodNotAllowedError, type AcceptedCall, type WebhookHost } from './webhook-host';
import { inWebhookSpan, openWebhookSpan } from './webhook-span';

export interface WebhookHostDeps {
  host: WebhookHost;
  bodyLimit: string;
  /** The public base of webhook URLs: Twilio signs the URL it called, which is this and the path, not what a proxy forwarded. */
  webhookBaseUrl: string;
}

/** `?env=<name>` once; repeated or empty it is refused rather than silently ignored. */
function environmentParam(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError('Give ?env= once, with an environment name', [{ path: 'env', message: 'one environment name' }], 'invalid_env');
  }
  return value;
}

type Handler = (req: Request, res: Response) => Promise<void>;
const forward = (handler: Handler) => (req: Request, res: Response, next: NextFunction) => handler(req, res).then(() => next(), next);

/**
 * `{webhook_base_url}/w/@<organization_suid>/<trigger_name>` (4.1). No return
 * step: 202 with the execution id as soon as Temporal has the run. With one:
 * the caller waits, at most WEBHOOK_SYNC_TIMEOUT_SECONDS, for its response.
 * The body is read only after the trigger, method and secret check out, and
 * kept as the exact bytes received until its signature is checked.
 */
export function registerWebhookHost(app: Express, deps: WebhookHostDeps): void {
  const accept: Handler = async (req, res) => {
    assertSafeInput(req.params, 'params');
    assertSafeInput(req.query, 'query');
    try {
      res.locals.accepted = await deps.host.accept({
        organizationSuid: String(req.params.organizationSuid),
        triggerName: String(req.params.triggerName),
        method: req.method,
        authorization: req.get('authorization'),
        environmentName: environmentParam(req.query.env),
      });
    } catch (err) {
      if (err instanceof MethodNotAllowedError) res.set('Allow', err.allow);
      throw err;
    }
  };

  const base = deps.webhookBaseUrl.replace(/\/$/, '');
  const run = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const accepted = res.locals.accepted as AcceptedCall;
      const answered = await inWebhookSpan(res.locals.span, accepted, () =>
        deps.host.run(accepted, {
          body: Buffer.isBuffer(req.body) ? req.body : undefined,
          header: (name) => req.get(name),
          url: base + req.originalUrl,
          contentType: req.get('content-type'),
        }),
      );
      if ('challenge' in answered) {
        res.status(200).json({ challenge: answered.challenge });
        return;
      }
      if (answered.duplicate) res.set('X-Delivery-Duplicate', 'true');
      sendReply(res, answered.executionId, answered.answer);
    } catch (err) {
      next(err);
    }
  };

  // Counted when the answer is sent, whoever sends it (the error middleware included). A call refused before its
  // trigger was known gets its span as it is answered.
  const count: RequestHandler = (req, res, next) => {
    const arrivedAt = performance.timeOrigin + performance.now();
    res.locals.arrivedAt = arrivedAt;
    res.once('finish', () => {
      if (!res.locals.span) openWebhookSpan(req, res, arrivedAt, undefined);
      const accepted = res.locals.accepted as AcceptedCall | undefined;
      const mode = accepted ? (accepted.synchronous ? 'sync' : 'async') : 'unknown';
      webhookAnswers.inc({ status_class: statusClass(res.statusCode), mode });
    });
    next();
  };

  const traced: RequestHandler = (req, res, next) => {
    res.locals.span = openWebhookSpan(req, res, res.locals.arrivedAt as number, res.locals.accepted as AcceptedCall);
    next();
  };

  app.all(
    '/w/@:organizationSuid/:triggerName',
    count,
    forward(accept),
    traced,
    express.raw({ type: () => true, limit: deps.bodyLimit }) as RequestHandler,
    run,
  );
}
