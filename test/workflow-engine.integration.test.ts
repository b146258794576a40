import { as, createConnection, type Harness, quietTemporalRuntime, startHarness } from './harness';
import { inTurn, sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { httpStep, returnStep, startWorkflowHarness, stepOf, workflowApi, type Step } from './workflow-api';
import { type TestOrg, eventually, uniqueName } from './factories';

// The SDK warns about model names it does not know (the stub answers for any); not what these tests look at.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Creates the workflow and runs it with POST /workflows/:id/runs {wait: true}; answers the execution with its steps. */
async function runToEnd(steps: Step[], input: Record<string, unknown> = {}, harness: Harness = h) {
  const api = workflowApi(harness.app, org);
  const wf = await api.createWorkflow(steps);
  return api.runAndWait(wf.id, input);
}

// ---------------------------------------------------------------------------
// Suite: one harness whose worker may reach only the stub's port, LLM calls go to the provider stub.
// ---------------------------------------------------------------------------

let h: Harness;
let org: TestOrg;
let stub: HttpStub;
/** A second local server the main worker is NOT allowed to reach. */
let other: HttpStub;
let llm: LlmProviderStub;

beforeAll(async () => {
  // Failed steps and runs are what many tests here expect: keep the worker's own WARN lines about them out of the output.
  quietTemporalRuntime('ERROR');
  [stub, other, llm] = await Promise.all([startHttpStub(), startHttpStub(), startLlmProviderStub()]);
  ({ h, org } = await startWorkflowHarness(stub, { worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url } } }));
});
afterAll(async () => {
  await h?.close();
  await Promise.all([stub?.close(), other?.close(), llm?.close()]);
});

// ---------------------------------------------------------------------------

describe('core.http retries', () => {
  test('a step with retry.limit 3 survives two 503 answers and records attempt 3', async () => {
    stub.on('/flaky-twice', inTurn(503, 503, 200));
    const execution = await runToEnd([httpStep('fetch', { url: `${stub.url}/flaky-twice`, retry: { limit: 3 } })]);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'fetch')).toMatchObject({ status: 'completed', attempt: 3, output: { status: 200, body: { call: 3 } } });
    expect(stub.calls('/flaky-twice')).toHaveLength(3);
  });

  test('every attempt of a step sends the same Idempotency-Key; another run or step sends another; a step may set its own', async () => {
    stub.on('/idempotent', inTurn(503, 200, 200, 200, 200));
    const steps = [
      httpStep('charge', { url: `${stub.url}/idempotent`, method: 'POST', body: { amount: 1 }, retry: { limit: 1 } }),
      httpStep('notify', { url: `${stub.url}/idempotent`, method: 'POST' }),
      httpStep('own', { url: `${stub.url}/idempotent`, method: 'POST', headers: { 'idempotency-key': 'order-{{ initial.order }}' } }),
    ];
    const api = workflowApi(h.app, org);
    const wf = await api.createWorkflow(steps);
    const first = await api.runAndWait(wf.id, { order: '42' });
    expect(stepOf(first, 'charge')).toMatchObject({ status: 'completed', attempt: 2 });
    const second = await api.runAndWait(wf.id, { order: '43' });
    expect(second.status).toBe('completed');

    const keys = stub.calls('/idempotent').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(7);
    const [charge1, charge1Retry, notify1, own1, charge2, notify2, own2] = keys;
    expect(charge1Retry).toBe(charge1);
    expect(new Set([charge1, notify1, charge2, notify2]).size).toBe(4);
    expect([own1, own2]).toEqual(['order-42', 'order-43']);
    // The recorded request shows the key it sent.
    expect(stepOf(first, 'charge').input.headers).toMatchObject({ 'Idempotency-Key': charge1 });
  });

  test('a step whose retries run out fails the run, naming the step', async () => {
    stub.on('/flaky-thrice', inTurn(503, 503, 503, 200));
    const execution = await runToEnd([httpStep('fetch', { url: `${stub.url}/flaky-thrice`, retry: { limit: 1 } })]);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'fetch', code: 'HttpStatus', message: expect.stringMatching(/^Step "fetch" \(core\.http\) failed: HTTP 503/) });
    expect(stepOf(execution, 'fetch')).toMatchObject({ status: 'failed', attempt: 2, error: expect.stringContaining('HTTP 503') });
    expect(stub.calls('/flaky-thrice')).toHaveLength(2);
  });

  test('a 404 answer is not retried, whatever retry.limit says', async () => {
    stub.on('/missing', inTurn(404));
    const execution = await runToEnd([httpStep('fetch', { url: `${stub.url}/missing`, retry: { limit: 3 } })]);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'fetch', code: 'HttpStatus', message: expect.stringContaining('HTTP 404') });
    expect(stub.calls('/missing')).toHaveLength(1);
  });
});

