import { as, createConnection, type Harness, quietTemporalRuntime } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { historyText, httpStep, returnStep, startWorkflowHarness, stepOf, type Execution, type Step, type WorkflowApi } from './workflow-api';
import { type TestOrg, uniqueName } from './factories';

/**
 * `ai.agent` end to end: the interpreter's loop of model and tool calls on the
 * real Temporal server, the real SDKs against a stub that speaks OpenAI's Chat
 * Completions tool calling and Anthropic's Messages `tool_use`.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let llmConnection: string;
const KEY = 'sk-agent-test-0123456789abcdef';

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stub, llm] = await Promise.all([
    startHttpStub({ fallback: (req, res) => sendJson(res, 200, { id: req.path.split('/').pop(), plan: 'gold', seen: req.headers['x-crm-key'] ?? null }) }),
    startLlmProviderStub(),
  ]);
  ({ h, org, a } = await startWorkflowHarness(stub, { worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url } } }));
  llmConnection = uniqueName('agent_llm');
  await createConnection(h.app, org, { name: llmConnection, type: 'api-key', config: { apiKey: KEY } });
});
afterAll(async () => {
  await llm?.close();
  await h?.close();
  await stub?.close();
});

const MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest' } as const;
type Provider = keyof typeof MODELS;

const lookupTool = () => ({
  type: 'http',
  name: 'lookup_customer',
  description: 'Reads a customer by id from the CRM',
  parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
  request: { url: `${stub.url}/customers/{{ args.id }}` },
});
const notesTool = (table: string) => ({
  type: 'data-store',
  name: 'save_note',
  description: 'Saves a note about a customer',
  operation: 'set',
  tableName: table,
});

const agentStep = (provider: Provider, extra: Record<string, unknown> = {}): Step => ({
  stepId: 'helper',
  stepType: 'ai.agent',
  input: {
    provider: { provider, connection: llmConnection, model: MODELS[provider] },
    system_prompt: 'You help the support team.',
    user_prompt: 'What plan is customer {{ initial.customer }} on?',
    tools: [lookupTool()],
    ...extra,
  },
});

async function run(steps: Step[], input: Record<string, unknown> = {}, options: Record<string, unknown> = {}): Promise<Execution> {
  const wf = await a.createWorkflow(steps, options);
  return a.runAndWait(wf.id, input);
}

/** The requests the LLM stub received from `from` on. */
const sentSince = (from: number) => llm.requests.slice(from).map((r) => r.body);

describe.each(['openai', 'anthropic'] as const)('%s', (provider) => {
  test('a two-tool loop: both tools run, their results go back to the model, the answer and every call are recorded', async () => {
    const table = uniqueName('agent_notes');
    llm.script([
      {
        toolCalls: [
          { name: 'lookup_customer', args: { id: 'c-17' } },
          { name: 'save_note', args: { key: 'c-17', value: { note: 'asked about plan' } } },
        ],
      },
      { text: 'Customer c-17 is on the gold plan.' },
    ]);
    const from = llm.requests.length;
    const execution = await run([agentStep(provider, { tools: [lookupTool(), notesTool(table)] }), returnStep('answer', { text: '{{ helper.text }}' })], {
      customer: 'c-17',
    });
    expect(execution.status).toBe('completed');
    const output = stepOf(execution, 'helper').output;
    expect(output).toMatchObject({ text: 'Customer c-17 is on the gold plan.', iterations: 2 });
    expect(output.toolCalls.map((c: { tool: string }) => c.tool)).toEqual(['lookup_customer', 'save_note']);
    expect(output.toolCalls[0].args).toEqual({ id: 'c-17' });
    expect(output.usage.totalTokens).toBe(output.usage.inputTokens + output.usage.outputTokens);
    expect(output.usage.totalTokens).toBeGreaterThan(0);
    expect(stepOf(execution, 'answer').output.body).toEqual({ text: 'Customer c-17 is on the gold plan.' });

    // Sub-steps: the model calls and tool calls, under the step, in order.
    const subSteps = execution.steps.filter((s) => s.parentStepId === 'helper').map((s) => [s.stepId, s.stepType, s.status]);
    expect(subSteps).toEqual([
      ['helper.model-1', 'ai.agent.model', 'completed'],
      ['helper.tool-1', 'ai.agent.tool', 'completed'],
      ['helper.tool-2', 'ai.agent.tool', 'completed'],
      ['helper.model-2', 'ai.agent.model', 'completed'],
    ]);
    expect(stepOf(execution, 'helper.tool-1').output).toMatchObject({ status: 200, body: { id: 'c-17', plan: 'gold' } });

    // The tool results went back to the model in the provider's protocol.
    const [first, second] = sentSince(from);
    expect(first.tools.length).toBe(2);
    const answered = JSON.stringify(second.messages);
    expect(answered).toContain('gold');
    if (provider === 'openai') {
      const toolMessages = second.messages.filter((m: { role: string }) => m.role === 'tool');
      expect(toolMessages).toHaveLength(2);
      expect(toolMessages.every((m: { tool_call_id: string }) => typeof m.tool_call_id === 'string')).toBe(true);
    } else {
      const results = second.messages
        .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: { type: string }) => b.type === 'tool_result');
      expect(results).toHaveLength(2);
    }

    // The data store tool wrote through the data store API.
    const record = await as(h.app, org.ownerToken).get(`/data-stores/tables/${table}/records/c-17`);
    expect(record.status).toBe(200);
    expect(record.body.value ?? record.body).toMatchObject({ note: 'asked about plan' });
  });
});

