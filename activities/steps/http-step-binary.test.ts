import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionsRepository, StepRow } from '../../src/executions/executions.repository';
import { StepOutputSeals } from '../../src/executions/step-output-seals';
import { createOutboundHttp, type OutboundHttp } from '../../src/outbound/outbound-http';
import { createLiquid } from '../../src/templates/template-engine';
import { TemplateRenderer } from '../../src/templates/template-renderer';
import { STEP_INLINE_LIMIT, type StepRequest } from '../../workflows/run.types';
import { createHttpStep, decodeBase64Body } from './http-step';
import type { SecretSources } from './step-scope';
import { StepError } from './step-errors';
import { failureOf } from './step-failure.fixture';

/**
 * `core.http` with binary bodies: an answer that is not text comes back as
 * its exact bytes (`bodyBase64`), and `bodyType: base64` sends the bytes a
 * base64 text encodes. The rest of the step: http-step.test.ts.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** About the size of a dashboard report PDF. */
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300 * 1024)]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(2048)]);
const MAX_RESPONSE_BYTES = 1_000_000;

let server: Server;
let port: number;
let received: Received[] = [];
let outbound: OutboundHttp;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, raw: Buffer.concat(chunks) });
      if (req.url === '/report.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      else if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (req.url === '/too-big.bin') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(randomBytes(MAX_RESPONSE_BYTES + 1));
      else if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('plain text');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes: chunks.reduce((n, c) => n + c.length, 0) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  outbound = createOutboundHttp({ allowList: [`127.0.0.1:${port}`], maxResponseBytes: MAX_RESPONSE_BYTES, maxRedirects: 3 });
});

afterAll(async () => {
  await outbound.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

function fakeDeps(stored: Map<string, unknown> = new Map()) {
  const rows: StepRow[] = [];
  const executions = {
    async recordStep(_organizationId: string, _executionId: string, row: StepRow) {
      rows.push(structuredClone(row));
    },
    async stepOutputs(_organizationId: string, _executionId: string, stepIds: string[]) {
      return new Map([...stored].filter(([id]) => stepIds.includes(id)).map(([id, output]) => [id, { output, sealed: null }]));
    },
  } as unknown as ExecutionsRepository;
  const secrets: SecretSources = {
    async environmentValues() {
      return { TOKEN: { value: 'upload-token-0042', secret: true } };
    },
    async connectionByName() {
      return undefined;
    },
  };
  const unused = async () => {
    throw new Error('nothing is sealed in these tests');
  };
  const seals = new StepOutputSeals({ encryptJson: unused, decryptJson: unused });
  const deps = { executions, renderer: new TemplateRenderer(createLiquid()), secrets, seals };
  return { rows, httpStep: createHttpStep(deps, outbound).httpStep };
}

function request(input: Record<string, unknown>, context: Partial<StepRequest['context']> = {}): StepRequest {
  return {
    run: { executionId: 'e', organizationId: 'o', environmentId: 'env' },
    step: { stepId: 'call', stepType: 'core.http', input: { method: 'GET', ...input } },
    seq: 1,
    context: { initial: {}, steps: {}, refs: {}, ...context },
    offloadAboveBytes: STEP_INLINE_LIMIT,
  };
}

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('core.http: a binary answer', () => {
  test('an image comes back byte-exact in bodyBase64, with bytes; body and text are null', async () => {
    const { httpStep } = fakeDeps();
    const result = await httpStep(request({ url: url('/logo.png') }));
    expect(result.output).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'image/png' }),
      body: null,
      text: null,
      bodyBase64: PNG.toString('base64'),
      bytes: PNG.length,
    });
  });

  test('a 300 KB PDF is offloaded; its record keeps every byte', async () => {
    const { httpStep, rows } = fakeDeps();
    const result = await httpStep(request({ url: url('/report.pdf'), method: 'POST' }));
    expect(result).toEqual({ kept: 'record', bytes: expect.any(Number) });
    const recorded = rows[0].output as { bodyBase64: string; bytes: number; body: null; text: null };
    expect(sha256(Buffer.from(recorded.bodyBase64, 'base64'))).toBe(sha256(PDF));
    expect(recorded).toMatchObject({ bytes: PDF.length, body: null, text: null });
  });

  test('a textual answer keeps its shape: status, headers, body and text only', async () => {
    const { httpStep } = fakeDeps();
    const result = await httpStep(request({ url: url('/text') }));
    expect(Object.keys(result.output as object).sort()).toEqual(['body', 'headers', 'status', 'text']);
    expect(result.output).toMatchObject({ status: 200, body: 'plain text', text: 'plain text' });
  });

  test('the response size limit counts the bytes', async () => {
    const { httpStep } = fakeDeps();
    const failure = await failureOf(httpStep(request({ url: url('/too-big.bin') })));
    expect(failure.type).toBe('ResponseTooLarge');
    expect(failure.nonRetryable).toBe(true);
  });
});

