import {
  context,
  createContextKey,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * What the service's own code needs of tracing, on the OpenTelemetry API alone. src/observability/tracing.ts registers
 * the provider when OTEL_* settings ask for traces, and says so here (markTracingOn): until then every helper below
 * calls straight through, so the webhook, step and data store paths build no context, span or promise for it.
 */

let tracing = false;

/** Tracing is on in this process (startTracing). */
export function markTracingOn(): void {
  tracing = true;
}

export function tracingOn(): boolean {
  return tracing;
}

/** What `fn` gets as its span when tracing is off: records nothing. */
const NOT_TRACED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** The service's tracer: step, model-call, webhook and analytics spans. */
export function tracer(): Tracer {
  return trace.getTracer('flowbase');
}

/** The organization and workflow a span works for: every span started beneath carries them (RunAttributesProcessor). */
const RUN_ATTRIBUTES = createContextKey('flowbase.run-attributes');
/** How the current step masks a string for its record: outbound call spans mask their URL the same way. */
const MASK = createContextKey('flowbase.mask');

export const ATTR = {
  organization: 'flowbase.organization.id',
  workflow: 'flowbase.workflow.id',
  execution: 'flowbase.execution.id',
  stepId: 'flowbase.step.id',
  stepType: 'flowbase.step.type',
  stepAttempt: 'flowbase.step.attempt',
  stepStatus: 'flowbase.step.status',
  trigger: 'flowbase.trigger.name',
} as const;

export function runAttributes(organizationId: string | undefined, workflowId?: string, executionId?: string): Attributes {
  const attributes: Attributes = {};
  if (organizationId) attributes[ATTR.organization] = organizationId;
  if (workflowId) attributes[ATTR.workflow] = workflowId;
  if (executionId) attributes[ATTR.execution] = executionId;
  return attributes;
}

/** Sets `attributes` on the active span and on every span started inside `fn`. */
export function withRunAttributes<T>(attributes: Attributes, fn: () => T): T {
  if (!tracing) return fn();
  const active = context.active();
  trace.getSpan(active)?.setAttributes(attributes);
  const inherited = active.getValue(RUN_ATTRIBUTES) as Attributes | undefined;
  return context.with(active.setValue(RUN_ATTRIBUTES, { ...inherited, ...attributes }), fn);
}

export function inheritedRunAttributes(parent: Context): Attributes | undefined {
  return parent.getValue(RUN_ATTRIBUTES) as Attributes | undefined;
}

/** Runs `fn` with `mask` as the masking of outbound URLs (a step's secrets are masked in its spans as in its record). */
export function withMasking<T>(mask: (text: string) => string, fn: () => T): T {
  if (!tracing) return fn();
  return context.with(context.active().setValue(MASK, mask), fn);
}

export function activeMask(): ((text: string) => string) | undefined {
  return context.active().getValue(MASK) as ((text: string) => string) | undefined;
}

/**
 * Runs `fn` in a new active span named `name`, ending it when `fn` settles. An error is recorded by its type only
 * (`error.type` and the status): a message may hold what a provider or vendor answered.
 */
export async function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  if (!tracing) return fn(NOT_TRACED);
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      const type = err instanceof Error ? err.name : 'error';
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      span.setAttribute('error.type', type);
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Names the request's server span (opened by the HTTP instrumentation) after its route, and labels it and every span
 * beneath with the caller's organization. Nothing at all when the request is not traced.
 */
export function inRouteSpan<T>(method: string, route: string, organizationId: string | undefined, fn: () => T): T {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return fn();
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
  return organizationId ? withRunAttributes(runAttributes(organizationId), fn) : fn();
}

/** `traceresponse` (W3C Trace Context level 2) naming `span` (the active one by default), so a caller can find the trace of its call; undefined when untraced. */
export function traceResponse(span: Span | undefined = trace.getActiveSpan()): string | undefined {
  const spanContext = span?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-0${spanContext.traceFlags.toString(16)}`;
}
