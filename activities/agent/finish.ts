import type { StepRow } from '../../src/executions/executions.repository';
import { sumCalls, type StepUsage } from '../../src/llm-usage/usage';
import { asText } from '../../src/templates/template-renderer';
import type { AgentToolDefinition } from '../../src/workflows/definition.schemas';
import type { AgentFinishRequest } from '../../workflows/agent.types';
import type { StepResult } from '../../workflows/run.types';
import { activityContext } from '../steps/activity-context';
import { heartbeating, inline, keptInRecord, openScope, type StepRunnerDeps } from '../steps/step-runner';
import { isModelTurn, isToolCall, loadSubSteps, type ModelTurnOutput, type ToolCallInput } from './sub-steps';

/** How much of a tool result the step's output repeats (the sub-step record has it whole). */
export const RESULT_SUMMARY_CHARS = 200;

/**
 * `agentFinish`: the step's own record, written last. Its input is the
 * rendered prompts; its output, built from the sub-steps, is
 * `{ text, object?, toolCalls, iterations, usage, stoppedBy? }`, always
 * offloaded (later steps load it from the record). A failed step gets its
 * record and error.
 */
export function createFinish(deps: StepRunnerDeps) {
  return {
    agentFinish(request: AgentFinishRequest): Promise<StepResult> {
      return heartbeating(async () => {
        const startedAt = new Date();
        const input = request.step.input;
        const scope = await openScope(deps, request);
        const recordedInput = {
          provider: input.provider.provider,
          model: input.provider.model,
          connection: input.provider.connection,
          ...(input.system_prompt === undefined ? {} : { system: asText(await scope.render(input.system_prompt)) }),
          prompt: asText(await scope.render(input.user_prompt)),
          tools: (input.tools as AgentToolDefinition[]).map((t) => t.name),
          ...(input.output_schema ? { output_schema: input.output_schema } : {}),
        };
        const { outcome } = request;
        const subSteps = await loadSubSteps(deps, request);
        const output = outcome.status === 'completed' ? stepOutput(subSteps, request) : null;
        const masked = scope.mask(output);
        await deps.executions.recordStep(request.run.organizationId, request.run.executionId, {
          stepId: request.step.stepId,
          stepType: request.step.stepType,
          seq: request.seq,
          status: outcome.status,
          attempt: activityContext()?.info.attempt ?? 1,
          input: scope.mask(recordedInput),
          output: masked,
          error: outcome.status === 'failed' ? scope.mask(outcome.message) : null,
          startedAt,
          finishedAt: new Date(),
          subSeq: 0,
          // A failed agent's calls were paid for all the same.
          usage: agentUsage(input.provider.provider, input.provider.model, subSteps),
        });
        if (outcome.status === 'failed') return inline(null);
        // Always by reference: the output repeats the conversation in brief (arguments, results), which stays out of history.
        return keptInRecord(request.step.stepId);
      });
    },
  };
}

/** The step's output from its sub-steps: the last turn's text, the final answer's object, each tool call in brief. */
export function stepOutput(subSteps: StepRow[], request: Pick<AgentFinishRequest, 'iterations' | 'usage' | 'outcome'>) {
  const turns = subSteps.filter((s) => isModelTurn(s) && s.status === 'completed').map((s) => s.output as ModelTurnOutput);
  const lastText = [...turns].reverse().find((t) => 'text' in t && t.text);
  const final = turns.find((t) => 'object' in t);
  const toolCalls = subSteps.filter(isToolCall).map((s) => {
    const { tool, args } = s.input as ToolCallInput;
    return { tool, args, ...(s.status === 'completed' ? { result: summary(s.output) } : { error: s.error }) };
  });
  const { inputTokens, outputTokens } = request.usage;
  return {
    text: lastText && 'text' in lastText ? lastText.text : '',
    ...(final && 'object' in final ? { object: final.object } : {}),
    toolCalls,
    iterations: request.iterations,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    ...(request.outcome.status === 'completed' && request.outcome.stoppedBy ? { stoppedBy: request.outcome.stoppedBy } : {}),
  };
}

/** The step's usage: the sums of its model calls' (each call's record has its own); null before any call recorded one. */
export function agentUsage(provider: string, model: string, subSteps: StepRow[]): StepUsage | null {
  const calls = subSteps.filter((s) => isModelTurn(s) && s.usage).map((s) => s.usage!);
  return calls.length ? sumCalls(provider, model, calls) : null;
}

/** A result in brief: its JSON cut to RESULT_SUMMARY_CHARS characters. */
function summary(result: unknown): string {
  const json = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  return json.length <= RESULT_SUMMARY_CHARS ? json : `${json.slice(0, RESULT_SUMMARY_CHARS - 1)}…`;
}
