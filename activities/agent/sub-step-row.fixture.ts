import type { StepRow } from '../../src/executions/executions.repository';
import { MODEL_STEP_TYPE } from './sub-steps';

/** A sub-step record of the agent step `agent`, for unit tests: a completed model turn unless `fields` say otherwise. */
export function subStepRow(stepId: string, subSeq: number, fields: Partial<StepRow>): StepRow {
  const at = new Date(0);
  return {
    stepId,
    stepType: MODEL_STEP_TYPE,
    seq: 1,
    status: 'completed',
    attempt: 1,
    input: null,
    output: null,
    error: null,
    startedAt: at,
    finishedAt: at,
    parentStepId: 'agent',
    subSeq,
    ...fields,
  };
}
