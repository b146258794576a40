import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { History } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundlePath } from '@temporalio/worker';
import { as, createConnection, quietTemporalRuntime, type Harness } from './harness';
import { inTurn, reply, sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { budgetPaddedBody, returnStep, startWorkflowHarness, type Step, type WorkflowApi } from './workflow-api';
import { type TestOrg, eventually, uniqueName } from './factories';
import { fixtureFiles, HISTORY_DIR, historyJson, loadFixture } from './histories';

/**
 * Temporal determinism: histories of real runs must replay on the current
 * workflow code. Live runs are replayed as they happen; the histories kept in
 * test/fixtures/histories/ are replayed too, so a change to workflows/ that
 * would break runs already in flight fails here. RECORD_HISTORIES=1 rewrites
 * the fixtures from the live runs (see test/fixtures/histories/README.md).
 */

const RECORD = process.env.RECORD_HISTORIES === '1';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** Echoes JSON; `/fail` answers 500, `/flaky` 503 once then 200, `/big` ~200 KB of JSON (offloaded). */
async function startStub() {
  const stub = await startHttpStub({ fallback: (req, res) => sendJson(res, 200, { method: req.method, url: req.url, items: [{ name: 'first' }] }) });
  const big = JSON.stringify({ items: Array.from({ length: 4000 }, (_, i) => ({ id: `item-${i}`, text: 'z'.repeat(40) })) });
  stub.on('/fail', reply(500, { error: 'boom' }));
  stub.on('/flaky', inTurn(503, 200));
  stub.on('/big', reply(200, big));
  return stub;
}

/** Runs a new workflow of these steps (POST /workflows/:id/runs, wait) and returns its execution id once Temporal has closed it. */
async function runToEnd(steps: Step[], input: Record<string, unknown> = {}, expectedStatus = 'completed'): Promise<string> {
  const wf = await a.createWorkflow(steps);
  const execution = await a.runAndWait(wf.id, input);
  expect(execution.status).toBe(expectedStatus);
  await closed(execution.id);
  return execution.id;
}

/** Waits until Temporal has closed the run (result or failure alike). */
async function closed(workflowId: string): Promise<void> {
  await h.services.temporal.client.workflow
    .getHandle(workflowId)
    .result()
    .catch(() => undefined);
}

/** The run's history; with RECORD_HISTORIES=1 it is also written as the fixture `<name>.json`. */
async function historyOf(name: string, workflowId: string): Promise<History> {
  const history = await h.services.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  if (RECORD) {
    fs.mkdirSync(HISTORY_DIR, { recursive: true });
    fs.writeFileSync(path.join(HISTORY_DIR, `${name}.json`), `${historyJson.stringify(history)}\n`);
  }
  return history;
}

/**
 * One replay worker for the whole file, fed one history at a time (a worker
 * for each replay cost about half a second): `replay` resolves once its history
 * replayed, and rejects with the determinism error, if any.
 */
function replaySession(workflowBundle: WorkflowBundlePath) {
  type Queued = { history: History; workflowId: string; settle: (error?: Error) => void };
  const queued: Queued[] = [];
  const replaying: Queued[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  async function* histories() {
    for (;;) {
      while (queued.length === 0) {
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      const next = queued.shift()!;
      replaying.push(next);
      yield { history: next.history, workflowId: next.workflowId };
    }
  }
  let failed: Error | undefined;
  const results = (async () => {
    // The sink the workers inject (Temporal calls it during no replay, but a workflow naming one not injected is logged).
    const sinks = { callerReplies: { answered: { fn: () => undefined, callDuringReplay: false } } };
    for await (const result of Worker.runReplayHistories({ workflowBundle, sinks }, histories())) replaying.shift()!.settle(result.error);
  })().catch((error: Error) => {
    // The replay worker itself failed: every replay waiting, and any asked for later, fails with it.
    failed = error;
    for (const entry of [...replaying.splice(0), ...queued.splice(0)]) entry.settle(error);
  });
  return {
    replay: (history: History, workflowId: string) =>
      new Promise<void>((resolve, reject) => {
        if (failed) return reject(failed);
        queued.push({ history, workflowId, settle: (error) => (error ? reject(error) : resolve()) });
        wake?.();
      }),
    close: async () => {
      closed = true;
      wake?.();
      await results;
    },
  };
}

let session: ReturnType<typeof replaySession>;
const replay = (history: History, workflowId: string) => session.replay(history, workflowId);

/** A copy of the history whose workflow input has `edit` applied: what a different definition would have started with. */
function withEditedInput(history: History, edit: (input: any) => void): History {
  const copy = historyJson.parse(JSON.parse(historyJson.stringify(history)));
  const payload = copy.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  const input = JSON.parse(Buffer.from(payload.data!).toString('utf8'));
  edit(input);
  payload.data = Buffer.from(JSON.stringify(input), 'utf8');
  return copy;
}

// ---------------------------------------------------------------------------

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let llmConnection: string;

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stub, llm] = await Promise.all([startStub(), startLlmProviderStub()]);
  ({ h, org, a } = await startWorkflowHarness(stub, { worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url } } }));
  llmConnection = uniqueName('replay_llm');
  await createConnection(h.app, org, { name: llmConnection, type: 'api-key', config: { apiKey: 'sk-replay-test-key' } });
  // The suite's bundle of workflows/ (test/global-setup.ts), the one this file's worker runs.
  const codePath = h.services.config.temporal.workflowBundle;
  if (!codePath) throw new Error('TEMPORAL_WORKFLOW_BUNDLE is not set: run this file through jest, whose global setup bundles workflows/');
  session = replaySession({ codePath });
}, 120_000);
afterAll(async () => {
  await session?.close();
  // The LLM stub first: closing it ends any model call still held, so the worker can drain.
  await llm?.close();
  await h?.close();
  await stub?.close();
});