describe('core.http: bodyType base64', () => {
  test('sends the exact bytes with the content-type the step sets', async () => {
    const { httpStep, rows } = fakeDeps();
    await httpStep(
      request(
        { url: url('/upload'), method: 'PUT', bodyType: 'base64', body: '{{ logo.bodyBase64 }}', headers: { 'Content-Type': 'image/png' } },
        { steps: { logo: { bodyBase64: PNG.toString('base64') } } },
      ),
    );
    expect(received[0].raw.equals(PNG)).toBe(true);
    expect(received[0].headers['content-type']).toBe('image/png');
    expect(received[0].headers['content-length']).toBe(String(PNG.length));
    // The record shows the body as rendered: the base64 text.
    expect((rows[0].input as { body: string }).body).toBe(PNG.toString('base64'));
  });

  test('an offloaded 300 KB answer is read back through {{ report.bodyBase64 }}; the secret header is masked, the body kept', async () => {
    const { httpStep, rows } = fakeDeps(new Map([['report', { status: 200, bodyBase64: PDF.toString('base64'), bytes: PDF.length }]]));
    const result = await httpStep(
      request(
        {
          url: url('/upload'),
          method: 'PUT',
          bodyType: 'base64',
          body: '{{ report.bodyBase64 }}',
          headers: { 'content-type': 'application/pdf', Authorization: 'Bearer {{ $env.TOKEN }}' },
        },
        { refs: { report: { record: 'report' } } },
      ),
    );
    expect(sha256(received[0].raw)).toBe(sha256(PDF));
    expect(received[0].headers['content-type']).toBe('application/pdf');
    expect(result.output).toMatchObject({ status: 200, body: { bytes: PDF.length } });
    const input = rows[0].input as { headers: Record<string, string>; body: string };
    expect(input.headers.Authorization).toBe('Bearer [secret]');
    expect(input.body).toBe(PDF.toString('base64'));
  });

  test('without a content-type header, application/octet-stream', async () => {
    const { httpStep } = fakeDeps();
    await httpStep(request({ url: url('/upload'), method: 'POST', bodyType: 'base64', body: 'AAEC/w==' }));
    expect([...received[0].raw]).toEqual([0, 1, 2, 255]);
    expect(received[0].headers['content-type']).toBe('application/octet-stream');
  });

  test.each([
    ['text that is not base64', 'not base64!', /must be base64/],
    ['a misplaced padding', 'AA==AA==', /must be base64/],
    ['an impossible length', 'AAAAA', /must be base64/],
    ['a template naming nothing', '{{ report.bodyBase64 }}', /rendered to nothing/],
    ['an object', { data: 'AAEC' }, /rendered to a value of type object/],
  ])('%s fails the step as InvalidBase64Body without retry; nothing is sent', async (_label, body, message) => {
    const { httpStep, rows } = fakeDeps();
    const failure = await failureOf(
      httpStep(request({ url: url('/upload'), method: 'PUT', bodyType: 'base64', body, retry: { limit: 3 } }, { steps: { report: { text: 'hi' } } })),
    );
    expect(failure.type).toBe('InvalidBase64Body');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(message);
    expect(received).toHaveLength(0);
    expect(rows[0].status).toBe('failed');
  });
});

describe('decodeBase64Body', () => {
  test('takes the standard and URL-safe alphabets, with or without padding, line breaks ignored', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x10]);
    for (const text of ['+/+/ABA=', '+/+/ABA', '-_-_ABA=', '+/+/\r\nABA=']) expect(decodeBase64Body(text).equals(bytes)).toBe(true);
  });

  test('does not quote the value in its message: it may be a secret', () => {
    expect(() => decodeBase64Body('secret-token-0001!')).toThrow(StepError);
    expect(() => decodeBase64Body('secret-token-0001!')).toThrow(/^((?!secret-token).)*$/);
  });
});
