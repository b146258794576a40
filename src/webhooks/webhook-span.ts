import { context, INVALID_SPAN_CONTEXT, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import { ATTR, runAttributes, traceResponse, tracer, tracingOn, withRunAttributes } from '../observability/trace-context';
import type { AcceptedCall } from './webhook-host';

const ROUTE = '/w/@:organizationSuid/:triggerName';
/** With tracing off: no span, no header, no listener on the answer. */
const NOT_TRACED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * The server span of a webhook call (tracing on). It is opened here rather than by the HTTP instrumentation because
 * whether it continues the caller's `traceparent` is the trigger's choice, known only once the trigger is found; it
 * starts when the call arrived all the same. A call refused before that (unknown trigger, wrong secret) starts a
 * trace of its own. The answer names the trace in `traceresponse` (W3C Trace Context level 2), so a caller can find
 * its run's trace; a workflow's answer cannot set that header (src/http/answer-headers.ts).
 */
export function openWebhookSpan(req: Request, res: Response, arrivedAt: number, accepted: AcceptedCall | undefined): Span {
  if (!tracingOn()) return NOT_TRACED;
  const parent = accepted?.traceContext === 'honour' ? propagation.extract(ROOT_CONTEXT, req.headers) : ROOT_CONTEXT;
  const span = tracer().startSpan(
    `${req.method} ${ROUTE}`,
    {
      kind: SpanKind.SERVER,
      startTime: arrivedAt,
      attributes: {
        'http.request.method': req.method,
        'http.route': ROUTE,
        // A refused call's path is the caller's to choose: bounded like an outbound call's.
        'url.path': req.path.slice(0, 512),
        ...(accepted
          ? {
              ...runAttributes(accepted.run.organizationId, accepted.run.workflow.id),
              [ATTR.trigger]: accepted.run.trigger.name,
              'flowbase.webhook.mode': accepted.synchronous ? 'sync' : 'async',
            }
          : {}),
      },
    },
    parent,
  );
  const header = traceResponse(span);
  if (header && !res.headersSent) res.setHeader('traceresponse', header);
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  return span;
}

/** Runs `fn` as part of the call's span, with its organization and workflow on every span beneath. */
export function inWebhookSpan<T>(span: Span, accepted: AcceptedCall, fn: () => T): T {
  if (!tracingOn()) return fn();
  const within: Context = trace.setSpan(ROOT_CONTEXT, span);
  return context.with(within, () => withRunAttributes(runAttributes(accepted.run.organizationId, accepted.run.workflow.id), fn));
}
