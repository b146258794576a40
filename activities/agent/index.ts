import type { createDataStoreActivities } from '../data-stores';
import type { ActivityDeps } from '../deps';
import { createChildTool } from './child-tool';
import { createFinish } from './finish';
import { createModelCall } from './model-call';
import { createToolCall } from './tool-call';

/**
 * The ai.agent step's activities (workflows/agent.types.ts): each model call
 * and each tool call is one, recorded as a sub-step of the step before it
 * answers, so a retried activity finds its call done instead of repeating it.
 */
export function createAgentActivities(deps: ActivityDeps, records: ReturnType<typeof createDataStoreActivities>) {
  const runner = { executions: deps.executions, renderer: deps.renderer, secrets: deps.secrets, seals: deps.seals };
  return {
    ...createModelCall(runner, deps.llm),
    ...createToolCall(runner, deps.http, records),
    ...createChildTool({ ...runner, workflows: deps.workflows }),
    ...createFinish(runner),
  };
}
