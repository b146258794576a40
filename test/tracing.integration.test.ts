import { randomBytes } from 'node:crypto';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { freePort } from '../src/infra/free-port';
import { tracingSinks } from '../src/observability/temporal-tracing';
import { eventually, uniqueName, type TestOrg } from './factories';
import { createConnection, quietTemporalRuntime, type Harness } from './harness';
import { fixtureFiles, loadFixture } from './histories';
import { startJaeger, type ExportedSpan, type Jaeger } from './otlp-receiver';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { returnStep, startWorkflowHarness, type Step, type WorkflowApi } from './workflow-api';
import { serviceEntry, startServiceProcess, type ServiceProcess } from './worker-process';

/**
 * Traces, end to end: a service process (`src/main.ts all`, instrumented as it starts) exports over OTLP to a real
 * receiver (Jaeger's all-in-one, test/otlp-receiver.ts). A webhook call that makes an HTTP call, a model call and a
 * data store write is one trace from the caller's traceparent to the vendor's, with the spans Temporal's interceptors
 * and the service's own code open; a trigger set to `ignore` starts a trace of its own; an API-started run is one trace
 * too. Nothing the test organization holds as a secret reaches anything exported. Traced runs' histories, and the
 * committed fixtures, replay with tracing on, and replaying exports nothing.
 */

const SERVICE_NAME = `flowbase-tracing-${randomBytes(3).toString('hex')}`;
const CALLER_TRACE = randomBytes(16).toString('hex');
const CALLER_SPAN = randomBytes(8).toString('hex');

let jaeger: Jaeger;
let vendor: HttpStub;
let llm: LlmProviderStub;
let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let service: ServiceProcess;
let base: string;
const secrets = {
  apiKey: `sk-trace-${randomBytes(12).toString('hex')}`,
  envToken: `env-secret-${randomBytes(12).toString('hex')}`,
  pathToken: `path-secret-${randomBytes(12).toString('hex')}`,
};

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [jaeger, vendor, llm] = await Promise.all([
    startJaeger(),
    startHttpStub({ fallback: (_req, res) => sendJson(res, 200, { ok: true }) }),
    startLlmProviderStub(),
  ]);
  ({ h, org, a } = await startWorkflowHarness(vendor));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = await startServiceProcess([...(await serviceEntry('main')), 'all'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      RUN_WORKER: 'true',
      TEMPORAL_TASK_QUEUE: `tracing-${randomBytes(4).toString('hex')}`,
      HTTP_OUTBOUND_ALLOW: [vendor.host, new URL(llm.url).host].join(','),
      LLM_OPENAI_BASE_URL: llm.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      OTEL_SERVICE_NAME: SERVICE_NAME,
      // Export within a fifth of a second: the test reads what arrived.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    ready: 'API listening',
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await h?.close();
  await Promise.all([vendor?.close(), llm?.close(), jaeger?.close()]);
});

const steps = async (): Promise<Step[]> => {
  await createConnection(h.app, org, { name: 'openai', type: 'api-key', config: { apiKey: secrets.apiKey } });
  const table = uniqueName('traced');
  return [
    {
      stepId: 'call',
      stepType: 'core.http',
      input: {
        method: 'POST',
        url: `${vendor.url}/bot{{ $env.PATH_TOKEN }}/send?key={{ $env.TOKEN }}`,
        headers: { Authorization: 'Bearer {{ $env.TOKEN }}' },
        body: { about: '{{ initial.about }}' },
      },
    },
    {
      stepId: 'classify',
      stepType: 'ai.llm-call',
      input: {
        provider: { provider: 'openai', connection: 'openai', model: 'gpt-4o-mini' },
        mode: { mode: 'structured_output', user_prompt: 'Classify: {{ initial.about }}', output_schema: { label: 'string: the category' } },
      },
    },
    { stepId: 'save', stepType: 'data-store.set', input: { tableName: table, key: 'last', value: { label: '{{ classify.object.label }}' } } },
    returnStep('answer', { label: '{{ classify.object.label }}' }),
  ];
};

/** The path of a span to the trace's root, by name: where in the tree it sits. */
function ancestry(spans: ExportedSpan[], span: ExportedSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const names: string[] = [];
  for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) names.push(at.name);
  return names;
}

/** No span's parent is missing (bar the caller's own span): batches arrive apart, and a tree read early has holes. */
function complete(spans: ExportedSpan[], callerSpan?: string): boolean {
  const ids = new Set(spans.map((s) => s.spanId));
  return spans.every((s) => s.parentSpanId === undefined || s.parentSpanId === callerSpan || ids.has(s.parentSpanId));
}

