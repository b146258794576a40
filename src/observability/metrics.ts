import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's one Prometheus registry and every metric Flowbase defines. Labels take values from small fixed sets
 * (a status class, a mode, a step type, a provider): never an id, a name an organization chose, or a secret, so a
 * series count stays bounded however many organizations, workflows and runs there are.
 */
export const registry = new Registry();

/** Process and runtime figures (CPU, memory, GC, event-loop lag, handles), prefixed so they do not clash with others'. */
collectDefaultMetrics({ register: registry, prefix: 'flowbase_' });

/** LLM tokens used, counted by the LLM activities as each provider answers. */
export const llmTokens = new Counter({
  name: 'flowbase_llm_tokens_total',
  help: 'LLM tokens used, by provider, model and direction (input or output)',
  labelNames: ['provider', 'model', 'direction'] as const,
  registers: [registry],
});
