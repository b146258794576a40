import { createConnection, quietTemporalRuntime, startHarness, type Harness } from './harness';
import { startHttpStub, type HttpStub } from './stubs/http-stub';
import { httpStep, stepOf, workflowApi, type WorkflowApi } from './workflow-api';
import { createTestOrg, type TestOrg, uniqueName } from './factories';

/**
 * The `core.http` SSRF guard through the real stack: workflows created and run
 * through the API, on a worker that may reach only two local stub servers.
 */

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let first: HttpStub;
/** Another origin (another port), allow-listed too: where redirects lead. */
let second: HttpStub;

beforeAll(async () => {
  // Failed runs are what this file expects: keep the worker's WARN lines about them out of the output.
  quietTemporalRuntime('ERROR');
  [first, second] = await Promise.all([startHttpStub(), startHttpStub()]);
  h = await startHarness();
  org = await createTestOrg(h.services);
  a = workflowApi(h.app, org);
  await h.startWorker({ httpAllowList: [first.host, second.host] });
});
afterAll(async () => {
  await h?.close();
  await Promise.all([first?.close(), second?.close()]);
});

async function run(step: ReturnType<typeof httpStep>) {
  const workflow = await a.createWorkflow([step]);
  const ended = await a.runAndWait(workflow.id);
  return a.readExecution(ended.id);
}

describe('a core.http step aimed at a non-public address', () => {
  // Each target with the addresses it stands for, none of which may appear in what the author can read.
  test.each([
    ['IPv4-compatible metadata address', 'http://[::a9fe:a9fe]/latest/meta-data', ['169.254.169.254']],
    ['IPv4-mapped loopback', 'http://[::ffff:7f00:1]/', ['127.0.0.1']],
    ['IPv4-translated metadata address', 'http://[::ffff:0:a9fe:a9fe]/', ['169.254.169.254']],
    ['NAT64 metadata address', 'http://[64:ff9b::a9fe:a9fe]/', ['169.254.169.254']],
    ['local-use NAT64 address', 'http://[64:ff9b:1::a00:1]/', ['10.0.0.1']],
    ['6to4 form of 10.0.0.1', 'http://[2002:a00:1::1]/', ['10.0.0.1']],
    ['Teredo client 10.0.0.1', 'http://[2001:0:808:808:8000:63bf:f5ff:fffe]/', ['10.0.0.1']],
    ['ISATAP metadata address', 'http://[2606:4700::5efe:a9fe:a9fe]/', ['169.254.169.254']],
    ['host name resolving to loopback', 'http://localhost/', ['127.0.0.1', '::1']],
  ])('%s: the step fails with "address not allowed" and never names the address', async (_name, url, hidden) => {
    const execution = await run(httpStep('call', { url }));
    expect(execution.status).toBe('failed');
    const step = stepOf(execution, 'call');
    expect(step).toMatchObject({ status: 'failed', attempt: 1 });
    expect(step.error).toContain('address not allowed');
    expect(execution.error?.message).toContain('address not allowed');
    // All of the run but its link to the Temporal Web UI, whose own address (loopback, in tests) is not the step's.
    const { temporal: _link, ...rest } = execution;
    const readable = JSON.stringify(rest);
    for (const address of hidden) expect(readable).not.toContain(address);
  });
});

describe('a core.http step redirected to another origin', () => {
  let connection: string;
  beforeAll(async () => {
    connection = uniqueName('conn');
    await createConnection(h.app, org, { name: connection, type: 'api-key', config: { apiKey: 'ssrf-test-key-0001' } });
  });

  test("the other origin receives none of the step headers, the connection's Authorization included", async () => {
    first.on('/hop', (_req, res) => res.writeHead(302, { location: `${second.url}/landing` }).end());
    const execution = await run(httpStep('call', { url: `${first.url}/hop`, headers: { 'X-Custom': 'custom-1', Accept: 'application/json' }, connection }));
    expect(execution.status).toBe('completed');
    expect(first.calls('/hop')[0].headers).toMatchObject({ authorization: 'Bearer ssrf-test-key-0001', 'x-custom': 'custom-1', accept: 'application/json' });
    const [landed] = second.calls('/landing');
    expect(['authorization', 'x-custom', 'accept'].filter((name) => name in landed.headers)).toEqual([]);
  });

  test('a 307 with a body fails the step and the other origin receives nothing', async () => {
    first.on('/hop-307', (_req, res) => res.writeHead(307, { location: `${second.url}/landing-307?token=abc` }).end());
    const execution = await run(httpStep('call', { url: `${first.url}/hop-307`, method: 'POST', body: { order: 42 }, connection, retry: { limit: 2 } }));
    expect(execution.status).toBe('failed');
    expect(stepOf(execution, 'call')).toMatchObject({
      status: 'failed',
      attempt: 1,
      error: `Redirect (307) to ${second.host} not followed: the request body is not re-sent to another origin`,
    });
    expect(first.calls('/hop-307')).toHaveLength(1);
    expect(second.calls('/landing-307')).toHaveLength(0);
  });
});
