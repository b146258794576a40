import { inspect } from 'node:util';
import request from 'supertest';
import type { Express } from 'express';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApp } from '../src/app/app';
import { createLogger } from '../src/logging/logger';
import { as, createConnection, type Harness, startHarness } from './harness';
import { reply, sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { historyText as historyTextOf, workflowApi, type Execution, type WorkflowApi } from './workflow-api';
import { createTestOrg, type TestOrg, waitFor } from './factories';

/**
 * Secrets (environment values, connection credentials and the headers built
 * from them) reach the remote server, and nowhere else: not the Temporal
 * history, not the execution record, not an error, not a log line.
 *
 * The API and the worker here are the harness's services with a logger that
 * writes to memory, and the Temporal runtime logger (once per process) also
 * writes to memory, so the last test can read every log line of the file.
 */

const SECRET_TOKEN = 'sk-live-abc123xyz';
const SECRET_URL = 'sk-live-url-5Tg7Lm9Q';
const API_KEY = 'ck-live-7Hq2ZpX9wR';
const BASIC_USER = 'svc-robot';
const BASIC_PASSWORD = 'bp-live-Wm4r8Kt2';
/** Passwords often hold characters that URLs and JSON escape. */
const SPECIAL_PASSWORD = 'pw/live+Xy7=@q&z';
const QUOTED_PASSWORD = 'qt-"live"\\9Z';
const BEARER = `Bearer ${API_KEY}`;
const BASIC = `Basic ${Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64')}`;
/** Every value that must never be stored or logged (the username is not a secret). */
const SECRETS = [
  SECRET_TOKEN,
  SECRET_URL,
  API_KEY,
  BASIC_PASSWORD,
  BEARER,
  BASIC,
  Buffer.from(`${BASIC_USER}:${BASIC_PASSWORD}`).toString('base64'),
  SPECIAL_PASSWORD,
  QUOTED_PASSWORD,
];

let h: Harness;
let app: Express;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let environment: string;
const appLogs: string[] = [];
const temporalLogs: string[] = [];
let temporalLogsCaptured = false;
let stopWorker: (() => Promise<void>) | undefined;

/** Installs a Temporal runtime logger writing to memory; only possible before the process's first worker. */
function captureTemporalLogs() {
  try {
    Runtime.install({
      logger: new DefaultLogger('DEBUG', (entry) => temporalLogs.push(`${entry.level} ${entry.message} ${inspect(entry.meta, { depth: 10 })}`)),
      telemetryOptions: { logging: { filter: { core: 'DEBUG', other: 'WARN' }, forward: {} } },
    });
    temporalLogsCaptured = true;
  } catch {
    // Another file of this process installed the runtime first: its logs cannot be read here.
  }
}

beforeAll(async () => {
  captureTemporalLogs();
  h = await startHarness();
  org = await createTestOrg(h.services);
  stub = await startHttpStub({ fallback: reply(200, { ok: true }) });
  // Echoes the credentials it was sent, as a careless (or hostile) server might.
  stub.on('/echo', (req, res) => sendJson(res, 200, { authorization: req.headers.authorization ?? null, token: req.headers['x-secret-token'] ?? null }));

  // The app and the worker of the harness, logging at trace level into memory.
  const logger = createLogger('trace', { write: (line: string) => void appLogs.push(line) });
  app = createApp({ ...h.services, logger });
  a = workflowApi(app, org);
  stopWorker = (await h.startWorker({ httpAllowList: [stub.host] }, { logger })).stop;

  environment = await a.createEnvironment({ SECRET_TOKEN, SECRET_URL, SPECIAL_PASSWORD, QUOTED_PASSWORD });
  await createConnection(app, org, { name: 'vault_api', type: 'api-key', config: { apiKey: API_KEY } });
  await createConnection(app, org, { name: 'vault_basic', type: 'basic-auth', config: { username: BASIC_USER, password: BASIC_PASSWORD } });
});

afterAll(async () => {
  await stopWorker?.();
  await h?.close();
  await stub?.close();
});

/** Creates a workflow running in the file's environment; returns its id and name. */
const createWorkflow = (steps: unknown[]) => a.createWorkflow(steps, { environment });

const historyText = (executionId: string) => historyTextOf(h.services.temporal.client, executionId);

/** Fails naming the first secret found in `text`. */
function expectNoSecret(text: string) {
  for (const secret of SECRETS) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false });
}

