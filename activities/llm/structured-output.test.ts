import { startLlmProviderStub, type LlmProviderStub, type RecordedLlmRequest } from '../../test/stubs/llm-provider-stub';
import { generateStructuredOutput, LlmOutputInvalid, LlmRequestRejected, type StructuredOutputRequest } from './structured-output';

const API_KEY = 'sk-test-7f3a9c1e5b2d4f60a8c9e1b3d5f7a9c1';
const SYSTEM = 'You extract facts from support tickets.';
const PROMPT = 'Ticket 4711: the invoice for ACME shows 3 seats, we have 5.';
const OUTPUT_SCHEMA = { customer: 'string: Company name', seats: 'number[]: Seat counts mentioned', urgent: 'boolean: Needs action today' };
const ANSWER = { customer: 'ACME', seats: [3, 5], urgent: false };
const MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5' } as const;

let stub: LlmProviderStub;
beforeAll(async () => {
  stub = await startLlmProviderStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(ANSWER);
});

const call = (provider: 'openai' | 'anthropic', overrides: Partial<StructuredOutputRequest> = {}) =>
  generateStructuredOutput({
    provider,
    apiKey: API_KEY,
    baseURL: stub.url,
    model: MODELS[provider],
    system: SYSTEM,
    prompt: PROMPT,
    outputSchema: OUTPUT_SCHEMA,
    timeoutMs: 10_000,
    ...overrides,
  });

/** What the provider saw, read from each API's own request shape. */
function seen(provider: 'openai' | 'anthropic', request: RecordedLlmRequest) {
  const { headers, body } = request;
  if (provider === 'openai') {
    return {
      key: headers.authorization,
      system: body.messages.find((m: { role: string }) => m.role === 'system')?.content,
      user: body.messages.find((m: { role: string }) => m.role === 'user')?.content,
      schema: body.response_format?.json_schema?.schema,
    };
  }
  return {
    key: headers['x-api-key'],
    system: body.system?.map((part: { text: string }) => part.text).join(''),
    user: body.messages[0].content.map((part: { text: string }) => part.text).join(''),
    schema: body.tools?.find((t: { name: string }) => t.name === body.tool_choice?.name)?.input_schema,
  };
}

describe.each(['openai', 'anthropic'] as const)('generateStructuredOutput with %s', (provider) => {
  test('returns the model object, usage and model; the request carries key, model, prompts and schema', async () => {
    const result = await call(provider);
    expect(result).toEqual({
      object: ANSWER,
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
      truncated: false,
      model: MODELS[provider],
    });

    expect(stub.requests).toHaveLength(1);
    const [request] = stub.requests;
    expect(request.path).toBe(provider === 'openai' ? '/v1/chat/completions' : '/v1/messages');
    expect(request.body.model).toBe(MODELS[provider]);
    expect(seen(provider, request)).toEqual({
      key: provider === 'openai' ? `Bearer ${API_KEY}` : API_KEY,
      system: SYSTEM,
      user: PROMPT,
      schema: {
        type: 'object',
        properties: {
          customer: { type: 'string', description: 'Company name' },
          seats: { type: 'array', items: { type: 'number' }, description: 'Seat counts mentioned' },
          urgent: { type: 'boolean', description: 'Needs action today' },
        },
        required: ['customer', 'seats', 'urgent'],
        additionalProperties: false,
      },
    });
  });

  test('maxPromptCharacters cuts the system and user prompt that reach the provider, and says so', async () => {
    const result = await call(provider, { maxPromptCharacters: 20 });
    expect(result.truncated).toBe(true);
    expect(seen(provider, stub.requests[0])).toMatchObject({ system: SYSTEM.slice(0, 20), user: PROMPT.slice(0, 20) });

    const roomy = await call(provider, { maxPromptCharacters: 1_000 });
    expect(roomy.truncated).toBe(false);
    expect(seen(provider, stub.requests[1])).toMatchObject({ system: SYSTEM, user: PROMPT });
  });

  test('an answer missing a required field or of the wrong type is LlmOutputInvalid', async () => {
    stub.respondWith({ customer: 'ACME', seats: [3, 5] });
    await expect(call(provider)).rejects.toThrow(LlmOutputInvalid);
    await expect(call(provider)).rejects.toThrow(/required property 'urgent'/);

    stub.respondWith({ ...ANSWER, seats: ['three'] });
    await expect(call(provider)).rejects.toThrow(/\/seats\/0 must be number/);
  });

  test('401 is LlmRequestRejected, tried once, and its message holds neither key nor prompt', async () => {
    stub.failNext(401);
    const err = await call(provider).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmRequestRejected);
    expect(err).toMatchObject({ status: 401, message: expect.stringMatching(/HTTP 401.*API key/) });
    expect(stub.requests).toHaveLength(1);
    expectNoSecrets(err);
  });

  test('500 and 429 are plain, retryable errors without key or prompt; one attempt only (a retry would have succeeded)', async () => {
    for (const status of [500, 429]) {
      stub.requests.length = 0;
      stub.failNext(status);
      const err = await call(provider).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(LlmRequestRejected);
      expect(err).not.toBeInstanceOf(LlmOutputInvalid);
      expect((err as Error).message).toContain(`HTTP ${status}`);
      expect(stub.requests).toHaveLength(1);
      expectNoSecrets(err);
    }
  });

  test('a provider slower than timeoutMs is a plain timeout error', async () => {
    stub.delayNext(2_000);
    const err = await call(provider, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(LlmRequestRejected);
    expect((err as Error).message).toMatch(/timed out after 200 ms/);
  });
});

test('Anthropic models with native structured outputs get the schema as output_config.format and answer in text', async () => {
  const result = await call('anthropic', { model: 'claude-sonnet-5-5' });
  expect(result.object).toEqual(ANSWER);
  expect(stub.requests[0].body.output_config.format).toMatchObject({ type: 'json_schema', schema: { required: ['customer', 'seats', 'urgent'] } });
});

test('a malformed output schema is rejected before any request', async () => {
  await expect(call('openai', { outputSchema: { when: 'date: a day' } })).rejects.toThrow(LlmRequestRejected);
  expect(stub.requests).toHaveLength(0);
});

function expectNoSecrets(err: unknown) {
  const text = `${(err as Error).message} ${JSON.stringify(err)} ${String((err as Error).stack)}`;
  for (const secret of [API_KEY, API_KEY.slice(-4), PROMPT, SYSTEM]) expect(text).not.toContain(secret);
}
