import { buildConversation, capResult, finalInstruction, TOOL_RESULT_LIMIT } from './conversation';
import { subStepRow } from './sub-step-row.fixture';
import { TOOL_STEP_TYPE } from './sub-steps';

const row = subStepRow;
const usage = { inputTokens: 10, outputTokens: 5 };
const turn = (n: number, subSeq: number, text: string, calls: Array<[string, string, unknown]>) =>
  row(`agent.model-${n}`, subSeq, {
    input: { iteration: n },
    output: { text, toolCalls: calls.map(([callId, tool, args]) => ({ callId, tool, args })), usage, finishReason: calls.length ? 'tool-calls' : 'stop' },
  });
const toolRow = (n: number, subSeq: number, callId: string, tool: string, outcome: { result: unknown } | { error: string }) =>
  row(`agent.tool-${n}`, subSeq, {
    stepType: TOOL_STEP_TYPE,
    status: 'result' in outcome ? 'completed' : 'failed',
    input: { tool, callId, args: {} },
    output: 'result' in outcome ? outcome.result : null,
    error: 'error' in outcome ? outcome.error : null,
  });

describe('buildConversation', () => {
  test('the user prompt, then each turn with its text and calls, then one tool message answering every call in the order asked', () => {
    const messages = buildConversation('Which plan?', [
      turn(1, 1, 'Let me look.', [
        ['c1', 'lookup', { id: 'a' }],
        ['c2', 'save', { key: 'a', value: {} }],
      ]),
      // Results recorded out of order (each call is its own activity) are matched by call id.
      toolRow(2, 3, 'c2', 'save', { result: { key: 'a', created: true } }),
      toolRow(1, 2, 'c1', 'lookup', { result: { status: 200, body: { plan: 'gold' } } }),
      turn(2, 4, '', [['c3', 'lookup', { id: 'b' }]]),
      toolRow(3, 5, 'c3', 'lookup', { error: 'HTTP request timed out' }),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'Which plan?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'save', input: { key: 'a', value: {} } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'json', value: { status: 200, body: { plan: 'gold' } } } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'save', output: { type: 'json', value: { key: 'a', created: true } } },
        ],
      },
      // An empty text adds no text part.
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', input: { id: 'b' } }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'lookup', output: { type: 'error-text', value: 'HTTP request timed out' } }],
      },
    ]);
  });

  test('a call that was never run (a budget was spent) is answered as not run: no provider accepts an unanswered call', () => {
    const messages = buildConversation('Go', [
      turn(1, 1, '', [
        ['c1', 'lookup', { id: 'a' }],
        ['c2', 'lookup', { id: 'b' }],
      ]),
      toolRow(1, 2, 'c1', 'lookup', { result: { status: 200, body: 'ok' } }),
    ]);
    expect(messages[2]).toEqual({
      role: 'tool',
      content: [
        expect.objectContaining({ toolCallId: 'c1', output: { type: 'json', value: { status: 200, body: 'ok' } } }),
        expect.objectContaining({ toolCallId: 'c2', output: { type: 'error-text', value: expect.stringMatching(/^Not run: .*budget/) } }),
      ],
    });
  });

  test('failed model calls and the final structured answer are not turns of the conversation; a text answer has no tool message', () => {
    const messages = buildConversation('Go', [
      row('agent.model-1', 1, { status: 'failed', error: 'openai model call failed with HTTP 500', output: null }),
      turn(1, 1, 'It is gold.', []),
      row('agent.model-2', 2, { output: { object: { plan: 'gold' }, usage, final: { reason: 'answered' } } }),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'Go' },
      { role: 'assistant', content: [{ type: 'text', text: 'It is gold.' }] },
    ]);
  });

  test('a turn with neither text nor calls adds nothing (providers reject an empty assistant message)', () => {
    expect(buildConversation('Go', [turn(1, 1, '', [])])).toEqual([{ role: 'user', content: 'Go' }]);
  });
});

describe('capResult', () => {
  test('a small result is itself; null stands for nothing', () => {
    expect(capResult({ a: 1 })).toEqual({ a: 1 });
    expect(capResult(undefined)).toBeNull();
  });

  test('a large result becomes the start of its JSON and a note saying it was cut and how long it was', () => {
    const result = { rows: 'x'.repeat(40_000) };
    const capped = capResult(result) as string;
    expect(typeof capped).toBe('string');
    expect(capped.startsWith(JSON.stringify(result).slice(0, TOOL_RESULT_LIMIT))).toBe(true);
    expect(capped).toContain(`the result was ${JSON.stringify(result).length} characters of JSON`);
    expect(capped.length).toBeLessThan(TOOL_RESULT_LIMIT + 200);
  });
});

test('the final instruction says why the agent must answer now', () => {
  expect(finalInstruction({ reason: 'budget', budget: 'maxToolCalls' })).toMatch(/budget .*maxToolCalls.* is spent/);
  expect(finalInstruction({ reason: 'answered' })).not.toMatch(/budget/);
});
