import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub received it. */
export interface RecordedLlmRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One scripted answer: tool calls (with optional text before them), a text
 * answer, or a structured object (for a call that asks for JSON).
 */
export interface ScriptedTurn {
  toolCalls?: Array<{ name: string; args: unknown }>;
  text?: string;
  object?: unknown;
}

/** Releases a held request (its answer is sent then); `arrived` resolves once the request came in. */
export type HeldRequest = (() => void) & { arrived: Promise<void> };

export interface LlmProviderStub {
  /** Base URL to pass as `baseURL`, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  requests: RecordedLlmRequest[];
  /** The object the "model" answers with from now on (default `{}`). */
  respondWith(object: unknown): void;
  /** The next calls answer with these turns, one each, in order (then `respondWith`'s object again). */
  script(turns: ScriptedTurn[]): void;
  /** The next `times` calls answer with `status` and the provider's error body. */
  failNext(status: number, times?: number): void;
  /** The next call answers only after `ms`, to exercise timeouts. */
  delayNext(ms: number): void;
  /**
   * Holds the next request (recorded at once) until the returned function is
   * called, e.g. to kill a worker while its model call is in flight;
   * `arrived` resolves when the held request came in. close() drops it.
   */
  holdNext(): HeldRequest;
  close(): Promise<void>;
}

/**
 * A stand-in for OpenAI's Chat Completions API (`POST /v1/chat/completions`)
 * and Anthropic's Messages API (`POST /v1/messages`), answering in the shapes
 * the `@ai-sdk/openai` and `@ai-sdk/anthropic` response schemas parse, so
 * tests exercise the real SDK and the real HTTP exchange.
 */
export async function startLlmProviderStub(): Promise<LlmProviderStub> {
  const requests: RecordedLlmRequest[] = [];
  let object: unknown = {};
  let turns: ScriptedTurn[] = [];
  let failures: { status: number; left: number } | undefined;
  let delayMs = 0;
  let counter = 0;
  const pending = new Set<NodeJS.Timeout>();
  /** The hold the next request takes, and the holds taken but not released (close() drops them). */
  let nextHold: { gate: Promise<void>; arrive: () => void } | undefined;
  const held = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        // Recorded as text; the route below reports it the way the provider would.
      }
      const path = (req.url ?? '/').split('?')[0];
      requests.push({ path, headers: { ...req.headers }, body });
      const api = path === '/v1/messages' ? 'anthropic' : 'openai';
      const hold = nextHold;
      nextHold = undefined;
      hold?.arrive();
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        const wait = delayMs;
        delayMs = 0;
        const answer = () => {
          const timer = setTimeout(() => {
            pending.delete(timer);
            if (res.destroyed) return;
            res.writeHead(status, { 'content-type': 'application/json', ...headers });
            res.end(JSON.stringify(payload));
          }, wait);
          pending.add(timer);
        };
        if (hold) void hold.gate.then(answer);
        else answer();
      };

      if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/messages')) {
        return send(404, errorBody(api, 404, `Unknown request to ${req.method} ${path}`));
      }
      if (failures && failures.left > 0) {
        const { status } = failures;
        if (--failures.left === 0) failures = undefined;
        const key = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '').replace(/^Bearer /, '');
        return send(status, errorBody(api, status, errorMessage(status, key, body?.model)), status === 429 ? { 'retry-after': '1' } : {});
      }
      if (typeof body !== 'object' || body === null) return send(400, errorBody(api, 400, 'The request body is not valid JSON.'));
      counter += 1;
      const turn = turns.shift();
      if (turn && !turn.object) return send(200, api === 'openai' ? chatTurn(body, turn, counter) : anthropicTurn(body, turn, counter));
      const answer = turn ? turn.object : object;
      send(200, api === 'openai' ? chatCompletion(body, answer, counter) : anthropicMessage(body, answer, counter));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    respondWith: (next) => {
      object = next;
    },
    script: (next) => {
      turns = [...next];
    },
    failNext: (status, times = 1) => {
      failures = { status, left: times };
    },
    delayNext: (ms) => {
      delayMs = ms;
    },
    holdNext: () => {
      let open!: () => void;
      let arrive!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      nextHold = { gate, arrive };
      const release = () => {
        if (held.delete(release)) open();
      };
      held.add(release);
      return Object.assign(release, { arrived });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Held requests are dropped with their connections below, never answered.
        held.clear();
        for (const timer of pending) clearTimeout(timer);
        server.close((err) => (err ? reject(err) : resolve()));
        // The SDK's fetch keeps connections alive; close() alone would wait for them.
        server.closeAllConnections();
      }),
  };
}

