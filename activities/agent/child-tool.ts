import { createHash } from 'node:crypto';
import type { AgentChildFinishRequest, AgentChildPrepareRequest, AgentChildPrepareResult, AgentToolCallResult } from '../../workflows/agent.types';
import { MAX_AGENT_DEPTH, MAX_CHILD_RUNS_PER_STEP } from '../../workflows/agent.types';
import type { ActivityDeps } from '../deps';
import { heartbeating, openScope, type StepRunnerDeps } from '../steps/step-runner';
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
          return refuse(`Workflow tools nest at most ${MAX_AGENT_DEPTH} deep; this run is already ${request.depth} deep`);
        }
        const organizationId = request.run.organizationId;
        const target = await deps.workflows.findCurrentByName(organizationId, tool.workflow);
        if (!target) return refuse(`No workflow is named "${tool.workflow}" in this organization (it may have been renamed or deleted)`);
        const executionId = childExecutionId(request.run.executionId, request.step.stepId, request.toolCallNumber);
        const { workflow, version } = target;
        if (!(await deps.executions.findById(organizationId, executionId))) {
          await deps.executions
            .insert({
              id: executionId,
              organizationId,
              workflowId: workflow.id,
              workflowName: workflow.name,
              workflowVersion: version.version,
              triggerId: null,
              triggerName: null,
              environmentId: workflow.defaultEnvironmentId,
              mode: 'agent',
              input: call.args as Record<string, unknown>,
              rerunOf: null,
            })
            .catch((err: { code?: string }) => {
              // A concurrent attempt of this activity wrote it first.
              if (err.code !== '23505') throw err;
            });
        }
        return {
          kind: 'start',
          executionId,
          input: {
            organizationId,
            workflow: { id: workflow.id, name: workflow.name, version: version.version },
            ...(workflow.defaultEnvironmentId ? { environmentId: workflow.defaultEnvironmentId } : {}),
            steps: version.definition.steps,
            agentDepth: request.depth + 1,
          },
        };
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

/**
 * The execution id of a workflow tool's child run: derived from the call, so
 * a retried activity finds the row it wrote, and a UUID however deep the
 * nesting (execution ids appear in URLs).
 */
export function childExecutionId(parentExecutionId: string, stepId: string, toolCallNumber: number): string {
  const hex = createHash('sha256').update(`${parentExecutionId}\0${stepId}\0${toolCallNumber}`).digest('hex');
  // Version 8 (custom) and the RFC 4122 variant, so it reads as the UUID it is shaped like.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The child's answer: its first return step's body, else its last step's output (as recorded, so masked). */
async function childAnswer(deps: StepRunnerDeps, organizationId: string, executionId: string): Promise<unknown> {
  const steps = await deps.executions.steps(organizationId, executionId, { value: 0, read: 0 });
  const topLevel = steps.filter((s) => !s.parentStepId && s.status === 'completed');
  const answer = topLevel.find((s) => s.stepType === 'core.return') ?? topLevel.at(-1);
  if (!answer) return null;
  const json = await deps.executions.stepValueJson(organizationId, executionId, answer.stepId, 'output');
  const output = json ? JSON.parse(json) : null;
  return answer.stepType === 'core.return' ? (output?.body ?? null) : output;
}