describe('a run using an env secret and connections', () => {
  let executionId: string;
  let webhookResponse: request.Response;

  beforeAll(async () => {
    const wf = await createWorkflow([
      {
        stepId: 'call',
        stepType: 'core.http',
        input: {
          url: `${stub.url}/secret-call`,
          method: 'POST',
          headers: { 'X-Secret-Token': '{{ $env.SECRET_TOKEN }}' },
          connection: 'vault_api',
          body: { token: '{{ $env.SECRET_TOKEN }}' },
        },
      },
      { stepId: 'basic', stepType: 'core.http', input: { url: `${stub.url}/secret-basic`, connection: '{{ $connections.vault_basic }}' } },
      { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { status: '{{ call.status }}' } } } },
      // After the answer: a regular activity, whose input is kept in history.
      {
        stepId: 'after',
        stepType: 'core.http',
        input: { url: `${stub.url}/secret-after`, headers: { 'X-Secret-Token': '{{ $env.SECRET_TOKEN }}' }, connection: 'vault_api' },
      },
    ]);
    const trigger = await a.createTrigger(wf.id);
    webhookResponse = await request(app).post(trigger.path).send({ hello: 'world' });
    expect(webhookResponse.status).toBe(200);
    executionId = webhookResponse.headers['x-execution-id'];
    await h.services.temporal.client.workflow.getHandle(executionId).result();
  });

  test('the remote server receives the real secret values', async () => {
    const [call] = stub.calls('/secret-call');
    expect(call.headers['x-secret-token']).toBe(SECRET_TOKEN);
    expect(call.headers.authorization).toBe(BEARER);
    expect(JSON.parse(call.body)).toEqual({ token: SECRET_TOKEN });
    expect(stub.calls('/secret-basic')[0].headers.authorization).toBe(BASIC);
    expect(stub.calls('/secret-after')[0].headers).toMatchObject({ 'x-secret-token': SECRET_TOKEN, authorization: BEARER });
  });

  test('the Temporal history holds no secret, payloads decoded', async () => {
    const text = await historyText(executionId);
    expect(text).toContain('/secret-call'); // the decoded payloads are really searched
    expectNoSecret(text);
  });

  test('the recorded step inputs show [secret] in place of the header values and the body', async () => {
    const execution = await a.readExecution(executionId);
    const step = (id: string) => execution.steps.find((s) => s.stepId === id)!;
    expect(step('call').input.headers).toMatchObject({ 'X-Secret-Token': '[secret]', Authorization: '[secret]' });
    expect(step('call').input.body).toEqual({ token: '[secret]' });
    expect(step('basic').input.headers).toMatchObject({ Authorization: '[secret]' });
    expect(step('after').input.headers).toMatchObject({ 'X-Secret-Token': '[secret]', Authorization: '[secret]' });
  });

  test('the execution JSON and the webhook response hold no secret', async () => {
    const execution = await a.readExecution(executionId);
    expect(execution.status).toBe('completed');
    expectNoSecret(JSON.stringify(execution));
    expectNoSecret(webhookResponse.text);
    expectNoSecret(JSON.stringify(webhookResponse.headers));
  });
});

describe('a step failing with an error that would echo a secret', () => {
  const failing = () =>
    createWorkflow([
      { stepId: 'call', stepType: 'core.http', input: { url: '{{ $env.SECRET_URL }}', headers: { 'X-Secret-Token': '{{ $env.SECRET_TOKEN }}' } } },
      // A return step makes the webhook synchronous: its caller hears of the failure.
      { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body: { never: true } } } },
    ]);

  test('the test run answers with the execution and step errors masked', async () => {
    const wf = await failing();
    const res = await as(app, org.ownerToken).post(`/workflows/${wf.id}/test`).send({});
    expect(res.status).toBe(200);
    const execution = res.body as Execution;
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ stepId: 'call', code: 'InvalidUrl', message: expect.stringContaining('[secret]') });
    expect(execution.steps[0]).toMatchObject({ stepId: 'call', status: 'failed', error: expect.stringContaining('[secret]') });
    expectNoSecret(res.text);
    expectNoSecret(JSON.stringify(await a.readExecution(execution.id)));
  });

  test('the webhook caller gets a masked error, and the history holds no secret', async () => {
    const wf = await failing();
    const trigger = await a.createTrigger(wf.id);
    const res = await request(app).post(trigger.path).send({});
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'run_failed', stepId: 'call', message: expect.stringContaining('[secret]') });
    expectNoSecret(res.text);
    const executionId = res.headers['x-execution-id'];
    await h.services.temporal.client.workflow
      .getHandle(executionId)
      .result()
      .catch(() => undefined);
    expectNoSecret(await historyText(executionId));
  });

  test('a step failing after the answer (a regular activity) leaves no secret in its failure in history', async () => {
    const wf = await createWorkflow([
      { stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 202, body: { accepted: true } } } },
      { stepId: 'late', stepType: 'core.http', input: { url: '{{ $env.SECRET_URL }}' } },
    ]);
    const trigger = await a.createTrigger(wf.id);
    const res = await request(app).post(trigger.path).send({});
    expect(res.status).toBe(202);
    const executionId = res.headers['x-execution-id'];
    await h.services.temporal.client.workflow
      .getHandle(executionId)
      .result()
      .catch(() => undefined);
    const execution = await a.readExecution(executionId);
    expect(execution).toMatchObject({ status: 'failed', error: { stepId: 'late', message: expect.stringContaining('[secret]') } });
    const text = await historyText(executionId);
    expect(text).toContain('activityTaskFailedEventAttributes'); // the failure really is in history
    expectNoSecret(text);
  });
});

