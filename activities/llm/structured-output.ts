import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateObject, jsonSchema, NoObjectGeneratedError, TypeValidationError, type LanguageModel, type ModelMessage } from 'ai';
import { compileOrganizationSchema } from '../../src/lib/organization-ajv';
import { inModelSpan } from './model-span';
import { outputSchemaToJsonSchema, type OutputJsonSchema } from './output-schema';

export interface StructuredOutputRequest {
  provider: 'openai' | 'anthropic';
  apiKey: string;
  /** Operator-configured; undefined means the provider's public API. */
  baseURL?: string;
  model: string;
  system?: string;
  /** The prompt, or, for a conversation (an agent's final answer), `messages`. */
  prompt?: string;
  messages?: ModelMessage[];
  outputSchema: Record<string, string>;
  /** When set, longer system or user prompt text is cut to this many characters and the result says so. */
  maxPromptCharacters?: number;
  timeoutMs: number;
  /** Aborts the call early, e.g. the activity's cancellation signal. */
  signal?: AbortSignal;
}

export interface StructuredOutputResult {
  object: Record<string, unknown>;
  usage: { inputTokens?: number; outputTokens?: number };
  truncated: boolean;
  /** The model the provider says answered (it may resolve an alias), else the one asked for. */
  model: string;
}

/** The provider refused the request itself (bad key, unknown model, malformed request): retrying cannot help. */
export class LlmRequestRejected extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmRequestRejected';
  }
}

/** The model answered, but not with an object matching the output schema. */
export class LlmOutputInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmOutputInvalid';
  }
}

// Passed explicitly: left undefined, the SDK would read OPENAI_BASE_URL / ANTHROPIC_BASE_URL from the worker's environment.
const DEFAULT_BASE_URLS = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' } as const;

/**
 * Asks the model for one object matching `outputSchema`, in one attempt
 * (Temporal owns retries). Errors never carry the API key or prompt text:
 * LlmRequestRejected for provider 4xx other than 408/409/429, LlmOutputInvalid
 * when the answer does not match the schema, a plain Error for anything
 * transient (5xx, 408/409/429, network, timeout).
 */
export async function generateStructuredOutput(req: StructuredOutputRequest): Promise<StructuredOutputResult> {
  // The SDK falls back to OPENAI_API_KEY / ANTHROPIC_API_KEY when the key is not a string: never bill another tenant's call to the operator.
  if (typeof req.apiKey !== 'string' || req.apiKey === '') throw new LlmRequestRejected(`${req.provider}: the connection holds no API key`);
  let schema: OutputJsonSchema;
  try {
    schema = outputSchemaToJsonSchema(req.outputSchema);
  } catch (err) {
    throw new LlmRequestRejected((err as Error).message);
  }
  const system = truncate(req.system, req.maxPromptCharacters);
  const prompt = truncate(req.prompt, req.maxPromptCharacters);
  const timeout = AbortSignal.timeout(req.timeoutMs);

  let result;
  try {
    result = await inModelSpan(
      req.provider,
      req.model,
      () =>
        generateObject({
          model: languageModel(req),
          schema: jsonSchema<Record<string, unknown>>(schema),
          system: system.text,
          ...(req.messages ? { messages: req.messages } : { prompt: prompt.text ?? '' }),
          maxRetries: 0,
          abortSignal: req.signal ? AbortSignal.any([timeout, req.signal]) : timeout,
        }),
      (answer) => ({ model: answer.response.modelId, inputTokens: answer.usage.inputTokens, outputTokens: answer.usage.outputTokens }),
    );
  } catch (err) {
    throw describeFailure(req, err, timeout.aborted);
  }

  checkAgainstSchema(schema, result.object);
  return {
    object: result.object,
    usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
    truncated: system.truncated || prompt.truncated,
    model: result.response.modelId || req.model,
  };
}

/** The provider's model for one call: the key and base URL given, never the SDK's environment fallbacks. */
export function languageModel({ provider, apiKey, baseURL, model }: Pick<StructuredOutputRequest, 'provider' | 'apiKey' | 'baseURL' | 'model'>): LanguageModel {
  const base = baseURL ?? DEFAULT_BASE_URLS[provider];
  // `.chat`: the Chat Completions API, which OpenAI-compatible providers speak (the SDK's default is the Responses API).
  if (provider === 'openai') return createOpenAI({ apiKey, baseURL: base }).chat(model);
  if (provider === 'anthropic') return createAnthropic({ apiKey, baseURL: base })(model);
  throw new LlmRequestRejected(`Unknown model provider "${String(provider)}"`);
}

function truncate(text: string | undefined, max: number | undefined): { text: string | undefined; truncated: boolean } {
  if (text === undefined || max === undefined || text.length <= max) return { text, truncated: false };
  let cut = text.slice(0, max);
  // Never leave half a surrogate pair: providers reject or mangle lone surrogates.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return { text: cut, truncated: true };
}

/** The SDK only parses JSON when given a bare JSON Schema; the schema itself is enforced here. */
function checkAgainstSchema(schema: OutputJsonSchema, object: unknown): asserts object is Record<string, unknown> {
  // Built from output_schema (no pattern of the organization's), checked the way every schema of an organization is.
  const validate = compileOrganizationSchema(schema, { allErrors: true });
  if (validate(object)) return;
  const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  throw new LlmOutputInvalid(`The model's answer does not match the output schema: ${problems.join('; ')}`);
}

/** Maps an SDK failure to our errors from status, codes and names only: provider messages can echo the key (OpenAI shows part of it). */
export function describeFailure(req: Pick<StructuredOutputRequest, 'provider' | 'timeoutMs'>, err: unknown, timedOut: boolean): Error {
  const who = `${req.provider} model call`;
  if (NoObjectGeneratedError.isInstance(err)) {
    const reason = err.finishReason ? ` (finish reason: ${err.finishReason})` : '';
    return new LlmOutputInvalid(`The model's answer is not a JSON object matching the output schema${reason}`);
  }
  if (TypeValidationError.isInstance(err)) return new LlmOutputInvalid("The model's answer does not match the output schema");
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === undefined) return new Error(`${who} failed: no response from the provider`);
    const detail = errorCodes(err.data);
    if (status >= 400 && status < 500 && ![408, 409, 429].includes(status)) {
      return new LlmRequestRejected(`${who} rejected with HTTP ${status}${detail}${HINTS[status] ?? ''}`, status);
    }
    return new Error(`${who} failed with HTTP ${status}${detail}`);
  }
  if (timedOut) return new Error(`${who} timed out after ${req.timeoutMs} ms`);
  if (err instanceof Error && err.name === 'AbortError') return new Error(`${who} was cancelled`);
  return new Error(`${who} failed (${err instanceof Error ? err.name : typeof err})`);
}

const HINTS: Record<number, string> = {
  401: ': check the API key in the connection',
  403: ': the API key may not use this model',
  404: ': check the model name',
};

/** The provider's error type and code, e.g. ` (invalid_request_error, invalid_api_key)`, when they look like identifiers. */
function errorCodes(data: unknown): string {
  const error = (data as { error?: { type?: unknown; code?: unknown } } | undefined)?.error;
  const codes = [error?.type, error?.code].filter((c): c is string => typeof c === 'string' && /^[\w.-]{1,64}$/.test(c));
  return codes.length ? ` (${codes.join(', ')})` : '';
}
