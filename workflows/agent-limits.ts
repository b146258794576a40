// A leaf module: the definition schemas (src/workflows) validate against these limits, and the run types
// import the definition schemas, so the limits cannot live beside the run types without an import circle.

/** Budgets of an ai.agent step: the defaults when a step sets none, and the most a step may set. */
export const AGENT_LIMITS = {
  maxIterations: { default: 10, max: 50 },
  maxToolCalls: { default: 50, max: 200 },
  maxTotalTokens: { default: 200_000, max: 2_000_000 },
  timeoutSeconds: { default: 600, max: 3600 },
} as const;
