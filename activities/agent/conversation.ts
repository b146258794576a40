import type { ModelMessage, ToolResultPart } from 'ai';
import type { StepRow } from '../../src/executions/executions.repository';
import type { AgentModelCallRequest } from '../../workflows/agent.types';
import { isModelTurn, isToolCall, type ModelTurnOutput, type RecordedToolCall, type ToolCallInput } from './sub-steps';

/** A tool result is cut to this many characters of JSON before the model sees it (and the record keeps what it saw). */
export const TOOL_RESULT_LIMIT = 16 * 1024;

/** A result as the model gets it: itself when small, else the start of its JSON with a note saying it was cut. */
export function capResult(result: unknown): unknown {
  const json = JSON.stringify(result ?? null);
  if (json.length <= TOOL_RESULT_LIMIT) return result ?? null;
  return `${json.slice(0, TOOL_RESULT_LIMIT)} … [cut: the result was ${json.length} characters of JSON; the first ${TOOL_RESULT_LIMIT} are shown]`;
}

/**
 * The conversation so far, rebuilt from the step's sub-step records: the user
 * prompt, then each model turn (its text and tool calls) and the results of
 * its tool calls. A call without a record was not run (a budget was spent);
 * it is answered as such, since both providers refuse an unanswered call.
 */
export function buildConversation(userPrompt: string, subSteps: StepRow[]): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: userPrompt }];
  const results = new Map<string, StepRow>();
  for (const s of subSteps.filter(isToolCall)) results.set((s.input as ToolCallInput).callId, s);
  for (const turn of subSteps.filter((s) => isModelTurn(s) && s.status === 'completed')) {
    const output = turn.output as ModelTurnOutput;
    if (!('toolCalls' in output)) continue;
    const content = [
      ...(output.text ? [{ type: 'text' as const, text: output.text }] : []),
      ...output.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.callId, toolName: c.tool, input: c.args ?? {} })),
    ];
    if (content.length === 0) continue;
    messages.push({ role: 'assistant', content });
    if (output.toolCalls.length > 0) messages.push({ role: 'tool', content: output.toolCalls.map((c) => toolResult(c, results.get(c.callId))) });
  }
  return messages;
}

function toolResult(call: RecordedToolCall, record: StepRow | undefined): ToolResultPart {
  const base = { type: 'tool-result' as const, toolCallId: call.callId, toolName: call.tool };
  if (!record) return { ...base, output: { type: 'error-text', value: "Not run: the step's tool call budget was spent before this call" } };
  if (record.status === 'failed') return { ...base, output: { type: 'error-text', value: record.error ?? 'The tool failed' } };
  return { ...base, output: { type: 'json', value: (record.output ?? null) as never } };
}

/** The last message of the structured answer call: why the agent must answer now. */
export function finalInstruction(final: NonNullable<AgentModelCallRequest['final']>): string {
  if (final.reason === 'budget') {
    return `The budget of this task (${final.budget}) is spent: no more tools can run. Give your final answer now, from what you have, as the requested JSON object.`;
  }
  return 'Give your final answer as the requested JSON object.';
}
