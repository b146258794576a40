import { LlmOutputInvalid, LlmRequestRejected, generateStructuredOutput } from '../llm/structured-output';
import type { OrganizationPrices } from '../../src/llm-usage/organization-price-tables';
import { countTokens } from '../../src/llm-usage/token-metrics';
import { usageOfCall } from '../../src/llm-usage/usage';
import { asText } from '../../src/templates/template-renderer';
import type { StepRequest } from '../../workflows/run.types';
import { activityContext } from './activity-context';
import { StepError } from './step-errors';
import { runStep, type StepRunnerDeps } from './step-runner';

export interface LlmSettings {
  /** Operator-set provider base URLs (an OpenAI-compatible gateway, a local stub in tests); unset means the provider's own. */
  baseUrls: { openai?: string; anthropic?: string };
  timeoutMs: number;
  /** What each model costs (the organization's entries over LLM_PRICES and the defaults): a call's cost is recorded with its tokens. */
  prices: OrganizationPrices;
}

/**
 * `ai.llm-call` in `structured_output` mode: prompts rendered here, the key
 * read from the step's connection, the answer validated against the schema
 * built from `output_schema`. Output `{ object, usage, truncated }`.
 */
export function createLlmStep(deps: StepRunnerDeps, settings: LlmSettings) {
  return {
    llmCallStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const { provider, mode, maxPromptCharacters } = request.step.input;
        const connection = await scope.connection(provider.connection);
        const apiKey = connection.config.apiKey;
        if (typeof apiKey !== 'string' || !apiKey) {
          throw new StepError(`Connection "${connection.name}" holds no apiKey; use an api-key connection for ${provider.provider}`, 'InvalidStepInput');
        }
        const system = mode.system_prompt === undefined ? undefined : asText(await scope.render(mode.system_prompt));
        const prompt = asText(await scope.render(mode.user_prompt));
        trace.input = { provider: provider.provider, model: provider.model, connection: connection.name, system, prompt, output_schema: mode.output_schema };
        // Read before the call: a failed lookup must not cost a model call that a retry would pay for again.
        const prices = await settings.prices.forOrganization(request.run.organizationId);
        const calledAt = new Date();
        try {
          const result = await generateStructuredOutput({
            provider: provider.provider,
            apiKey,
            baseURL: settings.baseUrls[provider.provider as 'openai' | 'anthropic'],
            model: provider.model,
            system,
            prompt,
            outputSchema: mode.output_schema,
            maxPromptCharacters,
            timeoutMs: settings.timeoutMs,
            // A cancelled run stops paying for its model call.
            signal: activityContext()?.cancellationSignal,
          });
          // Recorded beside the output (not in it): the run's history carries no more than before.
          trace.usage = usageOfCall(prices, {
            provider: provider.provider,
            model: result.model,
            requestedModel: provider.model,
            ...result.usage,
            at: calledAt,
          });
          countTokens(settings.prices.service, trace.usage, provider.model);
          return { object: result.object, usage: result.usage, truncated: result.truncated };
        } catch (err) {
          if (err instanceof LlmRequestRejected) throw new StepError(err.message, 'LlmRequestRejected');
          // A model may answer well on another try.
          if (err instanceof LlmOutputInvalid) throw new StepError(err.message, 'LlmOutputInvalid', true);
          throw new StepError((err as Error).message, 'LlmError', true);
        }
      });
    },
  };
}
