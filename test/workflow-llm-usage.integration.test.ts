import { createConnection, type Harness, quietTemporalRuntime } from './harness';
import { sendJson, startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { historyText, returnStep, startWorkflowHarness, stepOf, type Step, type WorkflowApi } from './workflow-api';
import { type TestOrg, uniqueName } from './factories';

/**
 * LLM usage and cost (issue 41) end to end: ai.llm-call and ai.agent steps on
 * the real Temporal server, the real SDKs against the stub provider, which
 * reports tokens the way OpenAI and Anthropic do. Each step record carries
 * `usage` priced from the price table (LLM_PRICES applied), the run its sums.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
let org: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let connection: string;

// What LLM_PRICES adds for the test: a model the built-in table does not know.
const HOUSE_PRICE = { provider: 'openai', model: 'house-model', inputPerMillion: 2, outputPerMillion: 8, currency: 'USD', since: '2026-01-01' } as const;

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stub, llm] = await Promise.all([
    startHttpStub({ fallback: (req, res) => sendJson(res, 200, { id: req.path.split('/').pop(), plan: 'gold' }) }),
    startLlmProviderStub(),
  ]);
  ({ h, org, a } = await startWorkflowHarness(stub, { worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url }, llmPrices: [HOUSE_PRICE] } }));
  connection = uniqueName('usage_llm');
  await createConnection(h.app, org, { name: connection, type: 'api-key', config: { apiKey: 'sk-usage-test-0123456789abcdef' } });
});
afterAll(async () => {
  await llm?.close();
  await h?.close();
  await stub?.close();
});

const llmCall = (stepId: string, provider: 'openai' | 'anthropic', model: string): Step => ({
  stepId,
  stepType: 'ai.llm-call',
  input: {
    provider: { provider, connection, model },
    mode: { mode: 'structured_output', user_prompt: 'Classify: {{ initial.ticket }}', output_schema: { label: 'string: the category' } },
  },
});

const agent = (): Step => ({
  stepId: 'helper',
  stepType: 'ai.agent',
  input: {
    provider: { provider: 'anthropic', connection, model: 'claude-3-5-haiku-latest' },
    user_prompt: 'What plan is customer c-17 on?',
    tools: [
      {
        type: 'http',
        name: 'lookup_customer',
        description: 'Reads a customer by id',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
        request: { url: `${stub.url}/customers/{{ args.id }}` },
      },
    ],
  },
});

/** Micro-dollars rounded once, as src/llm-usage/usage.ts computes them. */
const cost = (inputTokens: number, outputTokens: number, price: { in: number; out: number }) =>
  Math.round(inputTokens * price.in + outputTokens * price.out) / 1e6;

test('llm-call and agent steps record tokens and cost; the run shows their totals; nothing new enters history', async () => {
  llm.respondWith({ label: 'billing' });
  llm.script([{ object: { label: 'billing' } }, { toolCalls: [{ name: 'lookup_customer', args: { id: 'c-17' } }] }, { text: 'c-17 is on gold.' }]);
  const wf = await a.createWorkflow([
    llmCall('classify', 'openai', 'gpt-4o-mini'),
    agent(),
    llmCall('house', 'openai', 'house-model'),
    llmCall('mystery', 'openai', 'my-finetune-v7'),
    returnStep('answer', { label: '{{ classify.object.label }}' }),
  ]);
  const ended = await a.runAndWait(wf.id, { ticket: 'charged twice' });
  expect(ended.status).toBe('completed');
  // What GET /executions/{id} answers.
  const execution = await a.readExecution(ended.id);

  // ai.llm-call: the provider's token counts (also in the step's output, as before), priced from the built-in table.
  const classify = stepOf(execution, 'classify');
  const reported = classify.output.usage as { inputTokens: number; outputTokens: number };
  expect(reported.inputTokens).toBeGreaterThan(0);
  expect(classify.usage).toEqual({
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputTokens: reported.inputTokens,
    outputTokens: reported.outputTokens,
    cost: cost(reported.inputTokens, reported.outputTokens, { in: 0.15, out: 0.6 }),
  });
  expect(classify.usage!.cost).toBeGreaterThan(0);

  // ai.agent: each model call's record has its usage; the step has their sums.
  const calls = execution.steps.filter((s) => s.stepType === 'ai.agent.model');
  expect(calls.map((c) => c.stepId)).toEqual(['helper.model-1', 'helper.model-2']);
  for (const call of calls) {
    const { inputTokens, outputTokens } = call.output.usage as { inputTokens: number; outputTokens: number };
    expect(call.usage).toEqual({
      provider: 'anthropic',
      model: 'claude-3-5-haiku-latest',
      inputTokens,
      outputTokens,
      cost: cost(inputTokens, outputTokens, { in: 0.8, out: 4 }),
    });
  }
  const helper = stepOf(execution, 'helper');
  const sum = (f: (u: NonNullable<(typeof calls)[number]['usage']>) => number) => calls.reduce((n, c) => n + f(c.usage!), 0);
  expect(helper.usage).toEqual({
    provider: 'anthropic',
    model: 'claude-3-5-haiku-latest',
    inputTokens: sum((u) => u.inputTokens!),
    outputTokens: sum((u) => u.outputTokens!),
    cost: Math.round(sum((u) => u.cost! * 1e6)) / 1e6,
    calls: 2,
  });
  expect(helper.usage!.inputTokens).toBe(helper.output.usage.inputTokens);
  expect(helper.usage!.outputTokens).toBe(helper.output.usage.outputTokens);

  // LLM_PRICES priced a model the table lacks; an unknown model has its tokens and no cost, never a guess.
  const house = stepOf(execution, 'house');
  expect(house.usage).toMatchObject({ model: 'house-model', cost: cost(house.usage!.inputTokens!, house.usage!.outputTokens!, { in: 2, out: 8 }) });
  const mystery = stepOf(execution, 'mystery');
  expect(mystery.usage).toMatchObject({ provider: 'openai', model: 'my-finetune-v7', cost: null });
  expect(mystery.usage!.inputTokens).toBeGreaterThan(0);

  // Other steps have no usage.
  expect(stepOf(execution, 'answer').usage).toBeUndefined();
  expect(stepOf(execution, 'helper.tool-1').usage).toBeUndefined();

  // The run: sums over its steps, the agent's calls once (through the agent step), the unpriced step counted apart.
  const steps = [classify, helper, house, mystery];
  expect(execution.usage).toEqual({
    inputTokens: steps.reduce((n, s) => n + s.usage!.inputTokens!, 0),
    outputTokens: steps.reduce((n, s) => n + s.usage!.outputTokens!, 0),
    cost: Math.round([classify, helper, house].reduce((n, s) => n + s.usage!.cost! * 1e6, 0)) / 1e6,
    unpricedSteps: 1,
  });
  // The answer of a waited-for run shows the same.
  expect(ended.usage).toEqual(execution.usage);

  // Usage is recorded beside the steps, not carried by the run: no cost in Temporal history.
  const history = await historyText(h.services.temporal.client, execution.id);
  expect(history).not.toContain('"cost"');
});

test('a run with no model call has no usage', async () => {
  const wf = await a.createWorkflow([returnStep('answer', { ok: true })]);
  const execution = await a.readExecution((await a.runAndWait(wf.id)).id);
  expect(execution.usage).toBeUndefined();
});
