import { generateText, jsonSchema, tool, type ToolSet } from 'ai';
import type { AgentToolDefinition } from '../../src/workflows/definition.schemas';
import { inModelSpan } from '../llm/model-span';
import { countTokens } from '../../src/llm-usage/token-metrics';
import { usageOfCall, type StepUsage } from '../../src/llm-usage/usage';
import { asText } from '../../src/templates/template-renderer';
import type { AgentModelCallRequest, AgentModelCallResult, AgentUsage } from '../../workflows/agent.types';
import { describeFailure, generateStructuredOutput, languageModel, LlmOutputInvalid, LlmRequestRejected } from '../llm/structured-output';
import { activityContext } from '../steps/activity-context';
import type { LlmSettings } from '../steps/llm-step';
import { StepError } from '../steps/step-errors';
import { heartbeating, openScope, toFailure, type StepRunnerDeps } from '../steps/step-runner';
import { argumentSchema } from './tool-arguments';
import { buildConversation, finalInstruction } from './conversation';
import { loadSubSteps, MODEL_STEP_TYPE, modelStepId, recordSubStep, type ModelTurnOutput } from './sub-steps';

/**
 * One model call of an agent step. The conversation is rebuilt from the
 * records; the turn is recorded before the activity answers, and a turn
 * already recorded (a worker died before Temporal heard) is answered from its
 * record, so a completed model call is never paid for twice.
 */
export function createModelCall(deps: StepRunnerDeps, settings: LlmSettings) {
  return {
    agentModelCall(request: AgentModelCallRequest): Promise<AgentModelCallResult> {
      return heartbeating(async () => {
        const stepId = modelStepId(request.step.stepId, request.iteration);
        const subSteps = await loadSubSteps(deps, request);
        const done = subSteps.find((s) => s.stepId === stepId && s.status === 'completed');
        if (done) return resultOf(done.output as ModelTurnOutput);

        const input = request.step.input;
        const scope = await openScope(deps, request);
        const startedAt = new Date();
        const recordedInput: Record<string, unknown> = {
          iteration: request.iteration,
          model: input.provider.model,
          ...(request.final ? { final: request.final } : {}),
        };
        let output: ModelTurnOutput;
        let usage: StepUsage;
        // Before the model call's record: a price table that cannot be read fails the activity, to be retried, not the call.
        const prices = await settings.prices.forOrganization(request.run.organizationId);
        try {
          const connection = await scope.connection(input.provider.connection);
          const apiKey = connection.config.apiKey;
          if (typeof apiKey !== 'string' || !apiKey) {
            throw new StepError(
              `Connection "${connection.name}" holds no apiKey; use an api-key connection for ${input.provider.provider}`,
              'InvalidStepInput',
            );
          }
          const system = input.system_prompt === undefined ? undefined : asText(await scope.render(input.system_prompt));
          const prompt = asText(await scope.render(input.user_prompt));
          const messages = buildConversation(
            prompt,
            subSteps.filter((s) => (s.subSeq ?? 0) < request.subSeq),
          );
          recordedInput.messages = messages.length;
          const call = {
            provider: input.provider.provider,
            apiKey,
            baseURL: settings.baseUrls[input.provider.provider as 'openai' | 'anthropic'],
            model: input.provider.model,
          };
          const signal = activityContext()?.cancellationSignal;
          const calledAt = new Date();
          const priced = (model: string, tokens: { inputTokens?: number; outputTokens?: number }) =>
            usageOfCall(prices, { provider: call.provider, model, requestedModel: call.model, ...tokens, at: calledAt });
          if (request.final) {
            messages.push({ role: 'user', content: finalInstruction(request.final) });
            const answer = await generateStructuredOutput({
              ...call,
              system,
              messages,
              outputSchema: input.output_schema,
              timeoutMs: settings.timeoutMs,
              signal,
            });
            output = { object: answer.object, usage: usageOf(answer.usage), final: request.final };
            usage = priced(answer.model, answer.usage);
          } else {
            const timeout = AbortSignal.timeout(settings.timeoutMs);
            let turn;
            try {
              turn = await inModelSpan(
                call.provider,
                call.model,
                () =>
                  generateText({
                    model: languageModel(call),
                    system,
                    messages,
                    tools: toolSet(input.tools),
                    toolChoice: 'auto',
                    maxRetries: 0,
                    abortSignal: signal ? AbortSignal.any([timeout, signal]) : timeout,
                  }),
                (answer) => ({ model: answer.response.modelId, inputTokens: answer.usage.inputTokens, outputTokens: answer.usage.outputTokens }),
              );
            } catch (err) {
              throw describeFailure({ provider: call.provider, timeoutMs: settings.timeoutMs }, err, timeout.aborted);
            }
            output = {
              text: turn.text,
              toolCalls: turn.toolCalls.map((c) => ({ callId: c.toolCallId, tool: c.toolName, args: c.input })),
              usage: usageOf(turn.usage),
              finishReason: turn.finishReason,
            };
            usage = priced(turn.response.modelId || call.model, turn.usage);
          }
        } catch (err) {
          const failure = toFailure(asStepError(err), scope);
          await recordSubStep(deps, request, scope, {
            stepId,
            stepType: MODEL_STEP_TYPE,
            status: 'failed',
            input: recordedInput,
            output: null,
            error: failure.message,
            startedAt,
          });
          throw failure;
        }
        countTokens(settings.prices.service, usage, input.provider.model);
        const masked = scope.mask(output);
        await recordSubStep(deps, request, scope, {
          stepId,
          stepType: MODEL_STEP_TYPE,
          status: 'completed',
          input: recordedInput,
          output: masked,
          error: null,
          startedAt,
          usage,
        });
        return resultOf(masked);
      });
    },
  };
}

/** What the workflow gets: tool names and call ids, token use; never text or arguments. */
function resultOf(output: ModelTurnOutput): AgentModelCallResult {
  return { toolCalls: 'toolCalls' in output ? output.toolCalls.map(({ callId, tool }) => ({ callId, tool })) : [], usage: output.usage };
}

const usageOf = (usage: { inputTokens?: number; outputTokens?: number }): AgentUsage => ({
  inputTokens: usage.inputTokens ?? 0,
  outputTokens: usage.outputTokens ?? 0,
});

/** The tools as the model is offered them; no `execute`: the workflow runs each call as its own activity. */
function toolSet(tools: AgentToolDefinition[]): ToolSet {
  return Object.fromEntries(tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(argumentSchema(t)) })]));
}

/** Provider failures as step errors, as ai.llm-call maps them: a refused request is final, the rest may pass on another try. */
function asStepError(err: unknown): unknown {
  if (err instanceof LlmRequestRejected) return new StepError(err.message, 'LlmRequestRejected');
  if (err instanceof LlmOutputInvalid) return new StepError(err.message, 'LlmOutputInvalid', true);
  if (err instanceof StepError || !(err instanceof Error) || err.constructor !== Error) return err;
  return new StepError(err.message, 'LlmError', true);
}
