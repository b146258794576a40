import type { Page } from 'playwright-core';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { createConnection, quietTemporalRuntime } from './harness';
import { accessibilityViolations, screenshot, startConsoleStack, type ConsoleStack } from './browser/console-browser';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { stepOf, workflowApi, type Execution } from './workflow-api';

/**
 * The run page shows what its model calls used (issue 41): tokens and cost on
 * the ai.llm-call step, the ai.agent step and each of its model calls, and the
 * run's total among its facts. The LLM stub reports tokens as the providers do.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let stack: ConsoleStack;
let llm: LlmProviderStub;
let org: TestOrg;
let page: Page;
let run: Execution;
const name = uniqueName('usage');

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stack, llm] = await Promise.all([startConsoleStack({ worker: false }), startLlmProviderStub()]);
  await stack.harness.startWorker({ llmBaseUrls: { openai: llm.url, anthropic: llm.url } });
  org = await createTestOrg(stack.harness.services);
  const connection = uniqueName('usage_llm');
  await createConnection(stack.harness.app, org, { name: connection, type: 'api-key', config: { apiKey: 'sk-usage-console-0123456789' } });
  const a = workflowApi(stack.harness.app, org);
  llm.script([{ object: { label: 'billing' } }, { text: 'Done.' }]);
  const wf = await a.createWorkflow(
    [
      {
        stepId: 'classify',
        stepType: 'ai.llm-call',
        input: {
          provider: { provider: 'openai', connection, model: 'gpt-4o-mini' },
          mode: { mode: 'structured_output', user_prompt: 'Classify: refund please', output_schema: { label: 'string: the category' } },
        },
      },
      {
        stepId: 'helper',
        stepType: 'ai.agent',
        input: { provider: { provider: 'anthropic', connection, model: 'claude-3-5-haiku-latest' }, user_prompt: 'Say done', tools: [] },
      },
    ],
    { name },
  );
  run = await a.runAndWait(wf.id);
  expect(run.status).toBe('completed');
  page = await stack.signedInPage(org.tokens.developer);
}, 180_000);
afterAll(async () => {
  await llm?.close();
  await stack?.close();
});

const line = (u: { inputTokens: number | null; outputTokens: number | null; cost: number | null }) =>
  `${u.inputTokens} in · ${u.outputTokens} out tokens · $${u.cost!.toFixed(6).replace(/0+$/, '')}`;

test("a run's page shows each model step's tokens and cost and the run's total", async () => {
  await page.goto(`/console/runs/${run.id}`);
  await page.getByRole('heading', { name: `Run of ${name}` }).waitFor();
  const classify = stepOf(run, 'classify').usage!;
  const helper = stepOf(run, 'helper').usage!;
  expect(classify.cost).toBeGreaterThan(0);
  // The stub's counts are small: no thousands separators to match.
  await page.getByText(line(classify), { exact: true }).waitFor();
  await page.getByText(line(helper), { exact: true }).first().waitFor();
  const total = run.usage!;
  const facts = page.locator('dl.run-facts');
  await expect(facts.getByText('LLM usage', { exact: true }).isVisible()).resolves.toBe(true);
  await expect(facts.innerText()).resolves.toContain(line(total));
  await screenshot(page, 'runs-run-llm-usage');
  expect(await accessibilityViolations(page)).toEqual([]);
});
