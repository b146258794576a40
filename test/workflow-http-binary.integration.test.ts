import { createHash, randomBytes } from 'node:crypto';
import { as, quietTemporalRuntime, type Harness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import type { TestOrg } from './factories';
import { httpStep, startWorkflowHarness, stepOf, type WorkflowApi } from './workflow-api';

/**
 * A binary answer carried on by `core.http`, through the real stack: the
 * scheduled report of docs/analytics.md, with a local stub in place of the
 * service's report route and of the upload target. The PDF (about the size a
 * report has) is offloaded between the steps and read back by the template.
 */

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300 * 1024), Buffer.from('\n%%EOF\n')]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;

beforeAll(async () => {
  // One run here fails on purpose: keep the worker's WARN line about it out of the output.
  quietTemporalRuntime('ERROR');
  stub = await startHttpStub();
  ({ h, org, a } = await startWorkflowHarness(stub));
});
afterAll(async () => {
  await h?.close();
  await stub?.close();
});

test('a workflow fetches a PDF and PUTs the same bytes on with bodyType base64', async () => {
  stub.on('/dashboards/d1/report.pdf', (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF));
  stub.on('/upload/report.pdf', (req, res) => sendJson(res, 200, { received: req.raw.length }));
  const environment = await a.createEnvironment({
    REPORT_TOKEN: { value: 'report-token-0001', secret: true },
    REPORT_UPLOAD_URL: `${stub.url}/upload/report.pdf`,
  });
  const { id } = await a.createWorkflow(
    [
      httpStep('report', {
        method: 'POST',
        url: `${stub.url}/dashboards/d1/report.pdf`,
        headers: { Authorization: 'Bearer {{ $env.REPORT_TOKEN }}' },
        body: { filters: { region: ['EU'] }, timezone: 'Europe/Paris' },
      }),
      httpStep('upload', {
        method: 'PUT',
        url: '{{ $env.REPORT_UPLOAD_URL }}',
        headers: { 'content-type': 'application/pdf' },
        bodyType: 'base64',
        body: '{{ report.bodyBase64 }}',
      }),
    ],
    { environment },
  );

  const execution = await a.runAndWait(id);
  expect(execution.status).toBe('completed');
  const [uploaded] = stub.calls('/upload/report.pdf');
  expect(uploaded.method).toBe('PUT');
  expect(sha256(uploaded.raw)).toBe(sha256(PDF));
  expect(uploaded.headers).toMatchObject({ 'content-type': 'application/pdf', 'content-length': String(PDF.length) });
  expect(stepOf(execution, 'upload').output).toMatchObject({ status: 200, body: { received: PDF.length } });

  // The report's output is larger than a step record shows inline; its reference answers every byte.
  const full = await as(h.app, org.ownerToken).get(stepOf(execution, 'report').omitted!.output!.href);
  expect(full.status).toBe(200);
  expect(full.body).toMatchObject({ status: 200, body: null, text: null, bytes: PDF.length });
  expect(sha256(Buffer.from(full.body.bodyBase64, 'base64'))).toBe(sha256(PDF));
});

test('a body that is not base64 fails the step without retry; nothing is sent', async () => {
  const { id } = await a.createWorkflow([
    httpStep('upload', { method: 'PUT', url: `${stub.url}/upload/bad`, bodyType: 'base64', body: 'not base64 {{ initial.n }}!', retry: { limit: 2 } }),
  ]);
  const execution = await a.runAndWait(id, { n: 1 });
  expect(execution.status).toBe('failed');
  expect(stepOf(execution, 'upload')).toMatchObject({ status: 'failed', attempt: 1, error: expect.stringContaining('must be base64') });
  expect(stub.calls('/upload/bad')).toHaveLength(0);
});