describe('core.http requests', () => {
  test.each(['PUT', 'PATCH', 'DELETE', 'HEAD'])('method %s reaches the server unchanged', async (method) => {
    const path = `/method-${method.toLowerCase()}`;
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}${path}`, method })]);
    expect(execution.status).toBe('completed');
    expect(stub.calls(path).map((s) => s.method)).toEqual([method]);
  });

  test('bodyType text sends the rendered text as text/plain', async () => {
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}/text-body`, method: 'POST', bodyType: 'text', body: 'hello {{ initial.name }}' })], {
      name: 'Ada',
    });
    expect(execution.status).toBe('completed');
    const [seen] = stub.calls('/text-body');
    expect(seen.body).toBe('hello Ada');
    expect(seen.headers['content-type']).toMatch(/^text\/plain/);
  });

  test('a JSON body is sent as JSON with content-type application/json, templates resolved', async () => {
    const body = { greeting: 'hi {{ initial.name }}', nested: { list: [1, '{{ initial.name }}'] }, flag: true };
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}/json-body`, method: 'POST', body })], { name: 'Ada' });
    expect(execution.status).toBe('completed');
    const [seen] = stub.calls('/json-body');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ greeting: 'hi Ada', nested: { list: [1, 'Ada'] }, flag: true });
  });

  test('searchParams are encoded into the query string', async () => {
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}/search`, searchParams: { q: '{{ initial.q }}', plain: 'x=y' } })], { q: 'a b&c' });
    expect(execution.status).toBe('completed');
    expect(stub.calls('/search').map((s) => s.url)).toEqual(['/search?q=a+b%26c&plain=x%3Dy']);
  });
});

