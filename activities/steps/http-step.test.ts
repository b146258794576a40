import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionsRepository, StepRow } from '../../src/executions/executions.repository';
import { StepOutputSeals } from '../../src/executions/step-output-seals';
import { createLiquid } from '../../src/templates/template-engine';
import { TemplateRenderer } from '../../src/templates/template-renderer';
import { STEP_INLINE_LIMIT, type StepRequest } from '../../workflows/run.types';
import { idempotencyKey } from './idempotency-key';
import { createOutboundHttp, type OutboundHttp } from '../../src/outbound/outbound-http';
import { createHttpStep } from './http-step';
import type { ResolvedConnection, SecretSources } from './step-scope';
import { ConnectionTypeCatalog } from '../../src/connections/types/catalog';
import { failureOf } from './step-failure.fixture';

const catalog = new ConnectionTypeCatalog();

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

const BIG_ITEMS = Array.from({ length: 3_000 }, (_, i) => ({ id: i, text: 'x'.repeat(50) }));

let server: Server;
let port: number;
let received: Received[] = [];
/** A second origin, allow-listed too, for redirects that leave the first. */
let otherServer: Server;
let otherPort: number;
let receivedByOther: Received[] = [];
let outbound: OutboundHttp;

function startServer(log: () => Received[]): Promise<Server> {
  const started = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      log().push({ method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body });
      const { pathname: path, searchParams } = new URL(req.url!, 'http://x');
      const status = /^\/status\/(\d{3})$/.exec(path);
      if (path === '/redirect') {
        res.writeHead(Number(searchParams.get('status')), { location: searchParams.get('to')! }).end();
      } else if (status) {
        res.writeHead(Number(status[1]), { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'nope' }));
      } else if (path === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ items: BIG_ITEMS }));
      } else if (path === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('plain text');
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'stub' });
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
      }
    });
  });
  return new Promise((resolve) => started.listen(0, '127.0.0.1', () => resolve(started)));
}

beforeAll(async () => {
  server = await startServer(() => received);
  port = (server.address() as AddressInfo).port;
  otherServer = await startServer(() => receivedByOther);
  otherPort = (otherServer.address() as AddressInfo).port;
  outbound = createOutboundHttp({ allowList: [`127.0.0.1:${port}`, `127.0.0.1:${otherPort}`], maxResponseBytes: 1e6, maxRedirects: 3 });
});

