import request from 'supertest';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { OrganizationPriceTables } from '../src/llm-usage/organization-price-tables';
import { OrganizationPricesRepository } from '../src/llm-usage/organization-prices.repository';
import type { PriceEntry } from '../src/llm-usage/price-table';
import { llmTokens } from '../src/observability/metrics';
import { createTestOrg, eventually, type TestOrg, uniqueName } from './factories';
import { createConnection, type Harness, quietTemporalRuntime } from './harness';
import { startHttpStub, type HttpStub } from './stubs/http-stub';
import { startLlmProviderStub, type LlmProviderStub } from './stubs/llm-provider-stub';
import { returnStep, startWorkflowHarness, stepOf, workflowApi, type Execution, type Step, type WorkflowApi } from './workflow-api';

/**
 * An organization's own LLM prices (issue 41): GET and PUT
 * /organization/llm-prices, and the runs of that organization, and of no
 * other, priced with them from the next call on; runs already recorded keep
 * their cost. The real worker and SDKs call the LLM stub, which reports
 * tokens as the providers do.
 */

// The SDK warns about model names it does not know (the stub answers for any).
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let h: Harness;
let org: TestOrg;
let other: TestOrg;
let a: WorkflowApi;
let stub: HttpStub;
let llm: LlmProviderStub;
let connection: string;

// LLM_PRICES (the `setting` layer): a model the built-in table does not know.
const HOUSE = { provider: 'openai', model: 'house-model', inputPerMillion: 2, outputPerMillion: 8, currency: 'USD', since: '2026-01-01' } as const;
const price = (
  model: string,
  inputPerMillion: number,
  outputPerMillion: number,
  since = '2020-01-01',
  provider: PriceEntry['provider'] = 'openai',
): PriceEntry => ({
  provider,
  model,
  inputPerMillion,
  outputPerMillion,
  currency: 'USD',
  since,
});

beforeAll(async () => {
  quietTemporalRuntime('ERROR');
  [stub, llm] = await Promise.all([startHttpStub(), startLlmProviderStub()]);
  ({ h, org, a } = await startWorkflowHarness(stub, {
    configure: (config) => {
      config.steps.llmPrices = [HOUSE];
    },
    worker: { llmBaseUrls: { openai: llm.url, anthropic: llm.url } },
  }));
  other = await createTestOrg(h.services);
  connection = uniqueName('prices_llm');
  await Promise.all(
    [org, other].map((o) => createConnection(h.app, o, { name: connection, type: 'api-key', config: { apiKey: 'sk-prices-test-0123456789abcdef' } })),
  );
});
afterAll(async () => {
  await llm?.close();
  await h?.close();
  await stub?.close();
});

const as = (token: string) => ({
  get: () => request(h.app).get('/organization/llm-prices').set('Authorization', `Bearer ${token}`),
  put: (body: object) => request(h.app).put('/organization/llm-prices').set('Authorization', `Bearer ${token}`).send(body),
});

interface Listed {
  provider: string;
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
  since: string;
  source: string;
}
const rowsOf = (body: { data: Listed[] }, model: string) => body.data.filter((e) => e.model === model);

const llmCall = (stepId: string, model: string): Step => ({
  stepId,
  stepType: 'ai.llm-call',
  input: {
    provider: { provider: 'openai', connection, model },
    mode: { mode: 'structured_output', user_prompt: 'Classify: refund please', output_schema: { label: 'string: the category' } },
  },
});
const agent = (): Step => ({
  stepId: 'helper',
  stepType: 'ai.agent',
  input: { provider: { provider: 'anthropic', connection, model: 'claude-3-5-haiku-latest' }, user_prompt: 'Say done', tools: [] },
});
const steps = () => [llmCall('classify', 'gpt-4o-mini'), llmCall('own', 'org-only-model'), agent(), returnStep('answer', { ok: true })];

/** Micro-dollars rounded once, as src/llm-usage/usage.ts computes them. */
const costAt = (usage: { inputTokens: number | null; outputTokens: number | null }, p: { in: number; out: number }) =>
  Math.round(usage.inputTokens! * p.in + usage.outputTokens! * p.out) / 1e6;