describe('core.http SSRF guard inside a run', () => {
  /** A harness whose worker has no allow-list at all: every non-public address is refused. */
  let bare: Harness;
  beforeAll(async () => {
    bare = await startHarness();
    await bare.startWorker({ httpAllowList: [] });
  });
  afterAll(() => bare?.close());

  const targets: Array<[string, () => string]> = [
    ['loopback IP', () => `http://127.0.0.1:${stub.port}/ssrf-direct`],
    ['short-form loopback', () => `http://127.1:${stub.port}/ssrf-direct`],
    ['unspecified address', () => `http://0.0.0.0:${stub.port}/ssrf-direct`],
    ['IPv6 loopback', () => `http://[::1]:${stub.port}/ssrf-direct`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${stub.port}/ssrf-direct`],
    ['localhost', () => `http://localhost:${stub.port}/ssrf-direct`],
    ['cloud metadata IP', () => 'http://169.254.169.254/latest/meta-data'],
    ['IPv4-mapped IPv6 metadata IP', () => 'http://[::ffff:169.254.169.254]/'],
    ['decimal loopback', () => `http://2130706433:${stub.port}/ssrf-direct`],
    ['hexadecimal loopback', () => `http://0x7f000001:${stub.port}/ssrf-direct`],
  ];

  test.each(targets)('a request to the %s is refused and never sent', async (_name, url) => {
    const before = stub.calls('/ssrf-direct').length;
    const execution = await runToEnd([httpStep('call', { url: url() })], {}, bare);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({
      stepId: 'call',
      code: 'OutboundRefused',
      message: expect.stringMatching(/^Step "call" \(core\.http\) failed: Refused to connect to /),
    });
    expect(stepOf(execution, 'call')).toMatchObject({ status: 'failed', attempt: 1, error: expect.stringContaining('Refused to connect') });
    expect(stub.calls('/ssrf-direct')).toHaveLength(before);
  });

  test('a redirect from an allow-listed server to the metadata IP is refused', async () => {
    stub.on('/to-metadata', (_s, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end());
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}/to-metadata` })]);
    expect(execution.status).toBe('failed');
    expect(execution.error?.message).toMatch(/Refused to connect to 169\.254\.169\.254 \(link-local address\)/);
    expect(stub.calls('/to-metadata')).toHaveLength(1);
  });

  test('a redirect from an allow-listed server to another local port is refused', async () => {
    stub.on('/to-other-port', (_s, res) => res.writeHead(307, { location: `${other.url}/landing` }).end());
    const execution = await runToEnd([httpStep('call', { url: `${stub.url}/to-other-port` })]);
    expect(execution.status).toBe('failed');
    expect(execution.error?.message).toMatch(/Refused to connect to 127\.0\.0\.1 \(loopback address, not allow-listed on port \d+\)/);
    expect(other.calls('/landing')).toHaveLength(0);
  });
});

describe('large step outputs', () => {
  const items = Array.from({ length: 30_000 }, (_, i) => ({
    id: `item-${i}`,
    name: `Item number ${i}`,
    tags: ['alpha', 'beta', 'gamma'],
    price: i * 1.5,
    notes: 'x'.repeat(20),
  }));
  const payload = JSON.stringify({ items });

  beforeAll(() => {
    expect(payload.length).toBeGreaterThan(3_000_000);
    stub.on('/big', (_s, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(payload));
  });

  test('a 3 MB response completes the run and a later step reads a field from it', async () => {
    const execution = await runToEnd([
      httpStep('big', { url: `${stub.url}/big` }),
      returnStep('answer', { first: '{{ big.body.items[0].id }}', count: '{{ big.body.items | size }}' }),
    ]);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'answer').output).toEqual({ statusCode: 200, body: { first: 'item-0', count: 30000 } });
  });

  test('GET /executions/:id references the large output, and its href gives it in full', async () => {
    const execution = await runToEnd([httpStep('big', { url: `${stub.url}/big` })]);
    expect(execution.status).toBe('completed');
    const read = await as(h.app, org.ownerToken).get(`/executions/${execution.id}`);
    expect(read.status).toBe(200);
    const reference = stepOf(read.body, 'big').omitted!.output!;
    expect(reference).toMatchObject({ href: `/executions/${execution.id}/steps/big/output` });
    const full = await as(h.app, org.ownerToken).get(reference.href);
    expect(full.status).toBe(200);
    const output = full.body;
    expect(output).not.toHaveProperty('record');
    expect(output.status).toBe(200);
    expect(output.body.items).toHaveLength(items.length);
    expect(output.body.items[items.length - 1]).toEqual(items[items.length - 1]);
    expect(output.text).toBe(payload);
  });
});

describe('many step outputs, each under the offload threshold', () => {
  test('together over 4 MB, they still complete the run in Temporal and in the execution record', async () => {
    // ~57 KB of JSON: as output (parsed body plus raw text) ~120 KB, just under the 128 KiB offload threshold.
    const medium = JSON.stringify({ items: Array.from({ length: 1300 }, (_, i) => ({ id: `m-${i}`, pad: 'p'.repeat(20) })) });
    stub.on('/medium', (_s, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(medium));
    const steps = Array.from({ length: 40 }, (_, i) => httpStep(`part${i}`, { url: `${stub.url}/medium` }));
    const execution = await runToEnd([...steps, returnStep('answer', { last: '{{ part39.body.items[0].id }}' })]);
    const temporal = await h.services.temporal.client.workflow.getHandle(execution.id).describe();
    expect({ temporal: temporal.status.name, execution: execution.status, error: execution.error }).toEqual({
      temporal: 'COMPLETED',
      execution: 'completed',
      error: null,
    });
  });
});

describe('worker restarts', () => {
  /** A minimal OpenAI chat completion whose content is `object` as JSON, as the real API answers structured output. */
  const chatCompletion = (object: unknown) => ({
    id: 'chatcmpl-restart',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(object), refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });

  test('a run whose worker is stopped while its model call is in flight completes exactly once on a new worker', async () => {
    // A harness of its own: its worker is stopped and replaced without touching the suite's.
    const rh = await startHarness();
    try {
      // The model call is a regular activity: the first worker holds it when asked to stop, so the
      // steps after it can only run on the second worker (local activities would all drain on the first).
      const settings = { llmBaseUrls: { openai: `${stub.url}/restart-llm` } };
      const first = await rh.startWorker(settings);
      const held = stub.gate();
      stub.on('/restart-llm/chat/completions', async (_seen, res) => {
        await held.pass();
        sendJson(res, 200, chatCompletion({ label: 'restarted' }));
      });
      const connection = uniqueName('restart_key');
      await createConnection(rh.app, org, { name: connection, type: 'api-key', config: { apiKey: 'sk-restart-test-key' } });
      const table = uniqueName('restart');
      const wf = await workflowApi(rh.app, org).createWorkflow([
        {
          stepId: 'think',
          stepType: 'ai.llm-call',
          input: {
            provider: { provider: 'openai', connection, model: 'gpt-4o-mini' },
            mode: { mode: 'structured_output', user_prompt: 'Say something', output_schema: { label: 'string: anything' } },
          },
        },
        { stepId: 'prev', stepType: 'data-store.get', input: { tableName: table, key: 'counter' } },
        {
          stepId: 'count',
          stepType: 'data-store.set',
          input: { tableName: table, key: 'counter', value: { writes: '{{ prev.value.writes | default: 0 | plus: 1 }}' } },
        },
        returnStep('answer', { label: '{{ think.object.label }}', writes: '{{ prev.value.writes | default: 0 | plus: 1 }}' }),
      ]);
      const started = await as(rh.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {} });
      expect(started.status).toBe(202);
      const executionId: string = started.body.executionId;
      const handle = rh.services.temporal.client.workflow.getHandle(executionId);

      // The model call is in flight on the first worker: ask it to stop, then let the call end so it can drain.
      await held.arrived;
      const stopping = first.stop();
      held.open();
      await stopping;
      expect((await handle.describe()).status.name).toBe('RUNNING');

      await rh.startWorker(settings);
      const result = await handle.result();
      expect(result.response).toEqual({ statusCode: 200, body: { label: 'restarted', writes: 1 } });

      const read = await as(rh.app, org.ownerToken).get(`/executions/${executionId}`);
      expect(read.body.status).toBe('completed');
      expect(read.body.steps.map((s: { stepId: string; status: string }) => [s.stepId, s.status])).toEqual([
        ['think', 'completed'],
        ['prev', 'completed'],
        ['count', 'completed'],
        ['answer', 'completed'],
      ]);
      const record = await as(rh.app, org.ownerToken).get(`/data-stores/tables/${table}/records/counter`);
      expect(record.status).toBe(200);
      expect(record.body.value).toEqual({ writes: 1 });

      const runs = await eventually(
        async () => {
          const found = [];
          for await (const run of rh.services.temporal.client.workflow.list({ query: `WorkflowId = '${executionId}'` })) found.push(run);
          return found;
        },
        (found) => found.length > 0 && found.every((r) => r.status.name !== 'RUNNING'),
      );
      expect(runs.map((r) => r.status.name)).toEqual(['COMPLETED']);
    } finally {
      await rh.close();
    }
  });
});

describe('ai.llm-call', () => {
  const KEY = 'sk-test-0123456789abcdef0123456789';
  let connectionName: string;

  beforeAll(async () => {
    connectionName = uniqueName('llm_key');
    await createConnection(h.app, org, { name: connectionName, type: 'api-key', config: { apiKey: KEY } });
  });

  const classify = (provider: 'openai' | 'anthropic', extra: Record<string, unknown> = {}): Step => ({
    stepId: 'classify',
    stepType: 'ai.llm-call',
    input: {
      provider: { provider, connection: connectionName, model: provider === 'openai' ? 'gpt-4o-mini' : 'claude-3-5-haiku-latest' },
      mode: {
        mode: 'structured_output',
        system_prompt: 'You sort support tickets.',
        user_prompt: 'Classify this ticket: {{ initial.ticket }}',
        output_schema: { label: 'string: the category', confidence: 'number: between 0 and 1' },
      },
      ...extra,
    },
  });

  test.each(['openai', 'anthropic'] as const)('%s: the step output object matches the schema and a later step reads it', async (provider) => {
    llm.respondWith({ label: `billing-${provider}`, confidence: 0.9 });
    const before = llm.requests.length;
    const execution = await runToEnd([classify(provider), returnStep('answer', { label: '{{ classify.object.label }}' })], { ticket: 'I was charged twice' });
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'classify').output).toMatchObject({ object: { label: `billing-${provider}`, confidence: 0.9 }, truncated: false });
    expect(stepOf(execution, 'answer').output.body).toEqual({ label: `billing-${provider}` });
    expect(llm.requests.length - before).toBe(1);
  });

  test('openai: the provider gets the rendered prompt and the key from the connection', async () => {
    llm.respondWith({ label: 'refund', confidence: 0.5 });
    const before = llm.requests.length;
    const execution = await runToEnd([classify('openai')], { ticket: 'Please refund order 42' });
    expect(execution.status).toBe('completed');
    const [request] = llm.requests.slice(before);
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(request.body.messages)).toContain('Classify this ticket: Please refund order 42');
    // The step record never shows the key.
    expect(JSON.stringify(execution)).not.toContain(KEY);
  });

  test('anthropic: the provider gets the rendered prompt and the key from the connection', async () => {
    llm.respondWith({ label: 'refund', confidence: 0.5 });
    const before = llm.requests.length;
    const execution = await runToEnd([classify('anthropic')], { ticket: 'Please refund order 43' });
    expect(execution.status).toBe('completed');
    const [request] = llm.requests.slice(before);
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe(KEY);
    expect(JSON.stringify(request.body.messages)).toContain('Classify this ticket: Please refund order 43');
  });

  test('maxPromptCharacters truncates the prompt the provider gets and the output says so', async () => {
    llm.respondWith({ label: 'long', confidence: 0.1 });
    const before = llm.requests.length;
    const execution = await runToEnd([classify('openai', { maxPromptCharacters: 100 })], { ticket: 'y'.repeat(500) });
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'classify').output.truncated).toBe(true);
    const [request] = llm.requests.slice(before);
    const user = request.body.messages.find((m: { role: string }) => m.role === 'user');
    const text = typeof user.content === 'string' ? user.content : user.content.map((p: { text?: string }) => p.text ?? '').join('');
    expect(text).toBe(`Classify this ticket: ${'y'.repeat(500)}`.slice(0, 100));
  });

  test('a 401 from the provider fails the step once, without the key in the error', async () => {
    llm.failNext(401, 3);
    const before = llm.requests.length;
    try {
      const execution = await runToEnd([classify('openai')], { ticket: 'x' });
      expect(execution.status).toBe('failed');
      expect(execution.error).toEqual({ stepId: 'classify', code: 'LlmRequestRejected', message: expect.stringContaining('HTTP 401') });
      expect(llm.requests.length - before).toBe(1);
      const everything = JSON.stringify(execution);
      expect(everything).not.toContain(KEY);
      // OpenAI's own message echoes part of the key; it must not be passed on.
      expect(everything).not.toContain('Incorrect API key provided');
    } finally {
      llm.failNext(401, 0);
    }
  });
});
