import { SpanKind } from '@opentelemetry/api';
import { inSpan } from '../../src/observability/trace-context';

/** What a model call's span says once the provider answered: the model that answered and the tokens it counted. */
export interface ModelAnswer {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * A model call as a span with the OpenTelemetry GenAI attributes (gen_ai.system, gen_ai.request.model,
 * gen_ai.usage.*), named `chat <model>` as the conventions ask. Never the prompt, the answer or the key: only which
 * model, how many tokens, and how it ended. The HTTP call to the provider is its child.
 */
export function inModelSpan<T>(provider: string, model: string, call: () => Promise<T>, answered: (result: T) => ModelAnswer): Promise<T> {
  const attributes = { 'gen_ai.system': provider, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': model };
  return inSpan(
    `chat ${model}`,
    attributes,
    async (span) => {
      const result = await call();
      const answer = answered(result);
      if (answer.model) span.setAttribute('gen_ai.response.model', answer.model);
      if (answer.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', answer.inputTokens);
      if (answer.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', answer.outputTokens);
      return result;
    },
    SpanKind.CLIENT,
  );
}