const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

/** OpenAI chat completion; with `response_format` the content is the object as JSON text, as the real API returns it. */
function chatCompletion(body: any, object: unknown, n: number) {
  return chatEnvelope(body, n, { content: body.response_format ? JSON.stringify(object) : 'Stub reply.' });
}

/** OpenAI Chat Completions with tool calling: `tool_calls` of type function, arguments as JSON text, finish reason `tool_calls`. */
function chatTurn(body: any, turn: ScriptedTurn, n: number) {
  const calls = (turn.toolCalls ?? []).map((c, i) => ({
    id: `call_stub${n}_${i}`,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  return chatEnvelope(body, n, { content: turn.text ?? null, ...(calls.length ? { tool_calls: calls } : {}) });
}

/** A `chat.completion` with one choice holding `message`; the finish reason follows from it. */
function chatEnvelope(body: any, n: number, message: { content: string | null; tool_calls?: unknown[] }) {
  const promptTokens = tokens(JSON.stringify(body.messages ?? []));
  const completionTokens = tokens(JSON.stringify(message));
  return {
    id: `chatcmpl-stub${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [
      { index: 0, message: { role: 'assistant', refusal: null, ...message }, logprobs: null, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

/** Anthropic Messages with `tool_use` blocks (text first when given), stop reason `tool_use`. */
function anthropicTurn(body: any, turn: ScriptedTurn, n: number) {
  const content = [
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    ...(turn.toolCalls ?? []).map((c, i) => ({ type: 'tool_use', id: `toolu_stub${n}_${i}`, name: c.name, input: c.args })),
  ];
  return anthropicEnvelope(body, n, content);
}

/**
 * Anthropic message. The SDK asks for JSON either by forcing a tool (named
 * `json` unless taken) whose input is the object, or, for models with native
 * structured outputs, through `output_config.format` with the JSON as text.
 */
function anthropicMessage(body: any, object: unknown, n: number) {
  const tools: Array<{ name: string }> = Array.isArray(body.tools) ? body.tools : [];
  const toolName = body.tool_choice?.type === 'tool' ? body.tool_choice.name : tools.at(-1)?.name;
  const useTool = body.output_config?.format === undefined && toolName !== undefined;
  const content = useTool
    ? [{ type: 'tool_use', id: `toolu_stub${n}`, name: toolName, input: object }]
    : [{ type: 'text', text: body.output_config?.format ? JSON.stringify(object) : 'Stub reply.' }];
  return anthropicEnvelope(body, n, content);
}

/** A `message` holding `content`; the stop reason follows from it. */
function anthropicEnvelope(body: any, n: number, content: Array<{ type: string }>) {
  return {
    id: `msg_stub${n}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: tokens(JSON.stringify([body.system, body.messages])),
      output_tokens: tokens(JSON.stringify(content)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};
const OPENAI_ERRORS: Record<number, { type: string; code: string | null }> = {
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

/** Messages modelled on the real ones, including OpenAI echoing part of a wrong key. */
function errorMessage(status: number, key: string, model: unknown): string {
  if (status === 401) return `Incorrect API key provided: ${key.slice(0, 3)}${'*'.repeat(Math.max(0, key.length - 7))}${key.slice(-4)}.`;
  if (status === 404) return `The model \`${String(model)}\` does not exist or you do not have access to it.`;
  if (status === 429) return 'Rate limit reached. Please try again in 1s.';
  if (status >= 500) return 'The server had an error while processing your request. Sorry about that!';
  return 'Invalid request.';
}

function errorBody(api: 'openai' | 'anthropic', status: number, message: string) {
  if (api === 'anthropic') {
    return { type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
  }
  const known = OPENAI_ERRORS[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message, type: known.type, param: null, code: known.code } };
}