afterAll(async () => {
  await outbound.close();
  await Promise.all([server, otherServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

beforeEach(() => {
  received = [];
  receivedByOther = [];
});

const CONNECTIONS: Record<string, Omit<ResolvedConnection, 'name' | 'secretValues'>> = {
  crm: { id: 'c1', type: 'api-key', config: { apiKey: 'crm-key-0001', headerName: 'X-Api-Key', prefix: 'Token' } },
  plainKey: { id: 'c2', type: 'api-key', config: { apiKey: 'plain-key-0002' } },
  noPrefix: { id: 'c3', type: 'api-key', config: { apiKey: 'raw-key-0003', headerName: 'X-Raw-Key', prefix: '' } },
  basic: { id: 'c4', type: 'basic-auth', config: { username: 'alice', password: 'pa55-word' } },
  mailer: { id: 'c5', type: 'smtp', config: { host: 'smtp.example.com', password: 'smtp-secret' } },
};

const ENV: Record<string, string> = { CRM: '{{ $connections.crm }}', TOKEN: 'env-token-0009' };

function fakeDeps(stored: Map<string, unknown> = new Map()) {
  const rows: Array<{ organizationId: string; executionId: string } & StepRow> = [];
  const stepOutputsCalls: Array<[string, string, string[]]> = [];
  const executions = {
    async recordStep(organizationId: string, executionId: string, row: StepRow) {
      rows.push({ organizationId, executionId, ...structuredClone(row) });
    },
    async stepOutputs(organizationId: string, executionId: string, stepIds: string[]) {
      stepOutputsCalls.push([organizationId, executionId, stepIds]);
      return new Map([...stored].filter(([id]) => stepIds.includes(id)).map(([id, output]) => [id, { output, sealed: null }]));
    },
  } as unknown as ExecutionsRepository;
  const secrets: SecretSources = {
    async environmentValues() {
      return Object.fromEntries(Object.entries(ENV).map(([k, value]) => [k, { value, secret: true }]));
    },
    async connectionByName(_organizationId, name) {
      const found = CONNECTIONS[name];
      return found ? { ...found, name, config: { ...found.config }, secretValues: catalog.secretValues(found.type, found.config) } : undefined;
    },
  };
  // Sealing against the real key store: test/workflow-set-step.integration.test.ts. Here what would be sealed is kept as is.
  const sealed: unknown[] = [];
  const seals = new StepOutputSeals({
    encryptJson: async (_organizationId, _record, value) => {
      sealed.push(value);
      return `sealed-${sealed.length - 1}`;
    },
    decryptJson: async (_organizationId, _record, envelope) => sealed[Number(envelope.slice('sealed-'.length))] as never,
  });
  const deps = { executions, renderer: new TemplateRenderer(createLiquid()), secrets, seals };
  return { deps, rows, sealed, stepOutputsCalls, httpStep: createHttpStep(deps, outbound).httpStep };
}

function request(input: Record<string, unknown>, context: Partial<StepRequest['context']> = {}): StepRequest {
  return {
    run: { executionId: 'e', organizationId: 'o', environmentId: 'env' },
    step: { stepId: 'call', stepType: 'core.http', input: { method: 'GET', ...input } },
    seq: 3,
    context: { initial: { id: 42, ...context.initial }, steps: { ...context.steps }, refs: { ...context.refs } },
    offloadAboveBytes: STEP_INLINE_LIMIT,
  };
}

const url = (path: string) => `http://127.0.0.1:${port}${path}`;

describe('core.http', () => {
  test('renders the request and returns status, headers, body and text; records the step', async () => {
    const { httpStep, rows } = fakeDeps();
    const result = await httpStep(
      request({
        url: url('/echo/{{ initial.id }}'),
        method: 'POST',
        searchParams: { q: 'id {{ initial.id }}' },
        headers: { 'X-Trace': 't-{{ initial.id }}' },
        body: { id: '{{ initial.id }}', nested: ['{{ initial }}'] },
      }),
    );
    expect(received).toHaveLength(1);
    expect(received[0].method).toBe('POST');
    expect(received[0].url).toBe('/echo/42?q=id+42');
    expect(received[0].headers['x-trace']).toBe('t-42');
    expect(received[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(received[0].body)).toEqual({ id: '42', nested: [{ id: 42 }] });

    const output = result.output as { status: number; headers: Record<string, string>; body: { method: string }; text: string };
    expect(output.status).toBe(200);
    expect(output.headers['x-served-by']).toBe('stub');
    expect(output.body.method).toBe('POST');
    expect(JSON.parse(output.text)).toEqual(output.body);

    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ executionId: 'e', stepId: 'call', stepType: 'core.http', seq: 3, status: 'completed', attempt: 1, error: null });
    expect(rows[0].input).toEqual({
      method: 'POST',
      url: url('/echo/42?q=id+42'),
      headers: { 'X-Trace': 't-42', 'content-type': 'application/json', 'Idempotency-Key': idempotencyKey('e', 'call') },
      body: { id: '42', nested: [{ id: 42 }] },
    });
    expect(received[0].headers['idempotency-key']).toBe(idempotencyKey('e', 'call'));
    expect(rows[0].output).toEqual(output);
  });

  test('api-key connection with a custom header name and prefix', async () => {
    const { httpStep, rows, sealed } = fakeDeps();
    const result = await httpStep(request({ url: url('/echo'), connection: 'crm' }));
    expect(received[0].headers['x-api-key']).toBe('Token crm-key-0001');
    expect(received[0].headers.authorization).toBeUndefined();

    const input = rows[0].input as { headers: Record<string, string> };
    expect(input.headers).toEqual({ 'X-Api-Key': '[secret]', 'Idempotency-Key': idempotencyKey('e', 'call') });
    expect(JSON.stringify(rows[0])).not.toContain('crm-key-0001');
    // The echoed header in the recorded output is masked too; the output as it was is sealed for later steps,
    // with the secret they must mask, and the workflow gets a reference, never either copy.
    expect((rows[0].output as { body: { headers: Record<string, string> } }).body.headers['x-api-key']).toBe('[secret]');
    expect(result).toEqual({ kept: 'record', bytes: expect.any(Number) });
    expect(rows[0].sealedOutput).toBe('sealed-0');
    expect(sealed[0]).toMatchObject({
      output: { body: { headers: { 'x-api-key': 'Token crm-key-0001' } } },
      secrets: expect.arrayContaining(['crm-key-0001']),
    });
  });

  test('api-key connection defaults: Authorization with Bearer', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ url: url('/echo'), connection: 'plainKey' }));
    expect(received[0].headers.authorization).toBe('Bearer plain-key-0002');
    expect((rows[0].input as { headers: Record<string, string> }).headers).toEqual({
      Authorization: '[secret]',
      'Idempotency-Key': idempotencyKey('e', 'call'),
    });
  });

  test('api-key connection with an empty prefix sends the key alone', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ url: url('/echo'), connection: '{{ $connections.noPrefix }}' }));
    expect(received[0].headers['x-raw-key']).toBe('raw-key-0003');
    expect(JSON.stringify(rows[0].input)).not.toContain('raw-key-0003');
  });

  test('connection through {{ $env.CRM }}', async () => {
    const { httpStep } = fakeDeps();
    await httpStep(request({ url: url('/echo'), connection: '{{ $env.CRM }}' }));
    expect(received[0].headers['x-api-key']).toBe('Token crm-key-0001');
  });

  test('basic-auth connection', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ url: url('/echo'), connection: 'basic' }));
    const expected = `Basic ${Buffer.from('alice:pa55-word').toString('base64')}`;
    expect(received[0].headers.authorization).toBe(expected);
    expect((rows[0].input as { headers: Record<string, string> }).headers).toEqual({
      Authorization: '[secret]',
      'Idempotency-Key': idempotencyKey('e', 'call'),
    });
    expect(JSON.stringify(rows[0])).not.toContain(Buffer.from('alice:pa55-word').toString('base64'));
  });

  test('an existing Authorization header is replaced, whatever its case', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ url: url('/echo'), headers: { authorization: 'Bearer old-token', Accept: 'application/json' }, connection: 'plainKey' }));
    const sent = received[0].rawHeaders.filter((_, i) => i % 2 === 0 && received[0].rawHeaders[i].toLowerCase() === 'authorization');
    expect(sent).toHaveLength(1);
    expect(received[0].headers.authorization).toBe('Bearer plain-key-0002');
    expect((rows[0].input as { headers: Record<string, string> }).headers).toEqual({
      Accept: 'application/json',
      Authorization: '[secret]',
      'Idempotency-Key': idempotencyKey('e', 'call'),
    });
  });

  test('env secrets used in the URL are masked in the record', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(request({ url: url('/echo?token={{ $env.TOKEN }}') }));
    expect(received[0].url).toBe('/echo?token=env-token-0009');
    expect((rows[0].input as { url: string }).url).toBe(url('/echo?token=[secret]'));
    expect(JSON.stringify(rows[0])).not.toContain('env-token-0009');
  });

  test('text bodies and non-JSON responses', async () => {
    const { httpStep } = fakeDeps();
    const result = await httpStep(request({ url: url('/text'), method: 'PUT', bodyType: 'text', body: 'id={{ initial.id }}' }));
    expect(received[0].body).toBe('id=42');
    expect(received[0].headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(result.output).toMatchObject({ status: 200, body: 'plain text', text: 'plain text' });
  });

  test('503 fails retryably with type HttpStatus while retry.limit allows', async () => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/status/503'), retry: { limit: 2 } })));
    expect(failure.type).toBe('HttpStatus');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`HTTP 503 from 127.0.0.1:${port}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'failed', output: null, error: `HTTP 503 from 127.0.0.1:${port}` });
    expect(rows[0].input).toMatchObject({ method: 'GET', url: url('/status/503') });
  });

  test.each([429, 408, 500])('%s is retryable too', async (status) => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url(`/status/${status}`), retry: { limit: 1 } })));
    expect(failure.type).toBe('HttpStatus');
    expect(failure.nonRetryable).toBe(false);
  });

  test('without retry.limit a 503 is not retried: the limit counts retries of the request', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/status/503') })));
    expect(failure.type).toBe('HttpStatus');
    expect(failure.nonRetryable).toBe(true);
  });

  test('404 fails without retry', async () => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/status/404') })));
    expect(failure.type).toBe('HttpStatus');
    expect(failure.nonRetryable).toBe(true);
    expect(rows[0].status).toBe('failed');
  });

  test('an output over 128 KiB is offloaded; the record keeps the full value', async () => {
    const { httpStep, rows } = fakeDeps();
    const result = await httpStep(request({ url: url('/big') }));
    const recorded = rows[0].output as { status: number; body: { items: unknown[] }; text: string };
    expect(recorded.body.items).toEqual(BIG_ITEMS);
    expect(recorded.text).toBe(JSON.stringify({ items: BIG_ITEMS }));
    expect(Buffer.byteLength(JSON.stringify(recorded))).toBeGreaterThan(STEP_INLINE_LIMIT);
    expect(result).toEqual({ kept: 'record', bytes: Buffer.byteLength(JSON.stringify({ record: 'call' })) });
  });

  test('an offloaded earlier output is loaded back for templates', async () => {
    const { httpStep, stepOutputsCalls } = fakeDeps(new Map([['fetch', { body: { items: [{ id: 'loaded-7' }] } }]]));
    await httpStep(
      request({ url: url('/echo/{{ fetch.body.items[0].id }}/{{ small.v }}') }, { steps: { small: { v: 's' } }, refs: { fetch: { record: 'fetch' } } }),
    );
    expect(received[0].url).toBe('/echo/loaded-7/s');
    expect(stepOutputsCalls).toEqual([['o', 'e', ['fetch']]]);
  });

  test('no offloaded outputs: the repository is not asked', async () => {
    const { httpStep, stepOutputsCalls } = fakeDeps();
    await httpStep(request({ url: url('/echo') }, { steps: { small: { v: 's' } } }));
    expect(stepOutputsCalls).toHaveLength(0);
  });

  test.each([
    ['a non-allow-listed port on loopback', () => `http://127.0.0.1:${port === 1 ? 2 : 1}/`],
    ['an IPv4-compatible form of the metadata address', () => 'http://[::a9fe:a9fe]/latest/meta-data/'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'http://10.0.0.1/'],
  ])('%s is refused without retry', async (_label, target) => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: target(), connection: 'plainKey' })));
    expect(failure.type).toBe('OutboundRefused');
    expect(failure.nonRetryable).toBe(true);
    const host = new URL(target()).hostname.replace(/^\[|\]$/g, '');
    expect(failure.message).toMatch(new RegExp(`^Refused to connect to ${host.replace(/\./g, '\\.')} \\([^)]+\\): address not allowed;`));
    expect(rows[0]).toMatchObject({ status: 'failed', output: null });
    expect(JSON.stringify(rows[0])).not.toContain('plain-key-0002');
  });

  describe('a redirect to another origin', () => {
    const toOther = (status: number) => url(`/redirect?status=${status}&to=${encodeURIComponent(`http://127.0.0.1:${otherPort}/landing`)}`);

    test.each(['crm', 'basic'])("gets none of the step headers, the %s connection's included", async (connection) => {
      const { httpStep } = fakeDeps();
      const result = await httpStep(request({ url: toOther(302), headers: { 'X-Trace': 't-1', Accept: 'application/json' }, connection }));
      expect((result.output as { status: number }).status).toBe(200);
      expect(received[0].headers).toMatchObject({ 'x-trace': 't-1', accept: 'application/json' });
      expect(receivedByOther).toHaveLength(1);
      expect(['x-trace', 'accept', 'x-api-key', 'authorization'].filter((name) => name in receivedByOther[0].headers)).toEqual([]);
    });

    test('a 307 with a body fails as a non-retryable RedirectRefused; the other origin receives nothing', async () => {
      const { httpStep, rows } = fakeDeps();
      const failure = await failureOf(
        httpStep(request({ url: toOther(307), method: 'POST', body: { secret: 'body-0001' }, connection: 'plainKey', retry: { limit: 2 } })),
      );
      expect(failure.type).toBe('RedirectRefused');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toBe(`Redirect (307) to 127.0.0.1:${otherPort} not followed: the request body is not re-sent to another origin`);
      expect(received).toHaveLength(1);
      expect(receivedByOther).toHaveLength(0);
      expect(rows[0]).toMatchObject({ status: 'failed', output: null, error: failure.message });
    });
  });

  test('a connection of type smtp is refused as InvalidStepInput, nothing is sent', async () => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/echo'), connection: 'mailer' })));
    expect(failure.type).toBe('InvalidStepInput');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/type "smtp"/);
    expect(received).toHaveLength(0);
    expect(rows[0].status).toBe('failed');
  });

  test('a missing connection fails as ConnectionNotFound, nothing is sent', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/echo'), connection: 'gone' })));
    expect(failure.type).toBe('ConnectionNotFound');
    expect(failure.nonRetryable).toBe(true);
    expect(received).toHaveLength(0);
  });

  test('a URL that does not render to an absolute URL fails as InvalidUrl', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: '{{ initial.missing }}/path' })));
    expect(failure.type).toBe('InvalidUrl');
    expect(failure.nonRetryable).toBe(true);
  });

  test('a template error fails as a non-retryable TemplateError', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/echo/{{ initial.id | shout }}') })));
    expect(failure.type).toBe('TemplateError');
    expect(failure.nonRetryable).toBe(true);
    expect(received).toHaveLength(0);
  });

  // liquidjs reports its render limits as an AssertionError; the renderer turns it into a TemplateError, so it is not retried.
  test('a hostile template fails as a non-retryable TemplateError', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/echo'), body: { x: '{% for i in (1..100000000) %}x{% endfor %}' } })));
    expect(failure.type).toBe('TemplateError');
    expect(failure.nonRetryable).toBe(true);
  }, 30_000);
});
