import type { createDataStoreActivities } from '../data-stores';
import type { ActivityDeps } from '../deps';
import type {
  AgentChildFinishRequest,
  AgentChildPrepareRequest,
  AgentChildPrepareResult,
  AgentFinishRequest,
  AgentModelCallRequest,
  AgentModelCallResult,
  AgentToolCallRequest,
  AgentToolCallResult,
} from '../../workflows/agent.types';
import type { StepResult } from '../../workflows/run.types';

// Skeleton being filled in (the ai.agent step's activities); each call fails until then.
const pending = (): never => {
  throw new Error('ai.agent activities are not built yet');
};

/** The ai.agent step's activities (see workflows/agent.types.ts). */
export function createAgentActivities(_deps: ActivityDeps, _records: ReturnType<typeof createDataStoreActivities>) {
  return {
    async agentModelCall(_request: AgentModelCallRequest): Promise<AgentModelCallResult> {
      return pending();
    },
    async agentToolCall(_request: AgentToolCallRequest): Promise<AgentToolCallResult> {
      return pending();
    },
    async agentChildPrepare(_request: AgentChildPrepareRequest): Promise<AgentChildPrepareResult> {
      return pending();
    },
    async agentChildFinish(_request: AgentChildFinishRequest): Promise<AgentToolCallResult> {
      return pending();
    },
    async agentFinish(_request: AgentFinishRequest): Promise<StepResult> {
      return pending();
    },
  };
}