test('an argument the schema refuses goes back to the model as the tool error; the step goes on', async () => {
  llm.script([
    { toolCalls: [{ name: 'lookup_customer', args: { id: 42 } }] },
    { toolCalls: [{ name: 'lookup_customer', args: { id: '42' } }] },
    { text: 'Found it.' },
  ]);
  const from = llm.requests.length;
  const before = stub.requests.length;
  const execution = await run([agentStep('openai')], { customer: '42' });
  expect(execution.status).toBe('completed');
  const refused = stepOf(execution, 'helper.tool-1');
  expect(refused.status).toBe('failed');
  expect(refused.error).toMatch(/id/);
  expect(stepOf(execution, 'helper.tool-2').status).toBe('completed');
  // Only the valid call reached the CRM.
  expect(stub.requests.slice(before).map((r) => r.path)).toEqual(['/customers/42']);
  const toolMessage = sentSince(from)[1].messages.find((m: { role: string }) => m.role === 'tool');
  expect(JSON.stringify(toolMessage)).toMatch(/id/);
  expect(stepOf(execution, 'helper').output.iterations).toBe(3);
});

describe('budgets', () => {
  const always = (n: number) => Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: 'lookup_customer', args: { id: `c-${i}` } }] }));

  test('without output_schema, spending maxIterations fails the step, naming the budget', async () => {
    llm.script(always(5));
    const from = llm.requests.length;
    const execution = await run([agentStep('openai', { maxIterations: 2 })]);
    expect(execution.status).toBe('failed');
    expect(execution.error?.stepId).toBe('helper');
    expect(execution.error?.message).toContain('maxIterations');
    expect(llm.requests.length - from).toBe(2);
    expect(stepOf(execution, 'helper').status).toBe('failed');
  });

  test('with output_schema, a spent budget forces one final structured answer without tools', async () => {
    // The second turn asks for a call the budget has no room for: it is not run, and the model is told so in the final call.
    llm.script([...always(2), { object: { plan: 'gold', confident: false } }]);
    const from = llm.requests.length;
    const before = stub.requests.length;
    const execution = await run([agentStep('openai', { maxToolCalls: 1, output_schema: { plan: 'string: the plan', confident: 'boolean: sure?' } })]);
    expect(execution.status).toBe('completed');
    expect(stepOf(execution, 'helper').output).toMatchObject({ object: { plan: 'gold', confident: false }, stoppedBy: 'maxToolCalls', iterations: 2 });
    expect(stub.requests.length - before).toBe(1);
    const sent = sentSince(from);
    expect(sent).toHaveLength(3);
    const final = sent[2];
    expect(final.tools ?? []).toHaveLength(0);
    expect(final.response_format).toBeDefined();
    expect(JSON.stringify(final.messages)).toContain('Not run');
    expect(JSON.stringify(final.messages.at(-1))).toContain('maxToolCalls');
  });

  test('maxTotalTokens stops the loop once the calls so far have used it', async () => {
    llm.script(always(5));
    const execution = await run([agentStep('openai', { maxTotalTokens: 100 })]);
    expect(execution.status).toBe('failed');
    expect(execution.error?.message).toContain('maxTotalTokens');
  });
});