const named = (spans: ExportedSpan[], name: string | RegExp) => spans.filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));

let triggerSecret: string;
let webhookTrace: { traceId: string; executionId: string; spans: ExportedSpan[] };

describe('a webhook call that honours the caller’s traceparent', () => {
  test('is one trace from the caller to the vendor, each step, model call and query beneath its run', async () => {
    const environment = await a.createEnvironment({
      TOKEN: { value: secrets.envToken, secret: true },
      PATH_TOKEN: { value: secrets.pathToken, secret: true },
    });
    const hook = await a.createHook(await steps(), { environment, authentication: true });
    triggerSecret = hook.trigger.secret!;
    llm.respondWith({ label: 'billing' });

    const res = await fetch(`${base}${hook.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hook.trigger.secret}`, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ about: 'refund please' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ label: 'billing' });
    // traceresponse names the caller's trace and the call's server span.
    const [, traceId, serverSpanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(res.headers.get('traceresponse') ?? '') ?? [];
    expect(traceId).toBe(CALLER_TRACE);

    // Every span read below: the server span ends after the answer is out, the run's after its last step, so batches bring them apart.
    const spans = await jaeger.waitForTrace(
      CALLER_TRACE,
      (s) =>
        s.some((span) => span.spanId === serverSpanId) &&
        named(s, 'RunWorkflow:runWorkflowDefinition').length === 1 &&
        named(s, /^step /).length === 4 &&
        named(s, 'chat gpt-4o-mini').length === 1 &&
        named(s, /^datastore\./).length > 0 &&
        complete(s, CALLER_SPAN),
    );
    const server = spans.find((s) => s.spanId === serverSpanId)!;
    expect(server).toMatchObject({ name: 'POST /w/@:organizationSuid/:triggerName', kind: 'server', parentSpanId: CALLER_SPAN });
    expect(server.attributes).toMatchObject({
      'http.route': '/w/@:organizationSuid/:triggerName',
      'http.response.status_code': 200,
      'flowbase.trigger.name': hook.trigger.name,
    });
    expect(server.resource['service.name']).toBe(SERVICE_NAME);

    // The run, from its start to each step, as Temporal's interceptors and the step runner open them.
    const run = named(spans, 'RunWorkflow:runWorkflowDefinition')[0];
    expect(ancestry(spans, run)).toEqual(['StartWorkflow:runWorkflowDefinition', server.name]);
    for (const [stepId, type] of [
      ['call', 'core.http'],
      ['classify', 'ai.llm-call'],
      ['save', 'data-store.set'],
      ['answer', 'core.return'],
    ]) {
      const step = spans.find((s) => s.attributes['flowbase.step.id'] === stepId)!;
      expect(step.name).toBe(`step ${type}`);
      expect(step.attributes).toMatchObject({ 'flowbase.step.type': type, 'flowbase.step.attempt': 1, 'flowbase.step.status': 'completed' });
      expect(ancestry(spans, step).slice(0, 1)[0]).toMatch(/^RunActivity:/);
      expect(ancestry(spans, step)).toContain(run.name);
    }

    // The vendor call: a client span beneath its step, its traceparent what the vendor received, no query string, the path masked.
    const stepSpan = (id: string) => spans.find((s) => s.attributes['flowbase.step.id'] === id)!;
    const vendorCall = spans.find((s) => s.kind === 'client' && s.parentSpanId === stepSpan('call').spanId && s.name === 'POST')!;
    expect(vendorCall.attributes['url.full']).toBe(`${vendor.url}/bot[secret]/send`.replace('[secret]', maskedFormOf(vendorCall)));
    expect(vendorCall.attributes['url.query']).toBeUndefined();
    const received = vendor.requests.find((r) => r.url?.startsWith('/bot'))!;
    expect(received.headers.traceparent).toBe(`00-${CALLER_TRACE}-${vendorCall.spanId}-01`);

    // The model call: GenAI attributes, the provider's HTTP call beneath it.
    const model = named(spans, 'chat gpt-4o-mini')[0];
    expect(model.parentSpanId).toBe(stepSpan('classify').spanId);
    expect(model.attributes).toMatchObject({
      'gen_ai.system': 'openai',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
    });
    expect(spans.some((s) => s.parentSpanId === model.spanId && s.kind === 'client')).toBe(true);
    expect(llm.requests.at(-1)!.headers.traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-`));

    // The data store write: its query beneath the step, named by what it does.
    const writes = spans.filter((s) => s.name.startsWith('datastore.') && ancestry(spans, s)[0] === 'step data-store.set');
    expect(writes.map((s) => [s.name, s.attributes['db.system']])).toEqual([['datastore.upsert', 'postgresql']]);

    // Every span of the run names its organization and workflow.
    const unlabelled = spans.filter(
      (s) => s.attributes['flowbase.organization.id'] !== org.organizationId || s.attributes['flowbase.workflow.id'] !== hook.workflow.id,
    );
    expect(unlabelled.map((s) => s.name)).toEqual([]);

    webhookTrace = { traceId, executionId: res.headers.get('x-execution-id')!, spans };
  });
});

/** How the service masked the path's secret in the span (the step's masking, e.g. `[secret]`): the part between /bot and /send. */
function maskedFormOf(span: ExportedSpan): string {
  const masked = /\/bot(.*)\/send$/.exec(String(span.attributes['url.path']))![1];
  expect(masked).not.toContain(secrets.pathToken);
  return masked;
}

describe('a failing step', () => {
  test('its error is on its spans as the run records it, and the secret the vendor echoed back is in none of them', async () => {
    // The vendor answers 500 with the request's headers in its body, the step's secret among them.
    vendor.on('/echo-fail', (req, res) => sendJson(res, 500, { received: req.headers }));
    const environment = await a.createEnvironment({ TOKEN: { value: secrets.envToken, secret: true } });
    const hook = await a.createHook(
      [
        {
          stepId: 'call',
          stepType: 'core.http',
          input: { method: 'POST', url: `${vendor.url}/echo-fail`, headers: { Authorization: 'Bearer {{ $env.TOKEN }}' } },
        },
      ],
      { environment },
    );
    const res = await fetch(`${base}${hook.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
    const traceId = /^00-([0-9a-f]{32})-/.exec(res.headers.get('traceresponse') ?? '')![1];
    const ended = await a.awaitEnd(((await res.json()) as { executionId: string }).executionId);
    expect(ended.status).toBe('failed');
    const spans = await jaeger.waitForTrace(
      traceId,
      (found) =>
        found.some((span) => span.name === 'step core.http' && span.attributes['flowbase.step.status'] === 'failed') &&
        named(found, 'RunWorkflow:runWorkflowDefinition').length === 1 &&
        complete(found),
    );
    const failedRun = named(spans, 'RunWorkflow:runWorkflowDefinition')[0];
    expect(failedRun.status).toEqual({ code: 'error', message: ended.error!.message });
    expect(spans.filter((span) => span.status.code === 'error').length).toBeGreaterThan(1);
    expect(vendor.calls('/echo-fail').length).toBeGreaterThan(0);
    expect(JSON.stringify(spans)).not.toContain(secrets.envToken);
  });
});

describe('a trigger that ignores traceparent, and an API-started run', () => {
  test('ignore: the call starts a trace of its own, and says which', async () => {
    const hook = await a.createHook([returnStep('answer', { ok: true })]);
    const updated = await request(h.app)
      .patch(`/webhook-triggers/${hook.trigger.id}`)
      .set('Authorization', `Bearer ${org.ownerToken}`)
      .send({ traceContext: 'ignore' });
    expect([updated.status, updated.body.traceContext]).toEqual([200, 'ignore']);
    const otherTrace = randomBytes(16).toString('hex');
    const res = await fetch(`${base}${hook.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${otherTrace}-${CALLER_SPAN}-01` },
      body: '{}',
    });
    expect(res.status).toBe(200);
    const traceId = /^00-([0-9a-f]{32})-/.exec(res.headers.get('traceresponse') ?? '')?.[1];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(otherTrace);
    const spans = await jaeger.waitForTrace(traceId!, (s) => named(s, 'POST /w/@:organizationSuid/:triggerName').length === 1);
    expect(named(spans, 'POST /w/@:organizationSuid/:triggerName')[0].parentSpanId).toBeUndefined();
    expect(await jaeger.trace(otherTrace)).toEqual([]);
  });

  test('POST /workflows/{id}/runs is one trace named by its route', async () => {
    const workflow = await a.createWorkflow([returnStep('answer', { ok: true })]);
    const res = await fetch(`${base}/workflows/${workflow.id}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${org.ownerToken}` },
      body: JSON.stringify({ input: {}, wait: true }),
    });
    expect(res.status).toBe(200);
    const traceId = /^00-([0-9a-f]{32})-/.exec(res.headers.get('traceresponse') ?? '')![1];
    const spans = await jaeger.waitForTrace(
      traceId,
      (s) => named(s, 'step core.return').length === 1 && s.some((span) => span.kind === 'server') && complete(s),
    );
    const server = spans.find((s) => s.kind === 'server')!;
    expect(server.name).toBe('POST /workflows/:id/runs');
    expect(server.attributes['flowbase.organization.id']).toBe(org.organizationId);
    expect(ancestry(spans, named(spans, 'step core.return')[0])).toContain(server.name);
  });
});

