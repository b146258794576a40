import { childExecutionId } from '../child-runs';
import { RESULT_SUMMARY_CHARS, stepOutput } from './finish';
import { subStepRow } from './sub-step-row.fixture';
import { TOOL_STEP_TYPE } from './sub-steps';

const row = subStepRow;
const usage = { inputTokens: 1, outputTokens: 1 };

describe('stepOutput', () => {
  const subSteps = [
    row('agent.model-1', 1, {
      output: {
        text: 'Looking it up.',
        toolCalls: [
          { callId: 'c1', tool: 'lookup', args: { id: 'a' } },
          { callId: 'c2', tool: 'lookup', args: { id: 'b' } },
        ],
        usage,
        finishReason: 'tool-calls',
      },
    }),
    row('agent.tool-1', 2, { stepType: TOOL_STEP_TYPE, input: { tool: 'lookup', callId: 'c1', args: { id: 'a' } }, output: { rows: 'y'.repeat(500) } }),
    row('agent.tool-2', 3, { stepType: TOOL_STEP_TYPE, status: 'failed', input: { tool: 'lookup', callId: 'c2', args: { id: 'b' } }, error: 'HTTP timed out' }),
    row('agent.model-2', 4, { output: { text: '', toolCalls: [], usage, finishReason: 'stop' } }),
    row('agent.model-3', 5, { output: { object: { plan: 'gold' }, usage, final: { reason: 'budget', budget: 'maxIterations' } } }),
  ];

  test('the last text, the final object, each call in brief, iterations, usage with its total and what stopped the loop', () => {
    const output = stepOutput(subSteps, {
      iterations: 3,
      usage: { inputTokens: 120, outputTokens: 30 },
      outcome: { status: 'completed', stoppedBy: 'maxIterations' },
    });
    expect(output).toEqual({
      text: 'Looking it up.',
      object: { plan: 'gold' },
      toolCalls: [
        { tool: 'lookup', args: { id: 'a' }, result: expect.any(String) },
        { tool: 'lookup', args: { id: 'b' }, error: 'HTTP timed out' },
      ],
      iterations: 3,
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
      stoppedBy: 'maxIterations',
    });
    const summary = (output.toolCalls[0] as { result: string }).result;
    expect(summary.length).toBe(RESULT_SUMMARY_CHARS);
    expect(summary.startsWith('{"rows":"yyy')).toBe(true);
    expect(summary.endsWith('…')).toBe(true);
  });

  test('no stoppedBy or object when the model answered by itself without a schema; a short result is its JSON', () => {
    const output = stepOutput(subSteps.slice(0, 2), { iterations: 1, usage, outcome: { status: 'completed' } });
    expect(output).not.toHaveProperty('stoppedBy');
    expect(output).not.toHaveProperty('object');
    expect(
      stepOutput([row('agent.tool-1', 1, { stepType: TOOL_STEP_TYPE, input: { tool: 't', callId: 'c', args: {} }, output: { ok: 1 } })], {
        iterations: 1,
        usage,
        outcome: { status: 'completed' },
      }).toolCalls,
    ).toEqual([{ tool: 't', args: {}, result: '{"ok":1}' }]);
  });
});

describe('childExecutionId', () => {
  test('the same call always gives the same id, another call another; each a UUID', () => {
    const id = childExecutionId('0b7c8a52-6f7e-4a43-9b0e-4c1f9d2a7e10', 'agent', 1);
    expect(childExecutionId('0b7c8a52-6f7e-4a43-9b0e-4c1f9d2a7e10', 'agent', 1)).toBe(id);
    expect(childExecutionId('0b7c8a52-6f7e-4a43-9b0e-4c1f9d2a7e10', 'agent', 2)).not.toBe(id);
    expect(childExecutionId('0b7c8a52-6f7e-4a43-9b0e-4c1f9d2a7e10', 'other', 1)).not.toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
