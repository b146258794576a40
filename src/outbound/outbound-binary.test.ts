import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundHttp, isTextualMediaType, type OutboundHttp } from './outbound-http';

describe('isTextualMediaType', () => {
  test.each([
    undefined,
    '',
    'text/plain',
    'text/csv; charset=utf-8',
    'TEXT/HTML',
    'application/json',
    'application/problem+json; charset=utf-8',
    'application/vnd.api+json',
    'application/xml',
    'image/svg+xml',
    'application/x-www-form-urlencoded',
    'application/javascript',
    'application/x-ndjson; charset=utf-8',
    'application/yaml; charset="UTF-8"',
  ])('%s is text', (contentType) => expect(isTextualMediaType(contentType)).toBe(true));

  test.each([
    'application/pdf',
    'image/png',
    'application/octet-stream',
    'application/zip',
    'audio/mpeg',
    'application/pdf; charset=binary',
    'application/x-ndjson',
  ])('%s is binary', (contentType) => expect(isTextualMediaType(contentType)).toBe(false));
});

describe('a binary body through the outbound client', () => {
  const bytes = randomBytes(64 * 1024);
  let server: http.Server;
  let client: OutboundHttp;
  let base: string;

  beforeAll(async () => {
    // Answers with what it received, as application/octet-stream.
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    client = createOutboundHttp({ allowList: [`127.0.0.1:${port}`], maxResponseBytes: 1024 * 1024, maxRedirects: 0 });
  });

  afterAll(async () => {
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('goes out and comes back byte for byte; text and body are null', async () => {
    const res = await client.request({ url: `${base}/echo`, method: 'PUT', headers: {}, body: bytes, timeoutMs: 5000 });
    expect(res.binary?.equals(bytes)).toBe(true);
    expect(res.text).toBeNull();
    expect(res.body).toBeNull();
  });
});