test('a workflow tool runs another workflow of the organization as a child run; its answer is the tool result, and neither is in the parent history', async () => {
  const child = await a.createWorkflow([
    httpStep('record', { url: `${stub.url}/tickets/{{ initial.subject }}` }),
    returnStep('done', { ticket: 'T-{{ initial.subject }}-opened' }),
  ]);
  llm.script([{ toolCalls: [{ name: 'open_ticket', args: { subject: 'refund-xyzzy' } }] }, { text: 'Ticket opened.' }]);
  const from = llm.requests.length;
  const execution = await run([
    agentStep('anthropic', {
      tools: [
        {
          type: 'workflow',
          name: 'open_ticket',
          description: 'Opens a support ticket',
          workflow: child.name,
          parameters: { type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] },
        },
      ],
    }),
  ]);
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'helper.tool-1').output).toEqual({ ticket: 'T-refund-xyzzy-opened' });
  expect(JSON.stringify(sentSince(from)[1].messages)).toContain('T-refund-xyzzy-opened');

  const runs = await a.listExecutions({ workflowId: child.id });
  expect(runs.data).toHaveLength(1);
  expect(runs.data[0]).toMatchObject({ mode: 'agent', status: 'completed', parentExecutionId: execution.id, parentStepId: 'helper.tool-1' });
  expect((await a.listExecutions({ parentExecutionId: execution.id })).data.map((e) => e.id)).toEqual([runs.data[0].id]);
  const childRun = await a.readExecution(runs.data[0].id);
  expect(childRun.input).toEqual({ subject: 'refund-xyzzy' });
  expect(stepOf(childRun, 'record').output.body.id).toBe('refund-xyzzy');
  expect((await a.listExecutions({ mode: 'agent', workflowId: child.id })).data.map((e) => e.id)).toEqual([childRun.id]);

  // Temporal summarizes the child as every run; its details say which tool call of which run started it.
  const described = await h.services.temporal.client.workflow.getHandle(childRun.id).describe();
  expect(await described.staticSummary()).toBe(`${child.name} v1 (agent, org ${org.organizationId})`);
  expect(await described.staticDetails()).toContain(`Started by: tool open_ticket (call 1) of agent step helper in execution ${execution.id}`);

  // The conversation (arguments, the child's answer, the model's text) stays out of the parent's history.
  const history = await historyText(h.services.temporal.client, execution.id);
  expect(history).not.toContain('refund-xyzzy');
  expect(history).not.toContain('Ticket opened.');
});

test('a workflow tool naming a workflow deleted since the save is a tool error for the model, not a failed step', async () => {
  // Saving refuses a tool naming no workflow; one deleted after the save is met at run time.
  const escalate = (workflow: string) => agentStep('openai', { tools: [{ type: 'workflow', name: 'escalate', description: 'Escalates', workflow }] });
  const missing = await as(h.app, org.ownerToken)
    .post('/workflows')
    .send({ name: uniqueName('wf'), steps: [escalate(uniqueName('missing'))] });
  expect(missing.status).toBe(400);
  expect(missing.body.error.details).toEqual([
    { path: 'steps.0.input.tools.0.workflow', message: expect.stringContaining('not a workflow of this organization') },
  ]);
  const target = await a.createWorkflow([returnStep('done', { ok: true })]);
  const wf = await a.createWorkflow([escalate(target.name)]);
  expect((await as(h.app, org.ownerToken).delete(`/workflows/${target.id}`)).status).toBe(200);
  llm.script([{ toolCalls: [{ name: 'escalate', args: {} }] }, { text: 'Could not escalate.' }]);
  const execution = await a.runAndWait(wf.id);
  expect(execution.status).toBe('completed');
  expect(stepOf(execution, 'helper.tool-1')).toMatchObject({ status: 'failed', error: expect.stringMatching(/workflow/i) });
});

test('secrets in the prompt and in a tool header are masked in every record and never in history', async () => {
  const SECRET = 'crm-key-5f1d2e3c4b5a69788';
  const environment = await a.createEnvironment({ CRM_KEY: { value: SECRET, secret: true } });
  llm.script([{ toolCalls: [{ name: 'lookup_customer', args: { id: 'c-9' } }] }, { text: 'Done.' }]);
  const from = llm.requests.length;
  const tool = { ...lookupTool(), request: { url: `${stub.url}/customers/{{ args.id }}`, headers: { 'X-CRM-Key': '{{ $env.CRM_KEY }}' } } };
  const execution = await run([agentStep('openai', { system_prompt: 'Internal key: {{ $env.CRM_KEY }}', tools: [tool] })], {}, { environment });
  expect(execution.status).toBe('completed');
  // The CRM got the key and echoed it back; the model got it in the system prompt (as written).
  expect(stub.requests.at(-1)?.headers['x-crm-key']).toBe(SECRET);
  expect(JSON.stringify(sentSince(from)[0])).toContain(SECRET);
  expect(JSON.stringify(execution)).not.toContain(SECRET);
  expect(JSON.stringify(execution)).not.toContain(KEY);
  expect(stepOf(execution, 'helper.tool-1').output.body.seen).toBe('[secret]');
  const history = await historyText(h.services.temporal.client, execution.id);
  expect(history).not.toContain(SECRET);
  expect(history).not.toContain(KEY);
});