describe('a server that echoes the credentials back', () => {
  test('the stored step output shows [secret] in place of the echoed values', async () => {
    const wf = await createWorkflow([
      {
        stepId: 'echo',
        stepType: 'core.http',
        input: { url: `${stub.url}/echo`, headers: { 'X-Secret-Token': '{{ $env.SECRET_TOKEN }}' }, connection: 'vault_api' },
      },
    ]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(stub.calls('/echo')[0].headers.authorization).toBe(BEARER);
    const stored = await a.readExecution(execution.id);
    expect(stored.steps[0].output.body).toEqual({ authorization: '[secret]', token: '[secret]' });
    expectNoSecret(stored.steps[0].output.text);
    expectNoSecret(JSON.stringify(stored));
    expectNoSecret(await historyText(execution.id));
  });
});

// A viewer may read executions (workflows:view) but not secrets (no secrets:view): the record must not reveal them.
describe('secrets in encoded form', () => {
  test('a secret sent as a query parameter is masked in the recorded URL, in its URL-encoded form too', async () => {
    const wf = await createWorkflow([
      { stepId: 'call', stepType: 'core.http', input: { url: `${stub.url}/query-secret`, searchParams: { password: '{{ $env.SPECIAL_PASSWORD }}' } } },
    ]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(new URL(stub.calls('/query-secret')[0].url, stub.url).searchParams.get('password')).toBe(SPECIAL_PASSWORD);
    const recorded = (await a.readExecution(execution.id, org.tokens.viewer)).steps[0].input.url as string;
    expect(recorded).not.toContain(new URLSearchParams({ password: SPECIAL_PASSWORD }).toString());
    expect(new URL(recorded).searchParams.get('password')).toBe('[secret]');
  });

  test('a secret with quotes and backslashes sent in a JSON body is masked in the recorded body, in its JSON-escaped form too', async () => {
    const wf = await createWorkflow([
      { stepId: 'call', stepType: 'core.http', input: { url: `${stub.url}/json-secret`, method: 'POST', body: { password: '{{ $env.QUOTED_PASSWORD }}' } } },
    ]);
    const execution = await a.testRun(wf.id);
    expect(execution.status).toBe('completed');
    expect(JSON.parse(stub.calls('/json-secret')[0].body)).toEqual({ password: QUOTED_PASSWORD });
    const execution2 = await a.readExecution(execution.id, org.tokens.viewer);
    expect(execution2.steps[0].input.body).toEqual({ password: '[secret]' });
    const text = JSON.stringify(execution2);
    expect(text).not.toContain(JSON.stringify(QUOTED_PASSWORD).slice(1, -1));
    expect(text).not.toContain(QUOTED_PASSWORD);
  });
});

describe('logs', () => {
  // Runs last: every run of this file has logged by now.
  test('no log line of the API, the activities or the Temporal worker holds a secret', async () => {
    // One more failing run, so the worker has failures to log.
    const wf = await createWorkflow([{ stepId: 'call', stepType: 'core.http', input: { url: '{{ $env.SECRET_URL }}' } }]);
    const lastRun = await a.testRun(wf.id);
    expect(lastRun.status).toBe('failed');

    expect(appLogs.length).toBeGreaterThan(0); // request lines at least: the capture works
    expectNoSecret(appLogs.join('\n'));
    if (temporalLogsCaptured) {
      // The worker logs a run's end after the API has answered, and forwards core logs in batches:
      // wait for the last run's eviction, the last line of its run.
      await waitFor(
        () => {
          const failed = temporalLogs.find((line) => line.includes('Workflow failed') && line.includes(lastRun.id));
          const runId = failed?.match(/runId: '([^']+)'/)?.[1];
          return runId !== undefined && temporalLogs.some((line) => line.includes('Evicting run') && line.includes(runId));
        },
        { what: "the last run's log lines" },
      );
      expect(temporalLogs.join('\n')).toContain('Workflow failed');
      expectNoSecret(temporalLogs.join('\n'));
    }
  });
});
