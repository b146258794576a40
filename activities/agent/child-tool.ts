import type { AgentChildFinishRequest, AgentChildPrepareRequest, AgentChildPrepareResult, AgentToolCallResult } from '../../workflows/agent.types';
import { MAX_AGENT_DEPTH, MAX_CHILD_RUNS_PER_STEP } from '../../workflows/agent.types';
import { childAnswer, childExecutionId, prepareChildRun } from '../child-runs';
import type { ActivityDeps } from '../deps';
import { heartbeating, openScope, type StepRunnerDeps } from '../steps/step-runner';
import { toolStepId } from './sub-steps';
import { argumentProblems } from './tool-arguments';
import { findToolCall, recordedOutcome, recordToolCall, ToolFailed, type ToolOutcome } from './tool-call';

/**
 * A workflow tool's child run: `agentChildPrepare` checks the call and writes
 * the child's execution row, the workflow runs the child, `agentChildFinish`
 * records its answer as the tool's result.
 */
export function createChildTool(deps: StepRunnerDeps & Pick<ActivityDeps, 'workflows'>) {
  return {
    agentChildPrepare(request: AgentChildPrepareRequest): Promise<AgentChildPrepareResult> {
      return heartbeating(async () => {
        const { call, tool, recorded } = await findToolCall(deps, request);
        if (recorded) return { kind: 'refused' };
        const startedAt = new Date();
        const refuse = async (error: string): Promise<AgentChildPrepareResult> => {
          const scope = await openScope(deps, request);
          await recordToolCall(deps, request, scope, call, { ok: false, error }, startedAt);
          return { kind: 'refused' };
        };
        if (tool?.type !== 'workflow') return refuse(`There is no workflow tool named "${call.tool}"`);
        const problems = argumentProblems(tool, call.args);
        if (problems) return refuse(problems);
        if (request.childRunNumber > MAX_CHILD_RUNS_PER_STEP) {
          return refuse(`An agent step runs at most ${MAX_CHILD_RUNS_PER_STEP} workflow tool calls; answer with what you have`);
        }
        if (request.depth + 1 > MAX_AGENT_DEPTH) {
          return refuse(`Workflow tools and core.workflow steps nest at most ${MAX_AGENT_DEPTH} deep; this run is already ${request.depth} deep`);
        }
        const organizationId = request.run.organizationId;
        const target = await deps.workflows.findCurrentByName(organizationId, tool.workflow);
        if (!target) return refuse(`No workflow is named "${tool.workflow}" in this organization (it may have been renamed or deleted)`);
        const executionId = childExecutionId(request.run.executionId, request.step.stepId, request.toolCallNumber);
        const start = await prepareChildRun(deps, {
          organizationId,
          executionId,
          target,
          mode: 'agent',
          input: call.args as Record<string, unknown>,
          parentExecutionId: request.run.executionId,
          parentStepId: toolStepId(request.step.stepId, request.toolCallNumber),
          depth: request.depth + 1,
          errorRun: request.errorRun === true,
        });
        return { kind: 'start', ...start };
      });
    },

    agentChildFinish(request: AgentChildFinishRequest): Promise<AgentToolCallResult> {
      return heartbeating(async () => {
        const { call, recorded } = await findToolCall(deps, request);
        if (recorded) return recordedOutcome(recorded);
        const startedAt = new Date();
        const scope = await openScope(deps, request);
        let outcome: ToolOutcome;
        try {
          if (request.outcome.status === 'failed') throw new ToolFailed(`The workflow run failed: ${request.outcome.message}`);
          outcome = { ok: true, result: await childAnswer(deps, request.run.organizationId, request.executionId) };
        } catch (err) {
          if (!(err instanceof ToolFailed)) throw err;
          outcome = { ok: false, error: err.message };
        }
        await recordToolCall(deps, request, scope, call, outcome, startedAt);
        return { ok: outcome.ok };
      });
    },
  };
}
