import type { StepRow } from '../../src/executions/executions.repository';
import type { StepUsage } from '../../src/llm-usage/usage';
import type { AgentCall, AgentUsage } from '../../workflows/agent.types';
import { activityContext } from '../steps/activity-context';
import type { StepRunnerDeps } from '../steps/step-runner';
import type { StepScope } from '../steps/step-scope';

/** An agent's sub-step ids: `<stepId>.model-<n>` and `<stepId>.tool-<n>` (step ids are identifiers, so no top-level step can take one). */
export const modelStepId = (stepId: string, iteration: number) => `${stepId}.model-${iteration}`;
export const toolStepId = (stepId: string, callNumber: number) => `${stepId}.tool-${callNumber}`;

import { MODEL_STEP_TYPE, TOOL_STEP_TYPE } from '../../workflows/agent.types';

export { MODEL_STEP_TYPE, TOOL_STEP_TYPE };

/** A tool call as a model turn records it. */
export interface RecordedToolCall {
  callId: string;
  tool: string;
  args: unknown;
}

/** A model sub-step's output: a turn of the loop, or (`final`) the structured answer. */
export type ModelTurnOutput =
  | { text: string; toolCalls: RecordedToolCall[]; usage: AgentUsage; finishReason: string }
  | { object: Record<string, unknown>; usage: AgentUsage; final: { reason: string; budget?: string } };

/** A tool sub-step's input; its output is the result the model saw, its error the tool's error. */
export interface ToolCallInput {
  tool: string;
  callId: string;
  args: unknown;
}

export const isModelTurn = (s: StepRow) => s.stepType === MODEL_STEP_TYPE;
export const isToolCall = (s: StepRow) => s.stepType === TOOL_STEP_TYPE;

/** The step's sub-steps written so far, in order. */
export function loadSubSteps(deps: StepRunnerDeps, call: AgentCall): Promise<StepRow[]> {
  return deps.executions.subSteps(call.run.organizationId, call.run.executionId, call.step.stepId);
}

/** Writes one sub-step, masked with the secrets its scope touched. */
export async function recordSubStep(
  deps: StepRunnerDeps,
  call: AgentCall,
  scope: StepScope,
  row: {
    stepId: string;
    stepType: string;
    status: 'completed' | 'failed';
    input: unknown;
    output: unknown;
    error: string | null;
    startedAt: Date;
    /** A model call's tokens and cost. */
    usage?: StepUsage;
  },
): Promise<void> {
  await deps.executions.recordStep(call.run.organizationId, call.run.executionId, {
    ...row,
    seq: call.seq,
    attempt: activityContext()?.info.attempt ?? 1,
    input: scope.mask(row.input),
    output: scope.mask(row.output),
    error: row.error === null ? null : scope.mask(row.error),
    finishedAt: new Date(),
    parentStepId: call.step.stepId,
    subSeq: call.subSeq,
  });
}
