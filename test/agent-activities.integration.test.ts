import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { createAgentActivities } from '../activities/agent';
import { createDataStoreActivities } from '../activities/data-stores';
import { createActivityDeps } from '../src/app/activity-deps';
import { loadConfig } from '../src/config/config';
import { MasterKeyring } from '../src/crypto/master-keyring';
import { openDatabase } from '../src/db/data-source';
import type { StepRow } from '../src/executions/executions.repository';
import { createLogger } from '../src/logging/logger';
import { MAX_AGENT_DEPTH, MAX_CHILD_RUNS_PER_STEP, type AgentCall } from '../workflows/agent.types';
import type { StepRequest } from '../workflows/run.types';
import { as, createConnection, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { returnStep, workflowApi, type WorkflowApi } from './workflow-api';

/**
 * The ai.agent activities called directly (no workflow), against the real
 * PostgreSQL, the real AI SDK and the LLM stub speaking each provider's tool
 * protocol: what each call records, what it returns, and that a repeated call
 * repeats nothing.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const KEY = 'sk-activities-test-0123456789abcdef';
const CRM_SECRET = 'crm-secret-7f3a9c1e5b';
const MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest' } as const;
type Provider = keyof typeof MODELS;

let h: Harness;
let db: DataSource;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let deps: ReturnType<typeof createActivityDeps>;
let agent: ReturnType<typeof createAgentActivities>;
let llmConnection: string;
let environmentId: string;
let environmentName: string;
/** The workflow the test executions belong to. */
let host: { id: string; name: string };

beforeAll(async () => {
  [stub, llm] = await Promise.all([
    startHttpStub({ fallback: (req, res) => sendJson(res, 200, { id: req.path.split('/').pop(), plan: 'gold', seen: req.headers['x-crm-key'] ?? null }) }),
    startLlmProviderStub(),
  ]);
  h = await startHarness();
  org = await createTestOrg(h.services);
  a = workflowApi(h.app, org);
  const config = loadConfig();
  db = await openDatabase(config.database.url!, { poolSize: 3, timeouts: config.database });
  deps = createActivityDeps({
    db,
    logger: createLogger('silent'),
    keyring: new MasterKeyring(config.crypto.masterKey!),
    config: { ...config, steps: { ...config.steps, httpAllowList: [stub.host], llmBaseUrls: { openai: llm.url, anthropic: llm.url } } },
  });
  agent = createAgentActivities(deps, createDataStoreActivities(deps));

  llmConnection = uniqueName('llm');
  await createConnection(h.app, org, { name: llmConnection, type: 'api-key', config: { apiKey: KEY } });
  environmentName = uniqueName('env');
  const env = await as(h.app, org.ownerToken)
    .post('/environments')
    .send({ name: environmentName, variables: { CRM_KEY: { value: CRM_SECRET, secret: true } } });
  expect(env.status).toBe(201);
  environmentId = env.body.id;
  host = await a.createWorkflow([returnStep('done', { ok: true })], { environment: environmentName });
});
afterAll(async () => {
  await deps?.close();
  await db?.destroy();
  await h?.close();
  await Promise.all([llm?.close(), stub?.close()]);
});

const lookupTool = (url = `${stub.url}/customers/{{ args.id }}`) => ({
  type: 'http' as const,
  name: 'lookup_customer',
  description: 'Reads a customer by id from the CRM',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  request: { url, method: 'GET', headers: { 'X-Crm-Key': '{{ $env.CRM_KEY }}' } },
});
const noteTool = (table: string) => ({
  type: 'data-store' as const,
  name: 'save_note',
  description: 'Saves a note about a customer',
  operation: 'set' as const,
  tableName: table,
});
const workflowTool = (workflow: string) => ({ type: 'workflow' as const, name: 'enrich', description: 'Enriches a customer', workflow });

type Tool = ReturnType<typeof lookupTool> | ReturnType<typeof noteTool> | ReturnType<typeof workflowTool>;

/** A fresh execution of the host workflow and an agent step of it: the base of every request. */
async function newRun(provider: Provider, tools: Tool[], extra: Record<string, unknown> = {}): Promise<Omit<AgentCall, 'subSeq'>> {
  const executionId = randomUUID();
  await deps.executions.insert({
    id: executionId,
    organizationId: org.organizationId,
    workflowId: host.id,
    workflowName: host.name,
    workflowVersion: 1,
    triggerId: null,
    triggerName: null,
    environmentId,
    mode: 'test',
    input: { customer: 'c-17' },
    rerunOf: null,
  });
  const step = {
    stepId: 'helper',
    stepType: 'ai.agent',
    input: {
      provider: { provider, connection: llmConnection, model: MODELS[provider] },
      system_prompt: 'You help the support team.',
      user_prompt: 'What plan is customer {{ initial.customer }} on?',
      tools,
      ...extra,
    },
  } as unknown as StepRequest['step'];
  // `initial` left out, as the workflow sends it: the activities read it from the execution.
  return { run: { executionId, organizationId: org.organizationId, environmentId }, step, seq: 1, context: { steps: {}, refs: {} } };
}

const subSteps = (base: Omit<AgentCall, 'subSeq'>) => deps.executions.subSteps(org.organizationId, base.run.executionId, 'helper');
const subStep = async (base: Omit<AgentCall, 'subSeq'>, stepId: string): Promise<StepRow> => {
  const found = (await subSteps(base)).find((s) => s.stepId === `helper.${stepId}`);
  if (!found) throw new Error(`no sub-step helper.${stepId}`);
  return found;
};
/** Every record of the execution, as stored. */
const allRecords = async (executionId: string): Promise<string> =>
  JSON.stringify(await db.query(`SELECT * FROM execution_steps WHERE execution_id = $1`, [executionId]));

/** The tool call a provider's request sends back: OpenAI `role: tool` messages, Anthropic `tool_result` blocks. */
function toolResultsSent(provider: Provider, body: any): Array<{ id: string; content: string }> {
  if (provider === 'openai') {
    return body.messages.filter((m: any) => m.role === 'tool').map((m: any) => ({ id: m.tool_call_id, content: String(m.content) }));
  }
  return body.messages
    .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
    .filter((p: any) => p.type === 'tool_result')
    .map((p: any) => ({ id: p.tool_use_id, content: JSON.stringify(p.content) }));
}

describe.each(['openai', 'anthropic'] as const)('%s', (provider) => {
  test('a turn asking for two tools: the turn is recorded with the arguments, the workflow gets call ids only; both tools run and their results go back', async () => {
    const table = uniqueName('notes');
    const base = await newRun(provider, [lookupTool(), noteTool(table)]);
    llm.script([
      {
        text: 'Let me check.',
        toolCalls: [
          { name: 'lookup_customer', args: { id: 'c-17' } },
          { name: 'save_note', args: { key: 'c-17', value: { note: 'asked about plan' } } },
        ],
      },
      { text: 'Customer c-17 is on the gold plan.' },
    ]);
    const sent = llm.requests.length;
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    expect(turn).toEqual({
      toolCalls: [
        { callId: expect.any(String), tool: 'lookup_customer' },
        { callId: expect.any(String), tool: 'save_note' },
      ],
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    expect(turn.usage.inputTokens).toBeGreaterThan(0);

    // The tools are offered with their argument schemas, the data store tool's fixed one included.
    const first = llm.requests[sent].body;
    const offered =
      provider === 'openai' ? first.tools.map((t: any) => [t.function.name, t.function.parameters]) : first.tools.map((t: any) => [t.name, t.input_schema]);
    expect(offered).toEqual([
      ['lookup_customer', expect.objectContaining({ required: ['id'] })],
      ['save_note', expect.objectContaining({ required: ['key', 'value'] })],
    ]);
    expect(JSON.stringify(first)).toContain('What plan is customer c-17 on?');

    expect(await subStep(base, 'model-1')).toMatchObject({
      stepType: 'ai.agent.model',
      parentStepId: 'helper',
      subSeq: 1,
      seq: 1,
      status: 'completed',
      input: { iteration: 1, model: MODELS[provider], messages: 1 },
      output: {
        text: 'Let me check.',
        toolCalls: [
          { callId: turn.toolCalls[0].callId, tool: 'lookup_customer', args: { id: 'c-17' } },
          { callId: turn.toolCalls[1].callId, tool: 'save_note', args: { key: 'c-17', value: { note: 'asked about plan' } } },
        ],
        usage: turn.usage,
        finishReason: 'tool-calls',
      },
    });

    const [lookup, save] = turn.toolCalls;
    expect(await agent.agentToolCall({ ...base, subSeq: 2, modelIteration: 1, callId: lookup.callId, tool: lookup.tool, toolCallNumber: 1 })).toEqual({
      ok: true,
    });
    expect(await agent.agentToolCall({ ...base, subSeq: 3, modelIteration: 1, callId: save.callId, tool: save.tool, toolCallNumber: 2 })).toEqual({ ok: true });
    expect(await subStep(base, 'tool-1')).toMatchObject({
      stepType: 'ai.agent.tool',
      subSeq: 2,
      status: 'completed',
      input: { tool: 'lookup_customer', callId: lookup.callId, args: { id: 'c-17' } },
      output: { status: 200, body: { id: 'c-17', plan: 'gold', seen: '[secret]' } },
    });
    expect(await subStep(base, 'tool-2')).toMatchObject({ status: 'completed', output: { key: 'c-17', created: true } });
    const stored = await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}`);
    expect(stored.body.data).toEqual([expect.objectContaining({ key: 'c-17', value: { note: 'asked about plan' } })]);

    const answer = await agent.agentModelCall({ ...base, subSeq: 4, iteration: 2 });
    expect(answer.toolCalls).toEqual([]);
    const second = llm.requests.at(-1)!.body;
    const results = toolResultsSent(provider, second);
    expect(results.map((r) => r.id)).toEqual([lookup.callId, save.callId]);
    expect(results[0].content).toContain('gold');
    expect(results[1].content).toContain('created');
    expect(await subStep(base, 'model-2')).toMatchObject({
      input: { iteration: 2, messages: 3 },
      output: { text: 'Customer c-17 is on the gold plan.', toolCalls: [] },
    });

    const usage = { inputTokens: turn.usage.inputTokens + answer.usage.inputTokens, outputTokens: turn.usage.outputTokens + answer.usage.outputTokens };
    const result = await agent.agentFinish({ ...base, subSeq: 0, outcome: { status: 'completed' }, iterations: 2, usage });
    expect(result).toEqual({ kept: 'record', bytes: expect.any(Number) });
    const [own] = await db.query(`SELECT * FROM execution_steps WHERE execution_id = $1 AND step_id = 'helper'`, [base.run.executionId]);
    expect(own).toMatchObject({ step_type: 'ai.agent', sub_seq: 0, status: 'completed' });
    expect(own.input).toEqual({
      provider,
      model: MODELS[provider],
      connection: llmConnection,
      system: 'You help the support team.',
      prompt: 'What plan is customer c-17 on?',
      tools: ['lookup_customer', 'save_note'],
    });
    expect(own.output).toEqual({
      text: 'Customer c-17 is on the gold plan.',
      toolCalls: [
        { tool: 'lookup_customer', args: { id: 'c-17' }, result: expect.stringContaining('gold') },
        { tool: 'save_note', args: { key: 'c-17', value: { note: 'asked about plan' } }, result: expect.stringContaining('created') },
      ],
      iterations: 2,
      usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens },
    });

    // The $env secret went out in the header and came back in the body: no record holds it, nor does what the model was sent; nor the API key.
    expect(stub.calls('/customers/c-17').at(-1)!.headers['x-crm-key']).toBe(CRM_SECRET);
    const records = await allRecords(base.run.executionId);
    expect(records).not.toContain(CRM_SECRET);
    expect(records).not.toContain(KEY);
    expect(JSON.stringify(llm.requests.slice(sent).map((r) => r.body))).not.toContain(CRM_SECRET);
  });

  test('a repeated call repeats nothing: the model is asked once, the tool runs once, the answers are the same', async () => {
    const base = await newRun(provider, [lookupTool()]);
    const id = `c-idem-${provider}`;
    llm.script([{ toolCalls: [{ name: 'lookup_customer', args: { id } }] }]);
    const sent = llm.requests.length;
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    expect(await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 })).toEqual(turn);
    expect(llm.requests.length).toBe(sent + 1);

    const call = { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'lookup_customer', toolCallNumber: 1 };
    expect(await agent.agentToolCall(call)).toEqual({ ok: true });
    expect(await agent.agentToolCall(call)).toEqual({ ok: true });
    expect(stub.calls(`/customers/${id}`)).toHaveLength(1);
    expect(await subSteps(base)).toHaveLength(2);
  });

  test("bad arguments are the tool's error, recorded and fed back; the tool does not run and the activity does not fail", async () => {
    const base = await newRun(provider, [lookupTool()]);
    llm.script([{ toolCalls: [{ name: 'lookup_customer', args: { id: 17, extra: true } }] }, { text: 'Sorry.' }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    const before = stub.calls('/customers/17').length;
    const call = { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'lookup_customer', toolCallNumber: 1 };
    expect(await agent.agentToolCall(call)).toEqual({ ok: false });
    expect(stub.calls('/customers/17')).toHaveLength(before);
    const record = await subStep(base, 'tool-1');
    expect(record).toMatchObject({ status: 'failed', output: null, input: { tool: 'lookup_customer', args: { id: 17, extra: true } } });
    expect(record.error).toMatch(/^The arguments do not match the tool's schema: /);
    expect(record.error).toContain('/id must be string');
    expect(record.error).toContain('must NOT have additional properties');

    await agent.agentModelCall({ ...base, subSeq: 3, iteration: 2 });
    const [sentBack] = toolResultsSent(provider, llm.requests.at(-1)!.body);
    expect(sentBack).toMatchObject({ id: call.callId, content: expect.stringContaining('/id must be string') });
    if (provider === 'anthropic') {
      const block = llm.requests
        .at(-1)!
        .body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
        .find((p: any) => p.type === 'tool_result');
      expect(block.is_error).toBe(true);
    }
  });

  test('an HTTP tool goes through the SSRF guard: an address off the allow list is refused, as a tool error naming no address', async () => {
    const base = await newRun(provider, [lookupTool('http://localhost:9/customers/{{ args.id }}')]);
    llm.script([{ toolCalls: [{ name: 'lookup_customer', args: { id: 'c-1' } }] }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    const call = { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'lookup_customer', toolCallNumber: 1 };
    expect(await agent.agentToolCall(call)).toEqual({ ok: false });
    const record = await subStep(base, 'tool-1');
    expect(record.status).toBe('failed');
    expect(record.error).toContain('address not allowed');
    expect(record.error).not.toContain('127.0.0.1');
  });

  test("a call of a tool the step does not have is the tool's error, naming the tools there are", async () => {
    const base = await newRun(provider, [lookupTool()]);
    llm.script([{ toolCalls: [{ name: 'delete_everything', args: { all: true } }] }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    expect(turn.toolCalls).toEqual([{ callId: expect.any(String), tool: 'delete_everything' }]);
    const call = { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'delete_everything', toolCallNumber: 1 };
    expect(await agent.agentToolCall(call)).toEqual({ ok: false });
    expect((await subStep(base, 'tool-1')).error).toBe('There is no tool named "delete_everything"; the tools are: lookup_customer');
  });

  test('a call left unrun (a budget was spent) is answered as not run when the conversation goes back to the provider', async () => {
    const base = await newRun(provider, [lookupTool()], { output_schema: { plan: 'string: the customer plan' } });
    llm.script([
      {
        toolCalls: [
          { name: 'lookup_customer', args: { id: `c-run-${provider}` } },
          { name: 'lookup_customer', args: { id: `c-unrun-${provider}` } },
        ],
      },
      { object: { plan: 'unknown' } },
    ]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    await agent.agentToolCall({ ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'lookup_customer', toolCallNumber: 1 });
    await agent.agentModelCall({ ...base, subSeq: 3, iteration: 2, final: { reason: 'budget', budget: 'maxToolCalls' } });
    const results = toolResultsSent(provider, llm.requests.at(-1)!.body);
    expect(results.map((r) => r.id)).toEqual(turn.toolCalls.map((c) => c.callId));
    expect(results[1].content).toContain('Not run');
    expect(stub.calls(`/customers/c-unrun-${provider}`)).toHaveLength(0);
  });

  test('a model call the provider rejects fails for good, recorded, without the key in any message', async () => {
    const base = await newRun(provider, [lookupTool()]);
    llm.failNext(401);
    const failure = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true, message: expect.stringContaining('HTTP 401') });
    expect((failure as Error).message).not.toContain(KEY.slice(-4));
    const record = await subStep(base, 'model-1');
    expect(record).toMatchObject({ status: 'failed', error: (failure as Error).message });
    expect(await allRecords(base.run.executionId)).not.toContain(KEY.slice(-4));
  });

  test('the final call: no tools offered, the answer over the same conversation, told the budget is spent; recorded as the object', async () => {
    const base = await newRun(provider, [lookupTool()], { output_schema: { plan: 'string: the customer plan' } });
    llm.script([{ toolCalls: [{ name: 'lookup_customer', args: { id: 'c-9' } }] }, { object: { plan: 'gold' } }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    await agent.agentToolCall({ ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'lookup_customer', toolCallNumber: 1 });
    const final = await agent.agentModelCall({ ...base, subSeq: 3, iteration: 2, final: { reason: 'budget', budget: 'maxToolCalls' } });
    expect(final.toolCalls).toEqual([]);
    const body = llm.requests.at(-1)!.body;
    const tools: Array<{ name?: string; function?: { name: string } }> = body.tools ?? [];
    expect(tools.map((t) => t.name ?? t.function?.name)).not.toContain('lookup_customer');
    expect(toolResultsSent(provider, body).map((r) => r.id)).toEqual([turn.toolCalls[0].callId]);
    expect(JSON.stringify(body.messages)).toContain('maxToolCalls) is spent');
    expect(await subStep(base, 'model-2')).toMatchObject({
      input: { iteration: 2, final: { reason: 'budget', budget: 'maxToolCalls' } },
      output: { object: { plan: 'gold' }, final: { reason: 'budget' } },
    });
    await agent.agentFinish({ ...base, subSeq: 0, outcome: { status: 'completed', stoppedBy: 'maxToolCalls' }, iterations: 2, usage: final.usage });
    const [own] = await db.query(`SELECT output FROM execution_steps WHERE execution_id = $1 AND step_id = 'helper'`, [base.run.executionId]);
    expect(own.output).toMatchObject({ object: { plan: 'gold' }, stoppedBy: 'maxToolCalls', iterations: 2 });
  });
});

test.each(['openai', 'anthropic'] as const)(
  '%s: a model call sends the connection key, model and prompts to the provider, and records the turn only once the provider has answered',
  async (provider) => {
    const base = await newRun(provider, [lookupTool()]);
    llm.script([{ text: 'Held answer.' }]);
    // The stub is the vendor: it holds its answer, so what the service sent and recorded before it can be read.
    const release = llm.holdNext();
    const pending = agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    await release.arrived;
    const sent = llm.requests.at(-1)!;
    if (provider === 'openai') {
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(sent.body.messages.slice(0, 2)).toEqual([
        { role: 'system', content: 'You help the support team.' },
        { role: 'user', content: 'What plan is customer c-17 on?' },
      ]);
    } else {
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe(KEY);
      expect(JSON.stringify(sent.body.system)).toContain('You help the support team.');
      expect(JSON.stringify(sent.body.messages)).toContain('What plan is customer c-17 on?');
    }
    expect(sent.body.model).toBe(MODELS[provider]);
    expect(await subSteps(base)).toEqual([]);
    release();
    expect(await pending).toMatchObject({ toolCalls: [] });
    expect(await subStep(base, 'model-1')).toMatchObject({ status: 'completed', output: { text: 'Held answer.', toolCalls: [] } });
  },
);

describe('workflow tools', () => {
  /** A run whose model asked for the workflow tool `enrich` once, with `args`. */
  async function askedFor(workflow: string, args: unknown) {
    const base = await newRun('openai', [workflowTool(workflow)]);
    llm.script([{ toolCalls: [{ name: 'enrich', args }] }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    return { base, call: { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'enrich', toolCallNumber: 1 } };
  }
  const executionRows = (id: string) => db.query(`SELECT * FROM executions WHERE id = $1`, [id]);

  test("the child run's row is written once however often prepare runs: the arguments as its input, the child's environment, mode agent; no initial in the answer", async () => {
    const target = await a.createWorkflow([returnStep('answer', { echoed: '{{ initial.customer }}' })], { environment: environmentName });
    const { base, call } = await askedFor(target.name, { customer: 'c-5' });
    const first = await agent.agentChildPrepare({ ...call, depth: 0, childRunNumber: 1 });
    const again = await agent.agentChildPrepare({ ...call, depth: 0, childRunNumber: 1 });
    expect(again).toEqual(first);
    if (first.kind !== 'start') throw new Error('refused');
    expect(first.input).toMatchObject({
      organizationId: org.organizationId,
      workflow: { id: target.id, name: target.name, version: 1 },
      environmentId,
      steps: [expect.objectContaining({ stepId: 'answer', stepType: 'core.return' })],
      agentDepth: 1,
    });
    expect(first.input).not.toHaveProperty('initial');
    const rows = await executionRows(first.executionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      organization_id: org.organizationId,
      workflow_id: target.id,
      mode: 'agent',
      environment_id: environmentId,
      trigger_id: null,
    });
    expect(rows[0].input).toEqual({ customer: 'c-5' });
    // Nothing is recorded for the tool yet: the child's answer is.
    expect((await subSteps(base)).map((s) => s.stepId)).toEqual(['helper.model-1']);

    // The child answered through its return step: that body is the tool's result.
    await deps.executions.recordStep(org.organizationId, first.executionId, {
      stepId: 'answer',
      stepType: 'core.return',
      seq: 1,
      status: 'completed',
      attempt: 1,
      input: null,
      output: { statusCode: 200, body: { echoed: 'c-5' } },
      error: null,
      startedAt: new Date(),
      finishedAt: new Date(),
    });
    const finish = { ...call, executionId: first.executionId, outcome: { status: 'completed' as const } };
    expect(await agent.agentChildFinish(finish)).toEqual({ ok: true });
    expect(await agent.agentChildFinish(finish)).toEqual({ ok: true });
    expect(await subStep(base, 'tool-1')).toMatchObject({
      status: 'completed',
      input: { tool: 'enrich', args: { customer: 'c-5' } },
      output: { echoed: 'c-5' },
    });
  });

  test("a failed child run is the tool's error", async () => {
    const target = await a.createWorkflow([returnStep('answer', { ok: true })]);
    const { base, call } = await askedFor(target.name, {});
    const prepared = await agent.agentChildPrepare({ ...call, depth: 1, childRunNumber: 1 });
    if (prepared.kind !== 'start') throw new Error('refused');
    expect(prepared.input.agentDepth).toBe(2);
    expect(
      await agent.agentChildFinish({ ...call, executionId: prepared.executionId, outcome: { status: 'failed', message: 'Step "x" failed: boom' } }),
    ).toEqual({
      ok: false,
    });
    expect(await subStep(base, 'tool-1')).toMatchObject({ status: 'failed', error: 'The workflow run failed: Step "x" failed: boom' });
  });

  test.each([
    ['an unknown workflow', async () => ({ name: uniqueName('nope'), depth: 0 }), /No workflow is named/],
    [
      "another organization's workflow",
      async () => {
        const other = await createTestOrg(h.services);
        const theirs = await workflowApi(h.app, other).createWorkflow([returnStep('answer', { secret: 'theirs' })]);
        return { name: theirs.name, depth: 0 };
      },
      /No workflow is named/,
    ],
    ['a depth past the limit', async () => ({ name: host.name, depth: MAX_AGENT_DEPTH }), /nest at most 3 deep/],
    [
      'a child run past the per-step limit',
      async () => ({ name: host.name, depth: 0, childRunNumber: MAX_CHILD_RUNS_PER_STEP + 1 }),
      /at most 10 workflow tool calls/,
    ],
  ])('%s is refused: the tool error is recorded and no execution is written', async (_name, setup, message) => {
    const { name, depth, childRunNumber = 1 } = (await setup()) as { name: string; depth: number; childRunNumber?: number };
    const { base, call } = await askedFor(name, { customer: 'c-1' });
    const before = await db.query(`SELECT count(*)::int AS n FROM executions WHERE workflow_name = $1`, [name]);
    expect(await agent.agentChildPrepare({ ...call, depth, childRunNumber })).toEqual({ kind: 'refused' });
    expect(await agent.agentChildPrepare({ ...call, depth, childRunNumber })).toEqual({ kind: 'refused' });
    const record = await subStep(base, 'tool-1');
    expect(record).toMatchObject({ stepType: 'ai.agent.tool', status: 'failed' });
    expect(record.error).toMatch(message);
    const after = await db.query(`SELECT count(*)::int AS n FROM executions WHERE workflow_name = $1`, [name]);
    expect(after[0].n).toBe(before[0].n);
  });

  test('arguments that do not match the tool parameters are refused before any row is written', async () => {
    const target = await a.createWorkflow([returnStep('answer', { ok: true })]);
    const base = await newRun('anthropic', [
      { ...workflowTool(target.name), parameters: { type: 'object', properties: { customer: { type: 'string' } }, required: ['customer'] } } as Tool,
    ]);
    llm.script([{ toolCalls: [{ name: 'enrich', args: { client: 'c-1' } }] }]);
    const turn = await agent.agentModelCall({ ...base, subSeq: 1, iteration: 1 });
    const call = { ...base, subSeq: 2, modelIteration: 1, callId: turn.toolCalls[0].callId, tool: 'enrich', toolCallNumber: 1, depth: 0, childRunNumber: 1 };
    expect(await agent.agentChildPrepare(call)).toEqual({ kind: 'refused' });
    expect((await subStep(base, 'tool-1')).error).toContain("must have required property 'customer'");
    expect(await a.executionCount(target.id)).toBe(0);
  });
});