describe('analytics', () => {
  test('a query is a span beneath its request, with its shape and not its content', async () => {
    const listed = await request(h.app).get('/dashboards/data-sources').set('Authorization', `Bearer ${org.ownerToken}`);
    const runs = (listed.body as Array<{ type: string; servingRelation: string }>).find((source) => source.type === 'flowbase:runs')!;
    const res = await fetch(`${base}/dashboards/analytics/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${org.ownerToken}` },
      body: JSON.stringify({ query: { measures: [`${runs.servingRelation}.count`] } }),
    });
    expect(res.status).toBe(201);
    const traceId = /^00-([0-9a-f]{32})-/.exec(res.headers.get('traceresponse') ?? '')![1];
    const spans = await jaeger.waitForTrace(
      traceId,
      (s) => named(s, 'analytics.query').length === 1 && s.some((span) => span.kind === 'server') && complete(s),
    );
    const query = named(spans, 'analytics.query')[0];
    expect(ancestry(spans, query)).toEqual(['POST /dashboards/analytics/query']);
    expect(query.attributes).toMatchObject({ 'flowbase.analytics.measures': 1, 'flowbase.analytics.dimensions': 0, 'flowbase.analytics.rows': 1 });
    expect(query.attributes['flowbase.organization.id']).toBe(org.organizationId);
  });
});

