import { MODEL_STEP_TYPE, TOOL_STEP_TYPE } from '../../workflows/agent.types';
import { LOOP_SUB_SEQ_SPAN } from '../../workflows/run.types';
import type { RunUsage } from '../llm-usage/usage';
import type { StepPart } from './executions.constants';
import type { ExecutionRow, ListedExecution, ReadStep } from './executions.repository';
import type { WaitRow } from './execution-waits.repository';
import type { ReplayMark } from './replays.repository';
import type { TemporalLink } from './executions.service';

const head = (e: Omit<ExecutionRow, 'input'>) => ({
  id: e.id,
  workflowId: e.workflowId,
  workflowName: e.workflowName,
  workflowVersion: e.workflowVersion,
  trigger: e.triggerId ? { id: e.triggerId, name: e.triggerName } : null,
  environmentId: e.environmentId,
  mode: e.mode,
  status: e.status,
});

const tail = (e: Omit<ExecutionRow, 'input'>) => ({
  error: e.error,
  rerunOf: e.rerunOf,
  parentExecutionId: e.parentExecutionId ?? null,
  parentStepId: e.parentStepId ?? null,
  replayOf: e.replayOf ?? null,
  replayFromStepId: e.replayFromStepId ?? null,
  deliveryId: e.deliveryId ?? null,
  draft: e.draft ?? false,
  startedAt: e.startedAt.toISOString(),
  finishedAt: e.finishedAt?.toISOString() ?? null,
  durationMs: e.finishedAt ? e.finishedAt.getTime() - e.startedAt.getTime() : null,
});

/** A step value left out for its size, as the API shows it: where to read it in full. */
const reference = (executionId: string, stepId: string, part: StepPart, bytes: number) => ({
  bytes,
  href: `/executions/${encodeURIComponent(executionId)}/steps/${encodeURIComponent(stepId)}/${part}`,
});

/** The values of a step record, each null when too large to inline, with where those are read in full beside them. */
function stepValues(executionId: string, s: ReadStep) {
  const omitted = {
    ...(s.inputOmittedBytes === null ? {} : { input: reference(executionId, s.stepId, 'input', s.inputOmittedBytes) }),
    ...(s.outputOmittedBytes === null ? {} : { output: reference(executionId, s.stepId, 'output', s.outputOmittedBytes) }),
  };
  return {
    input: s.inputOmittedBytes === null ? s.input : null,
    output: s.outputOmittedBytes === null ? s.output : null,
    ...(omitted.input || omitted.output ? { omitted } : {}),
  };
}

/**
 * An execution as the API shows it, with where its run is in Temporal; step
 * input and output were masked when the step recorded them, and those over
 * the inline limit are references.
 */
export function presentExecution(
  e: ExecutionRow,
  temporal: TemporalLink,
  steps?: ReadStep[],
  { waits, subStepsOmitted, replay, usage }: { waits?: WaitRow[]; subStepsOmitted?: number; replay?: Map<string, ReplayMark>; usage?: RunUsage | null } = {},
) {
  return {
    ...head(e),
    input: e.input,
    ...tail(e),
    errorExecutionId: e.errorExecutionId ?? null,
    temporal,
    ...(waits
      ? {
          waiting: waits.map((w) => ({
            stepId: w.stepId,
            event: w.eventName,
            schema: w.eventSchema,
            until: w.wakesAt!.toISOString(),
            startedAt: w.startedAt.toISOString(),
          })),
        }
      : {}),
    ...(subStepsOmitted ? { subStepsOmitted } : {}),
    ...(usage ? { usage } : {}),
    ...(steps
      ? {
          steps: steps.map((s) => ({
            stepId: s.stepId,
            stepType: s.stepType,
            parentStepId: s.parentStepId ?? null,
            itemIndex: loopItemIndex(s),
            status: s.status,
            attempt: s.attempt,
            ...stepValues(e.id, s),
            error: s.error,
            startedAt: s.startedAt.toISOString(),
            finishedAt: s.finishedAt.toISOString(),
            durationMs: s.finishedAt.getTime() - s.startedAt.getTime(),
            ...(s.usage ? { usage: s.usage } : {}),
            ...(replay ? { replay: replay.get(s.stepId) ?? { reused: false, changed: null } } : {}),
          })),
        }
      : {}),
  };
}

/**
 * The item a loop body's record belongs to (its place among the loop's
 * records, LOOP_SUB_SEQ_SPAN per item); null for a top-level step and for an
 * agent's model and tool calls, the only other sub-steps.
 */
const loopItemIndex = (s: ReadStep): number | null =>
  s.parentStepId && s.stepType !== MODEL_STEP_TYPE && s.stepType !== TOOL_STEP_TYPE ? Math.floor((s.subSeq ?? 0) / LOOP_SUB_SEQ_SPAN) : null;

/** A list entry: the input's summary in place of the input. */
export function presentListedExecution(e: ListedExecution) {
  return { ...head(e), inputSummary: e.inputSummary, ...tail(e) };
}
