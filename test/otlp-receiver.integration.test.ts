import { randomUUID } from 'node:crypto';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as OTLPJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { startJaeger, type Jaeger } from './otlp-receiver';

// The receiver the tracing tests export to (test/otlp-receiver.ts): spans sent by the OpenTelemetry exporters the
// service uses, over both OTLP/HTTP encodings, come back from Jaeger whole.
let jaeger: Jaeger;

beforeAll(async () => {
  jaeger = await startJaeger();
});

afterAll(async () => {
  await jaeger?.close();
});

/** A parent and a child span, batched as the service batches them, through `exporter`; resolves once they were sent. */
async function sendTrace(exporter: SpanExporter, serviceName: string, marker: string): Promise<{ traceId: string; parentId: string; childId: string }> {
  const provider = new BasicTracerProvider({
    resource: new Resource({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('otlp-receiver-test', '1.2.3');
  const parent = tracer.startSpan('POST /v1/workflows/:id/runs', {
    kind: SpanKind.SERVER,
    attributes: { 'http.route': '/v1/workflows/:id/runs', 'http.response.status_code': 201, 'flowbase.cached': false },
  });
  const child = tracer.startSpan(
    'db.query',
    { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', marker } },
    trace.setSpan(context.active(), parent),
  );
  child.addEvent('retry', { attempt: 2 });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'deadlock detected' });
  child.end();
  parent.end();
  // shutdown flushes the batch and waits for the receiver's answer.
  await provider.shutdown();
  return { traceId: parent.spanContext().traceId, parentId: parent.spanContext().spanId, childId: child.spanContext().spanId };
}

describe.each([
  ['http/protobuf', (url: string) => new OTLPProtoExporter({ url })],
  ['http/json', (url: string) => new OTLPJsonExporter({ url })],
])('Jaeger receives %s', (protocol, exporterFor) => {
  it('stores the parent and child spans with their names, kinds, attributes, status, resource and scope', async () => {
    const serviceName = `otlp-receiver-${protocol.replace('/', '-')}`;
    const marker = `marker-${randomUUID()}`;
    const sent = await sendTrace(exporterFor(jaeger.tracesUrl), serviceName, marker);

    const spans = await jaeger.waitForTrace(sent.traceId, (found) => found.length === 2);
    const parent = spans.find((span) => span.spanId === sent.parentId)!;
    const child = spans.find((span) => span.spanId === sent.childId)!;
    expect(parent).toMatchObject({
      traceId: sent.traceId,
      name: 'POST /v1/workflows/:id/runs',
      kind: 'server',
      attributes: { 'http.route': '/v1/workflows/:id/runs', 'http.response.status_code': 201, 'flowbase.cached': false },
      status: { code: 'unset' },
      resource: { 'service.name': serviceName },
      scope: { name: 'otlp-receiver-test', version: '1.2.3' },
    });
    expect(parent.parentSpanId).toBeUndefined();
    expect(child).toMatchObject({
      traceId: sent.traceId,
      parentSpanId: sent.parentId,
      name: 'db.query',
      kind: 'client',
      attributes: { 'db.system': 'postgresql', marker },
      status: { code: 'error', message: 'deadlock detected' },
      events: [{ name: 'retry', attributes: { attempt: 2 } }],
    });
    expect(child.durationMs).toBeGreaterThanOrEqual(0);
    expect(Math.abs(parent.startTime - Date.now())).toBeLessThan(60_000);

    // Everything exported, as the debug exporter printed it: where a test looks for a secret that must not be there.
    expect(jaeger.exportedText()).toContain(`-> marker: Str(${marker})`);
    expect(jaeger.exportedText()).toContain(`-> service.name: Str(${serviceName})`);

    // The search by service finds the same two spans.
    const byService = await jaeger.allSpans(serviceName);
    expect(byService.map((span) => span.spanId).sort()).toEqual([sent.parentId, sent.childId].sort());
  });
});

it('offers the OTLP base URL that OTEL_EXPORTER_OTLP_ENDPOINT takes, and answers no spans for an unknown trace', async () => {
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = jaeger.otlpEndpoint;
  try {
    const sent = await sendTrace(new OTLPProtoExporter(), 'otlp-receiver-env', `marker-${randomUUID()}`);
    const spans = await jaeger.waitForTrace(sent.traceId, (found) => found.length === 2);
    expect(spans.map((span) => span.name).sort()).toEqual(['POST /v1/workflows/:id/runs', 'db.query']);
  } finally {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
  }
  expect(await jaeger.trace('0123456789abcdef0123456789abcdef')).toEqual([]);
});