describe('what is exported', () => {
  test('holds none of the organization’s secrets', async () => {
    expect(webhookTrace).toBeDefined();
    const everything = jaeger.exportedText();
    expect(everything).toContain(webhookTrace.traceId);
    const leaked = [...Object.values(secrets), org.ownerToken, triggerSecret].filter((secret) => everything.includes(secret));
    expect(leaked).toEqual([]);
    // Nor the payloads: the webhook body and the model's prompt text.
    expect(everything).not.toContain('refund please');
  });
});

describe('replay with tracing on', () => {
  /** A replay worker with the tracing sink of a process exporting to memory: what replay would export shows there. */
  async function replayTraced(histories: Array<{ workflowId: string; history: Awaited<ReturnType<typeof fetchHistory>> }>) {
    const exporter = new InMemorySpanExporter();
    const tracing = { resource: new Resource({}), processor: new SimpleSpanProcessor(exporter), shutdown: async () => undefined };
    const errors: string[] = [];
    async function* each() {
      yield* histories;
    }
    // The workers' other sink, as they inject it (Temporal does not call it during replay either).
    const sinks = { ...tracingSinks(tracing), callerReplies: { answered: { fn: () => undefined, callDuringReplay: false } } };
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEMPORAL_WORKFLOW_BUNDLE! }, sinks }, each())) {
      if (result.error) errors.push(`${result.workflowId}: ${result.error.message}`);
    }
    return { errors, exported: exporter.getFinishedSpans().length };
  }

  const fetchHistory = (workflowId: string) => h.services.temporal.client.workflow.getHandle(workflowId).fetchHistory();

  test('a traced run replays on the current code and replaying exports nothing', async () => {
    expect(webhookTrace).toBeDefined();
    const history = await eventually(
      () => fetchHistory(webhookTrace.executionId),
      (hist) => hist.events!.at(-1)!.eventType === 2 /* WORKFLOW_EXECUTION_COMPLETED */,
    );
    // It was traced: its start carries the trace context the workflow interceptors continue.
    expect(Object.keys(history.events![0].workflowExecutionStartedEventAttributes!.header?.fields ?? {})).toContain('_tracer-data');
    expect(await replayTraced([{ workflowId: webhookTrace.executionId, history }])).toEqual({ errors: [], exported: 0 });
  });

  test('the committed histories replay with tracing on', async () => {
    const files = fixtureFiles();
    expect(files.length).toBeGreaterThan(0);
    const histories = files.map((file) => ({ workflowId: `fixture-${file}`, history: loadFixture(file) }));
    expect(await replayTraced(histories)).toEqual({ errors: [], exported: 0 });
  });
});
