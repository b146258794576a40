import { as, createConnection, type Harness, startHarness } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { stepOf, workflowApi } from './workflow-api';
import { workerProcesses } from './worker-process';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';

/**
 * An agent whose worker process is killed with SIGKILL in the middle of its
 * loop resumes on a new worker after the last completed call: no completed
 * model call or tool call runs again; only the call in flight does.
 */

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
let org: TestOrg;
let stub: HttpStub;
let llm: LlmProviderStub;

beforeAll(async () => {
  [stub, llm] = await Promise.all([
    startHttpStub({ fallback: (req, res) => sendJson(res, 200, { id: req.path.split('/').pop(), plan: 'gold' }) }),
    startLlmProviderStub(),
  ]);
  h = await startHarness();
  org = await createTestOrg(h.services);
});
afterAll(async () => {
  await workers.stopAll();
  await llm?.close();
  await h?.close();
  await stub?.close();
});

const workers = workerProcesses(
  () => h.services.config.temporal.taskQueue,
  () => ({ LLM_OPENAI_BASE_URL: llm.url, HTTP_OUTBOUND_ALLOW: stub.host }),
);
const startWorker = () => workers.start();

test('SIGKILL while a tool call is in flight: the run completes, and only that call runs twice', async () => {
  const api = workflowApi(h.app, org);
  const connection = uniqueName('kill_llm');
  await createConnection(h.app, org, { name: connection, type: 'api-key', config: { apiKey: 'sk-kill-test-key-0123456789' } });
  const table = uniqueName('kill_notes');

  // The first request to /slow is never answered (its worker dies holding it); the retry is.
  let slowHits = 0;
  let firstSlow!: () => void;
  const slowArrived = new Promise<void>((resolve) => (firstSlow = resolve));
  let retriedAt = 0;
  stub.on('/slow', (_req, res) => {
    slowHits += 1;
    if (slowHits === 1) return firstSlow();
    retriedAt = Date.now();
    sendJson(res, 200, { checked: true });
  });

  llm.script([
    {
      toolCalls: [
        { name: 'lookup_customer', args: { id: 'c-1' } },
        { name: 'save_note', args: { key: 'c-1', value: { note: 'checked' } } },
      ],
    },
    { toolCalls: [{ name: 'slow_check', args: {} }] },
    { text: 'All checked.' },
  ]);
  const wf = await api.createWorkflow([
    {
      stepId: 'agent',
      stepType: 'ai.agent',
      input: {
        provider: { provider: 'openai', connection, model: 'gpt-4o-mini' },
        user_prompt: 'Check customer c-1',
        tools: [
          {
            type: 'http',
            name: 'lookup_customer',
            description: 'Reads a customer',
            parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            request: { url: `${stub.url}/customers/{{ args.id }}` },
          },
          { type: 'data-store', name: 'save_note', description: 'Saves a note', operation: 'set', tableName: table },
          { type: 'http', name: 'slow_check', description: 'A slow check', parameters: { type: 'object' }, request: { url: `${stub.url}/slow` } },
        ],
      },
    },
  ]);

  const first = await startWorker();
  const accepted = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {} });
  expect(accepted.status).toBe(202);
  const started: string = accepted.body.executionId;
  await slowArrived;
  const killedAt = Date.now();
  await first.kill();
  await startWorker();

  const execution = await eventually(
    () => api.readExecution(started),
    (e) => e.status !== 'running',
    120_000,
  );
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'agent').output.text).toBe('All checked.');

  // Each completed call ran once: three model requests, one CRM lookup, one write; the call in flight ran again.
  expect(llm.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(3);
  expect(stub.calls('/customers/c-1')).toHaveLength(1);
  expect(slowHits).toBe(2);
  // The write ran once, on its first attempt, and created the record (a second run would have found it).
  expect(stepOf(execution, 'agent.tool-2')).toMatchObject({ attempt: 1, output: { key: 'c-1', created: true } });
  expect(stepOf(execution, 'agent.tool-3').attempt).toBe(2);
  const note = await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}/records/c-1`);
  expect(note.status).toBe(200);
  // Recovery: from the kill to the call in flight running again on the new worker (the heartbeat timeout dominates).
  console.log(`agent kill test: the call in flight ran again ${retriedAt - killedAt} ms after SIGKILL`);
}, 240_000);