async function run(api: WorkflowApi, workflowId: string): Promise<Execution> {
  // The two ai.llm-call steps, then the agent's one model call answering.
  llm.script([{ object: { label: 'billing' } }, { object: { label: 'billing' } }, { text: 'Done.' }]);
  const ended = await api.runAndWait(workflowId);
  expect(ended.status).toBe('completed');
  return api.readExecution(ended.id);
}

test('every member reads the effective table, each entry with its source', async () => {
  const res = await as(org.tokens.viewer).get();
  expect(res.status).toBe(200);
  expect(res.body.maxOrganizationEntries).toBe(200);
  expect(rowsOf(res.body, 'gpt-4o-mini')).toEqual([{ ...price('gpt-4o-mini', 0.15, 0.6, '2025-11-01'), source: 'default' }]);
  expect(rowsOf(res.body, 'house-model')).toEqual([{ ...HOUSE, source: 'setting' }]);
  expect(res.body.data.some((e: Listed) => e.source === 'organization')).toBe(false);
});

test('only administrators replace the entries; bad input is a 400 naming the entry and field', async () => {
  for (const role of ['developer', 'analyst', 'viewer'] as const) {
    const res = await as(org.tokens[role]).put({ entries: [price('gpt-4o-mini', 1, 1)] });
    expect([role, res.status, res.body.error?.code]).toEqual([role, 403, 'missing_permission']);
  }
  const bad = async (entries: unknown[]) => {
    const res = await as(org.tokens.admin).put({ entries });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    return res.body.error.details as Array<{ path: string; message: string }>;
  };
  await expect(bad([price('m', 1, 1), price('m', 1, 1, '2026-13-01')])).resolves.toEqual([
    { path: 'entries.1.since', message: 'must be a date such as 2026-01-31' },
  ]);
  await expect(bad([{ ...price('m', 1, 1), currency: 'EUR' }])).resolves.toEqual([expect.objectContaining({ path: 'entries.0.currency' })]);
  await expect(bad([price('m', -1, 1)])).resolves.toEqual([expect.objectContaining({ path: 'entries.0.inputPerMillion' })]);
  await expect(bad([{ ...price('m', 1, 1), provider: 'mistral' }])).resolves.toEqual([expect.objectContaining({ path: 'entries.0.provider' })]);
  await expect(bad([price('m', 1, 1), price('m', 2, 2)])).resolves.toEqual([
    { path: 'entries.1.since', message: 'entry 0 already prices openai m from 2020-01-01: one price per provider, model and day' },
  ]);
  await expect(bad(Array.from({ length: 201 }, (_, i) => price(`m${i}`, 1, 1)))).resolves.toEqual([
    { path: 'entries', message: 'must have at most 200 items' },
  ]);
  // Nothing was stored by any refused call.
  expect((await as(org.tokens.owner).get()).body.data.some((e: Listed) => e.source === 'organization')).toBe(false);
});

