import type { IncomingMessage } from 'node:http';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResourcesSync, envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Context } from '@opentelemetry/api';
import { SERVICE_VERSION } from '../config/service-identity';
import { loggedPath } from '../http/request-log';
import { outboundUrlAttributes } from './span-redaction';
import { inheritedRunAttributes, markTracingOn } from './trace-context';
import type { TracingSettings } from './tracing-settings';

/** Copies the organization and workflow of the context a span starts in onto the span (trace-context.ts withRunAttributes). */
class RunAttributesProcessor implements SpanProcessor {
  onStart(span: Span, parent: Context): void {
    const attributes = inheritedRunAttributes(parent);
    if (attributes) span.setAttributes(attributes);
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Tracing {
  resource: Resource;
  /** Where the worker's workflow spans go (they are made in the workflow sandbox and handed out through a sink). */
  processor: SpanProcessor;
  /** Exports what is buffered and stops; at shutdown. */
  shutdown(): Promise<void>;
}

function exporterFor(settings: TracingSettings): SpanExporter {
  // Each reads OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _TIMEOUT and _COMPRESSION itself.
  if (settings.protocol === 'http/json') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: settings.url });
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url: settings.url });
}

/** Webhook calls get their server span from the webhook route, which knows the trigger and whether to continue the caller's trace. */
const WEBHOOK_PATH = /^\/w\/@/;

/**
 * Registers the tracer provider (W3C trace context, the sampler of OTEL_TRACES_SAMPLER) and the instrumentations:
 * incoming HTTP and outbound calls through undici (fetch included; `traceparent` is added to each). Data store and
 * analytics queries have spans of their own (traced-methods.ts, the analytics service), named by what they do: a
 * span per SQL statement cost about a third of tracing's overhead and said less. It must run before http and undici
 * load: see tracing-start.ts.
 */
export function startTracing(settings: TracingSettings, role: string): Tracing {
  // The stable HTTP attribute names only (url.path, http.request.method…), as the undici instrumentation writes them:
  // the old ones (http.target, http.url) would carry the raw path and query string that startIncomingSpanHook replaces.
  process.env.OTEL_SEMCONV_STABILITY_OPT_IN = 'http';
  const resource = detectResourcesSync({ detectors: [envDetectorSync] }).merge(
    new Resource({ 'service.name': settings.serviceName, 'service.version': SERVICE_VERSION, 'flowbase.process.role': role }),
  );
  const processor = new BatchSpanProcessor(exporterFor(settings));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new RunAttributesProcessor(), processor] });
  // Trace context only, no baggage: nothing of ours rides along to a vendor.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || WEBHOOK_PATH.test(req.url ?? ''),
        // Outbound calls go through undici; what node:http sends is the exporter's own traffic.
        ignoreOutgoingRequestHook: () => true,
        // The query string may carry a secret, a resume link's path its token: the path as the request log writes it.
        startIncomingSpanHook: (req) => ({ 'url.path': loggedPath((req as IncomingMessage).url ?? '/'), 'url.query': undefined as never }),
      }),
      new UndiciInstrumentation({ startSpanHook: (request) => outboundUrlAttributes(request.origin, request.path) }),
    ],
  });
  markTracingOn();
  return { resource, processor, shutdown: () => provider.shutdown() };
}