describe('histories of live runs replay on the current workflow code', () => {
  const ifWorkflow = (): Step[] => [
    {
      stepId: 'check',
      stepType: 'core.if',
      input: {
        condition: 'initial.amount > 100',
        then: [returnStep('large', { size: 'large' })],
        else: [
          { stepId: 'lookup', stepType: 'core.http', input: { url: `${stub.url}/lookup` } },
          returnStep('small', { size: 'small', seen: '{{ lookup.body.url }}' }),
        ],
      },
    },
    returnStep('after', { done: true }),
  ];

  test('an HTTP step and a return step', async () => {
    const id = await runToEnd(
      [
        { stepId: 'fetch', stepType: 'core.http', input: { url: `${stub.url}/items`, searchParams: { q: '{{ initial.q }}' } } },
        returnStep('answer', { first: '{{ fetch.body.items[0].name }}' }),
      ],
      { q: 'a b' },
    );
    await expect(replay(await historyOf('http-and-return', id), id)).resolves.toBeUndefined();
  });

  test('a core.if taking its then branch', async () => {
    const id = await runToEnd(ifWorkflow(), { amount: 500 });
    await expect(replay(await historyOf('if-then-branch', id), id)).resolves.toBeUndefined();
  });

  test('a core.if taking its else branch', async () => {
    const id = await runToEnd(ifWorkflow(), { amount: 5 });
    await expect(replay(await historyOf('if-else-branch', id), id)).resolves.toBeUndefined();
  });

  test('a run failed by its HTTP step', async () => {
    const id = await runToEnd([{ stepId: 'explode', stepType: 'core.http', input: { url: `${stub.url}/fail` } }, returnStep('never', {})], {}, 'failed');
    await expect(replay(await historyOf('failed-step', id), id)).resolves.toBeUndefined();
  });

  test('an HTTP step that succeeded on its second attempt', async () => {
    const id = await runToEnd([{ stepId: 'flaky', stepType: 'core.http', input: { url: `${stub.url}/flaky`, retry: { limit: 2 } } }]);
    await expect(replay(await historyOf('retried-step', id), id)).resolves.toBeUndefined();
  });

  test('data store set and get steps', async () => {
    const table = uniqueName('replay');
    const id = await runToEnd(
      [
        { stepId: 'save', stepType: 'data-store.set', input: { tableName: table, key: '{{ initial.id }}', value: { name: '{{ initial.name }}' } } },
        { stepId: 'load', stepType: 'data-store.get', input: { tableName: table, key: '{{ initial.id }}' } },
        returnStep('answer', { found: '{{ load.found }}', name: '{{ load.value.name }}' }),
      ],
      { id: 'c-1', name: 'Ada' },
    );
    await expect(replay(await historyOf('data-store', id), id)).resolves.toBeUndefined();
  });

  test('an ai.llm-call step (a regular activity)', async () => {
    llm.respondWith({ label: 'billing' });
    const id = await runToEnd(
      [
        {
          stepId: 'classify',
          stepType: 'ai.llm-call',
          input: {
            provider: { provider: 'openai', connection: llmConnection, model: 'gpt-4o-mini' },
            mode: { mode: 'structured_output', user_prompt: 'Classify: {{ initial.text }}', output_schema: { label: 'string: the category' } },
          },
        },
        returnStep('answer', { label: '{{ classify.object.label }}' }),
      ],
      { text: 'charged twice' },
    );
    await expect(replay(await historyOf('llm-call', id), id)).resolves.toBeUndefined();
  });

  test('a core.set step', async () => {
    const id = await runToEnd(
      [
        { stepId: 'vars', stepType: 'core.set', input: { values: { greeting: 'Hello {{ initial.name }}', tags: '{{ initial.tags }}' } } },
        returnStep('answer', { greeting: '{{ vars.greeting }}', tags: '{{ vars.tags }}' }),
      ],
      { name: 'Ada', tags: ['a', 'b'] },
    );
    await expect(replay(await historyOf('set-step', id), id)).resolves.toBeUndefined();
  });

  test('core.wait steps: a timer, then an event sent through the API, a return step answering its sender (typed values on)', async () => {
    const wf = await a.createWorkflow([
      { stepId: 'pause', stepType: 'core.wait', input: { seconds: 1 } },
      { stepId: 'approval', stepType: 'core.wait', input: { event: { name: 'approved', schema: { type: 'object' } }, timeoutSeconds: 600 } },
      returnStep('answer', { approved: '{{ approval.approved }}', count: '{{ initial.count }}' }),
    ]);
    const started = await as(h.app, org.ownerToken)
      .post(`/workflows/${wf.id}/runs`)
      .send({ input: { count: 3 } });
    const id = started.body.executionId as string;
    await eventually(
      () => as(h.app, org.ownerToken).post(`/executions/${id}/events/approved`).send({ approved: true }),
      (res) => res.status === 202,
      20_000,
    );
    await closed(id);
    expect((await a.readExecution(id)).steps.find((s) => s.stepId === 'answer')?.output.body).toEqual({ approved: true, count: 3 });
    await expect(replay(await historyOf('wait-steps', id), id)).resolves.toBeUndefined();
  });

  test('core.loop steps: a small loop in the run itself, with a branch, and a large one in child batches', async () => {
    const wf = await a.createWorkflow([
      {
        stepId: 'small',
        stepType: 'core.loop',
        input: {
          items: '{{ initial.small }}',
          concurrency: 2,
          onItemError: 'continue',
          steps: [
            {
              stepId: 'pick',
              stepType: 'core.if',
              input: {
                condition: 'item > 1',
                then: [{ stepId: 'fetchItem', stepType: 'core.http', input: { url: `${stub.url}/items`, searchParams: { n: '{{ item }}' } } }],
                else: [{ stepId: 'skip', stepType: 'core.set', input: { values: { skipped: '{{ item }}' } } }],
              },
            },
          ],
        },
      },
      {
        stepId: 'large',
        stepType: 'core.loop',
        input: {
          items: '{{ initial.large }}',
          concurrency: 10,
          // 80 items of 44 events each (budgetPaddedBody) are past the run's 3,000: a child batch, in 160 steps.
          steps: budgetPaddedBody([{ stepId: 'double', stepType: 'core.set', input: { values: { n: '{{ item | times: 2 }}' } } }]),
        },
      },
    ]);
    // Started without waiting: a loop in a child batch may take longer than a synchronous call waits on a busy machine.
    const started = await as(h.app, org.ownerToken)
      .post(`/workflows/${wf.id}/runs`)
      .send({ input: { small: [1, 2, 3], large: Array.from({ length: 80 }, (_, i) => i) } });
    const id = started.body.executionId as string;
    await closed(id);
    expect((await a.readExecution(id)).status).toBe('completed');
    const history = await historyOf('loop-steps', id);
    expect(history.events!.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    await expect(replay(history, id)).resolves.toBeUndefined();
  });

  test('an ai.agent step: model calls, an HTTP tool, and a workflow tool run as a child workflow', async () => {
    const child = await a.createWorkflow([returnStep('done', { ticket: 'T-{{ initial.subject }}' })]);
    llm.script([
      {
        toolCalls: [
          { name: 'lookup', args: { id: 'c-1' } },
          { name: 'open_ticket', args: { subject: 'refund' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const id = await runToEnd([
      {
        stepId: 'agent',
        stepType: 'ai.agent',
        input: {
          provider: { provider: 'openai', connection: llmConnection, model: 'gpt-4o-mini' },
          user_prompt: 'Help {{ initial.customer }}',
          tools: [
            {
              type: 'http',
              name: 'lookup',
              description: 'Reads a customer',
              parameters: { type: 'object' },
              request: { url: `${stub.url}/customers/{{ args.id }}` },
            },
            { type: 'workflow', name: 'open_ticket', description: 'Opens a ticket', workflow: child.name },
          ],
        },
      },
      returnStep('answer', { text: '{{ agent.text }}' }),
    ]);
    await expect(replay(await historyOf('agent-step', id), id)).resolves.toBeUndefined();
  });

  test('core.workflow steps: an awaited child, and one started and left to run (fire and forget)', async () => {
    const child = await a.createWorkflow([returnStep('done', { hello: '{{ initial.name }}' })]);
    const id = await runToEnd(
      [
        { stepId: 'sub', stepType: 'core.workflow', input: { workflow: child.name, input: { name: '{{ initial.name }}' } } },
        { stepId: 'later', stepType: 'core.workflow', input: { workflow: child.name, input: '{{ initial }}', wait: false } },
        returnStep('answer', { said: '{{ sub.answer.hello }}' }),
      ],
      { name: 'Ada' },
    );
    await expect(replay(await historyOf('core-workflow', id), id)).resolves.toBeUndefined();
  });

  test('a failed run starting its error workflow', async () => {
    const onError = await a.createWorkflow([returnStep('seen', { failed: '{{ initial.execution.id }}' })]);
    const wf = await a.createWorkflow([{ stepId: 'explode', stepType: 'core.http', input: { url: `${stub.url}/fail` } }], { errorWorkflow: onError.name });
    const execution = await a.runAndWait(wf.id);
    expect(execution.status).toBe('failed');
    await closed(execution.id);
    await expect(replay(await historyOf('error-workflow', execution.id), execution.id)).resolves.toBeUndefined();
  });

  test('a run started by a schedule trigger (runScheduledTrigger around the interpreter)', async () => {
    const wf = await a.createWorkflow([returnStep('answer', { from: '{{ initial.source }}' })]);
    const created = await as(h.app, org.ownerToken)
      .post(`/workflows/${wf.id}/triggers`)
      .send({ type: 'schedule', name: uniqueName('replay'), schedule: { cron: '0 3 * * *' }, paused: true, initial: { source: 'schedule' } });
    expect(created.status).toBe(201);
    await h.services.temporal.client.schedule.getHandle(created.body.temporalScheduleId).trigger();
    const [run] = await eventually(
      async () => (await a.listExecutions({ workflowId: wf.id })).data,
      (runs) => runs.some((r) => r.status === 'completed'),
    );
    await closed(run.id);
    await expect(replay(await historyOf('scheduled-run', run.id), run.id)).resolves.toBeUndefined();
  });

  test('a step output large enough to be offloaded', async () => {
    const id = await runToEnd([
      { stepId: 'big', stepType: 'core.http', input: { url: `${stub.url}/big` } },
      returnStep('answer', { first: '{{ big.body.items[0].id }}' }),
    ]);
    await expect(replay(await historyOf('offloaded-output', id), id)).resolves.toBeUndefined();
  });

  test('a synchronous webhook answered by update-with-start, with a step after the return', async () => {
    const wf = await a.createWorkflow([
      returnStep('answer', { hello: '{{ initial.name }}' }, 201),
      { stepId: 'later', stepType: 'core.http', input: { url: `${stub.url}/after-answer` } },
    ]);
    const trigger = await a.createTrigger(wf.id);
    const res = await request(h.app).post(trigger.path).send({ name: 'Ada' });
    expect(res.status).toBe(201);
    const id: string = res.headers['x-execution-id'];
    await closed(id);
    await expect(replay(await historyOf('webhook-sync-answer', id), id)).resolves.toBeUndefined();
  });

  test('a run cancelled while its model call is in flight', async () => {
    llm.delayNext(10 * 60_000); // held until the stub closes: the run is cancelled long before
    const before = llm.requests.length;
    const wf = await a.createWorkflow([
      {
        stepId: 'classify',
        stepType: 'ai.llm-call',
        input: {
          provider: { provider: 'openai', connection: llmConnection, model: 'gpt-4o-mini' },
          mode: { mode: 'structured_output', user_prompt: 'Take your time', output_schema: { label: 'string: anything' } },
        },
      },
      returnStep('never', {}),
    ]);
    const started = await as(h.app, org.ownerToken).post(`/workflows/${wf.id}/runs`).send({ input: {} });
    expect(started.status).toBe(202);
    const id: string = started.body.executionId;
    await eventually(
      async () => llm.requests.length,
      (n) => n > before,
    );
    expect((await as(h.app, org.ownerToken).post(`/executions/${id}/cancel`)).status).toBe(200);
    await closed(id);
    expect((await h.services.temporal.client.workflow.getHandle(id).describe()).status.name).toBe('CANCELLED');
    await expect(replay(await historyOf('cancelled', id), id)).resolves.toBeUndefined();
  });

  test('a replay from a step: reused steps (a core.if and its branch) walked without running, the rest run', async () => {
    const original = await runToEnd(
      [
        {
          stepId: 'check',
          stepType: 'core.if',
          input: { condition: 'initial.amount > 100', then: [{ stepId: 'lookup', stepType: 'core.http', input: { url: `${stub.url}/lookup` } }] },
        },
        { stepId: 'vars', stepType: 'core.set', input: { values: { seen: '{{ lookup.body.url }}' } } },
        { stepId: 'explode', stepType: 'core.http', input: { url: `${stub.url}/fail` } },
      ],
      { amount: 500 },
      'failed',
    );
    const res = await as(h.app, org.ownerToken)
      .post(`/executions/${original}/replay`)
      .send({ fromStepId: 'vars', outputs: { lookup: { body: { url: '/x' } } } });
    expect(res.status).toBe(202);
    const id: string = res.body.executionId;
    await closed(id);
    await expect(replay(await historyOf('replay-from-step', id), id)).resolves.toBeUndefined();
  });

  test('a history the current code would not produce fails the replay (the check is not vacuous)', async () => {
    const id = await runToEnd([
      { stepId: 'one', stepType: 'core.http', input: { url: `${stub.url}/one` } },
      { stepId: 'two', stepType: 'core.http', input: { url: `${stub.url}/two` } },
    ]);
    const history = await h.services.temporal.client.workflow.getHandle(id).fetchHistory();
    // The same events, but a definition with one step less: the code schedules fewer activities than the history recorded.
    const diverging = withEditedInput(history, (input) => input.steps.pop());
    await expect(replay(diverging, id)).rejects.toMatchObject({ name: 'DeterminismViolationError', message: expect.stringContaining('Nondeterminism') });
  });
});

// While recording, the fixtures are being rewritten: replaying them is the next run's job.
(RECORD ? describe.skip : describe)('committed histories (test/fixtures/histories) replay on the current workflow code', () => {
  const files = fixtureFiles();

  test('fixtures exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  test.each(files.length ? files : ['(none)'])('%s', async (file) => {
    await expect(replay(loadFixture(file), `fixture-${file.replace(/\.json$/, '')}`)).resolves.toBeUndefined();
  });
});