test("an organization's own prices price its new runs, not its old ones nor another organization's", async () => {
  const wf = await a.createWorkflow(steps());
  const before = await run(a, wf.id);
  const classifyBefore = stepOf(before, 'classify').usage!;
  expect(classifyBefore.cost).toBe(costAt(classifyBefore, { in: 0.15, out: 0.6 }));
  expect(stepOf(before, 'own').usage!.cost).toBeNull();

  const own = [
    price('gpt-4o-mini', 10, 20),
    price('org-only-model', 3, 4),
    price('claude-3-5-haiku-latest', 5, 7, '2020-01-01', 'anthropic'),
    // Dated after every run of this test: never in effect yet.
    price('gpt-4o-mini', 1000, 1000, '2099-01-01'),
  ];
  const put = await as(org.tokens.admin).put({ entries: own });
  expect(put.status).toBe(200);
  // The organization's entries replace the default ones of their models; the rest stay.
  expect(rowsOf(put.body, 'gpt-4o-mini')).toEqual([
    { ...own[3], source: 'organization' },
    { ...own[0], source: 'organization' },
  ]);
  expect(rowsOf(put.body, 'house-model')).toEqual([{ ...HOUSE, source: 'setting' }]);
  expect(rowsOf(put.body, 'gpt-4o')).toEqual([expect.objectContaining({ source: 'default' })]);
  expect((await as(org.tokens.viewer).get()).body).toEqual(put.body);

  llmTokens.reset();
  const after = await run(a, wf.id);
  const classify = stepOf(after, 'classify').usage!;
  expect(classify.cost).toBe(costAt(classify, { in: 10, out: 20 }));
  const ownModel = stepOf(after, 'own').usage!;
  expect(ownModel.cost).toBe(costAt(ownModel, { in: 3, out: 4 }));
  // The agent's model calls too, each call and the step's sum.
  const call = stepOf(after, 'helper.model-1').usage!;
  expect(call.cost).toBe(costAt(call, { in: 5, out: 7 }));
  expect(stepOf(after, 'helper').usage!.cost).toBe(call.cost);
  // The token metric never names a model only an organization prices.
  const labelled = (await llmTokens.get()).values.map((v) => v.labels.model);
  expect(labelled).toContain('gpt-4o-mini');
  expect(labelled).toContain('other');
  expect(labelled).not.toContain('org-only-model');

  // The run recorded before keeps its cost.
  expect(stepOf(await a.readExecution(before.id), 'classify').usage).toEqual(classifyBefore);

  // Another organization: its own table, its runs at the service's prices.
  const theirs = await as(other.tokens.owner).get();
  expect(rowsOf(theirs.body, 'gpt-4o-mini')).toEqual([expect.objectContaining({ source: 'default', inputPerMillion: 0.15 })]);
  expect(rowsOf(theirs.body, 'org-only-model')).toEqual([]);
  const b = workflowApi(h.app, other);
  const theirRun = await run(b, (await b.createWorkflow(steps())).id);
  const theirClassify = stepOf(theirRun, 'classify').usage!;
  expect(theirClassify.cost).toBe(costAt(theirClassify, { in: 0.15, out: 0.6 }));
  expect(stepOf(theirRun, 'own').usage!.cost).toBeNull();

  // An empty list removes the organization's entries: the next run is priced by the service's table again.
  expect((await as(org.tokens.owner).put({ entries: [] })).status).toBe(200);
  const reset = await run(a, wf.id);
  const classifyReset = stepOf(reset, 'classify').usage!;
  expect(classifyReset.cost).toBe(costAt(classifyReset, { in: 0.15, out: 0.6 }));
});

test('the worker keeps each organization’s table until a change is announced, and at most so many', async () => {
  const repository = new OrganizationPricesRepository(h.services.db);
  const loads: string[] = [];
  const tables = new OrganizationPriceTables(
    (h.services.db.options as PostgresConnectionOptions).url!,
    h.services.logger,
    [HOUSE],
    (organizationId) => {
      loads.push(organizationId);
      return repository.list(organizationId);
    },
    2,
  );
  try {
    const at = new Date();
    await tables.forOrganization(org.organizationId);
    await eventually(
      async () => tables.isListening,
      (listening) => listening,
      10_000,
    );
    await tables.forOrganization(org.organizationId);
    await tables.forOrganization(org.organizationId);
    const loadsWhenCached = loads.length;
    expect((await tables.forOrganization(org.organizationId)).find('openai', 'gpt-4o-mini', at)).toMatchObject({ source: 'default' });
    expect(loads.length).toBe(loadsWhenCached);

    // A change written by another process (here, the API's repository): announced, and the next lookup reads it.
    await repository.replace(org.organizationId, [price('gpt-4o-mini', 42, 42)]);
    const changed = await eventually(
      () => tables.forOrganization(org.organizationId),
      (table) => table.find('openai', 'gpt-4o-mini', at)?.inputPerMillion === 42,
      10_000,
    );
    expect(changed.find('openai', 'gpt-4o-mini', at)).toMatchObject({ source: 'organization' });
    // The service-wide table, which the token metric labels by, knows nothing of it.
    expect(tables.service.knows('openai', 'house-model')).toBe(true);

    // Bounded: a third organization pushes out the least recently used.
    const third = await createTestOrg(h.services);
    await tables.forOrganization(other.organizationId);
    await tables.forOrganization(third.organizationId);
    expect(tables.size).toBe(2);
    const loadsBefore = loads.length;
    await tables.forOrganization(org.organizationId);
    expect(loads.length).toBe(loadsBefore + 1);
  } finally {
    await repository.replace(org.organizationId, []);
    await tables.close();
  }
});
