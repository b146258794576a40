import { ChildWorkflowFailure, executeChild, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { LoopInputDefinition } from '../src/workflows/definition.schemas';
import { LOOP_SUB_SEQ_SPAN, type LoopEndRequest, type RunInput, type StepDefinition, type StepRequest, type StepResult } from './run.types';
import { byReference, executeStep, StepFailed, stepPartActivity } from './step-execution';

/**
 * Where a loop leaves its run's own history: a loop whose items need at most
 * this many step runs (items × the body's steps, branches counted whole)
 * runs in the run itself; a larger one runs in child workflows
 * (`runLoopBatch`) of at most LOOP_BATCH_STEP_RUNS step runs each, one after
 * another. A step run costs its history one to three events (a local
 * activity's marker, a regular one's scheduled, started and completed), and
 * Temporal warns past 10,240 events and ends a run at 51,200: 2,000 step runs
 * keep a batch near 6,000 events at most, and the run's own history holds one
 * child per batch, so 10,000 items of any body stay far from either limit.
 */
export const LOOP_INLINE_STEP_RUNS = 500;
export const LOOP_BATCH_STEP_RUNS = 2_000;

/** An item step's output stays in history only when this small; larger ones travel as references to their record. */
const ITEM_INLINE_BYTES = 1024;

/** A batch of a large loop: its items' indexes, the loop's request (context by reference) and the run's nesting. */
export interface LoopBatchInput {
  request: StepRequest;
  from: number;
  to: number;
  run: Pick<RunInput, 'agentDepth' | 'errorRun'>;
}

export interface LoopBatchResult {
  /** With `onItemError: fail`: the item that failed first, which ended the batch. */
  failed?: { index: number; message: string };
}

/**
 * A `core.loop` step: `loopBegin` stores the items, the items run (here or
 * in batches), `loopEnd` records the output from what each item recorded.
 * Each item's steps are sub-steps of the loop, `<loop>[<index>].<stepId>`.
 */
export async function runLoopStep(request: StepRequest, answered: boolean, run: Pick<RunInput, 'agentDepth' | 'errorRun'>): Promise<StepResult> {
  const loopId = request.step.stepId;
  const begun = await stepPartActivity(request, answered, 'begin', (a) => a.loopBegin(answered ? byReference(request) : request));
  const items = byReference(request);
  const perItem = Math.max(1, stepCount((request.step.input as LoopInputDefinition).steps));
  let failed: LoopBatchResult['failed'];
  if (begun.count * perItem <= LOOP_INLINE_STEP_RUNS) {
    ({ failed } = await runItems({ request: items, from: 0, to: begun.count, run }, answered));
  } else {
    const size = Math.max(1, Math.floor(LOOP_BATCH_STEP_RUNS / perItem));
    for (let from = 0; from < begun.count && !failed; from += size) {
      const to = Math.min(begun.count, from + size);
      try {
        ({ failed } = await executeChild(runLoopBatch, {
          workflowId: `${workflowInfo().workflowId}.${loopId}.${from}`,
          args: [{ request: items, from, to, run }],
          // Cancelling the run cancels the batch in progress.
          parentClosePolicy: 'REQUEST_CANCEL',
          staticSummary: `${loopId} (core.loop): items ${from} to ${to - 1} of ${begun.count}, execution ${request.run.executionId}`,
        }));
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
        failed = { index: from, message: `a batch of items ${from} to ${to - 1} failed: ${(cause as Error).message}` };
      }
    }
  }
  const end: LoopEndRequest = { ...items, begunAt: begun.begunAt, count: begun.count, ...(failed ? { failed } : {}) };
  return stepPartActivity(request, true, 'end', (a) => a.loopEnd(end));
}

/** A child workflow running one batch of a large loop's items (see LOOP_INLINE_STEP_RUNS); its steps are local activities. */
export async function runLoopBatch(input: LoopBatchInput): Promise<LoopBatchResult> {
  return runItems(input, false);
}

/**
 * Runs items `from` to `to - 1`, at most `concurrency` at a time, in index
 * order of start. With `onItemError: fail` the first failure stops new items
 * from starting (those in progress finish) and is returned; with `continue`,
 * a failed item's record says so and the others go on.
 */
async function runItems({ request, from, to, run }: LoopBatchInput, answered: boolean): Promise<LoopBatchResult> {
  const input = request.step.input as LoopInputDefinition;
  const stopOnError = (input.onItemError ?? 'fail') === 'fail';
  const positions = bodyPositions(input.steps);
  let failed: LoopBatchResult['failed'];
  let next = from;
  const lane = async () => {
    while (next < to && !failed) {
      const index = next++;
      try {
        await runItem(request, index, positions, answered, run);
      } catch (err) {
        if (!(err instanceof StepFailed)) throw err;
        if (stopOnError) failed ??= { index, message: err.message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency ?? 1, to - from) }, lane));
  return failed ? { failed } : {};
}

/** One item: the body in order (a core.if runs its branch), reading `item`, `index`, what ran before the loop and its own earlier steps. */
async function runItem(loop: StepRequest, index: number, positions: Map<string, number>, answered: boolean, run: LoopBatchInput['run']): Promise<void> {
  const loopId = loop.step.stepId;
  const steps: Record<string, unknown> = { ...loop.context.steps, item: { $loopItem: { stepId: loopId, index } }, index };
  const walk = async (body: StepDefinition[]): Promise<void> => {
    for (const step of body) {
      const stepId = `${loopId}[${index}].${step.stepId}`;
      const request: StepRequest = {
        run: loop.run,
        step: { ...step, stepId },
        seq: loop.seq,
        context: { steps },
        offloadAboveBytes: ITEM_INLINE_BYTES,
        parent: { stepId: loopId, subSeq: index * LOOP_SUB_SEQ_SPAN + positions.get(step.stepId)! },
        ...(loop.typedValues ? { typedValues: true } : {}),
      };
      const { output } = await executeStep(request, answered, run);
      steps[step.stepId] = output;
      if (step.stepType === 'core.if') await walk(((output as { result: boolean }).result ? step.input.then : step.input.else) ?? []);
    }
  };
  await walk(loop.step.input.steps);
}

/** Each body step's position (1, 2, …, depth first through branches): its place among an item's records. */
function bodyPositions(steps: StepDefinition[], positions = new Map<string, number>()): Map<string, number> {
  for (const step of steps) {
    positions.set(step.stepId, positions.size + 1);
    if (step.stepType === 'core.if') {
      bodyPositions(step.input.then, positions);
      bodyPositions(step.input.else ?? [], positions);
    }
  }
  return positions;
}

/** Steps in a body, every branch counted: an item runs at most this many. */
export function stepCount(steps: StepDefinition[]): number {
  return bodyPositions(steps).size;
}
