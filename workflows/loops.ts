import { ChildWorkflowFailure, executeChild, isCancellation } from '@temporalio/workflow';
import type { LoopInputDefinition } from '../src/workflows/definition.schemas';
import { HistoryBudget, LOCAL_CALL_EVENTS, REGULAR_CALL_EVENTS } from './history-budget';
import { LOOP_SUB_SEQ_SPAN, type LoopEndRequest, type LoopFailure, type RunInput, type StepDefinition, type StepRequest } from './run.types';
import { carryRef, contextOf, type StepContext } from './step-context';
import { byReference, StepFailed, stepPartActivity } from './step-execution';
import type { StepOutcome, StepScope } from './step-scope';

/**
 * Where a loop leaves its run's own history: a run keeps loop items in its
 * own history while they fit its history budget (history-budget.ts), which
 * its loops and agents share; a loop past what is left runs in child
 * workflows (`runLoopBatch`, loop-batch.ts) of at most LOOP_BATCH_EVENTS
 * each, one after another, and the run's history holds one child per batch.
 * So a definition of any number of loops of up to 10,000 items stays far
 * from both of Temporal's limits in every history (`npm run bench:engine`
 * prints the events of each).
 */
export const LOOP_BATCH_EVENTS = 6_000;

/** The workflow type of a loop's batches (loop-batch.ts); named, not imported: the batch runs its items through the step handlers, which run loops. */
const LOOP_BATCH_WORKFLOW = 'runLoopBatch';

/** Runs one step of an item (the step handlers' table, given by whoever runs the items). */
export type RunBodyStep = (request: StepRequest, scope: StepScope) => Promise<StepOutcome>;

/** An item step's output stays in history only when this small; larger ones travel as references to their record. */
const ITEM_INLINE_BYTES = 1024;

/** What a loop's items need of the run: how deep it is nested, and whether it is an error run (what their steps may start). */
export type LoopNesting = Pick<RunInput, 'agentDepth' | 'errorRun'>;

/** A batch of a large loop: its items' indexes, the loop's request (context by reference) and the run's nesting. */
export interface LoopBatchInput {
  request: StepRequest;
  from: number;
  to: number;
  run: LoopNesting;
}

export interface LoopBatchResult {
  /** With `onItemError: fail`: the item that failed first, which ended the batch. */
  failed?: Extract<LoopFailure, { kind: 'item' }>;
}

/**
 * A `core.loop` step: `loopBegin` stores the items, the items run (here,
 * when they fit the run's history budget, or in batches), `loopEnd` records
 * the output from what each item recorded. Each item's steps are sub-steps
 * of the loop, `<loop>[<index>].<stepId>`.
 */
export async function runLoopStep(request: StepRequest, { answered, nesting: run, history }: StepScope, runStep: RunBodyStep): Promise<StepOutcome> {
  const loopId = request.step.stepId;
  const begun = await stepPartActivity(request, answered, 'begin', (a) => a.loopBegin(answered ? byReference(request) : request));
  const items = byReference(request);
  // Only what the items need: the run's input and definition stay out of the batches' start events.
  const nesting: LoopNesting = { ...(run.agentDepth ? { agentDepth: run.agentDepth } : {}), ...(run.errorRun ? { errorRun: true } : {}) };
  const body = (request.step.input as LoopInputDefinition).steps;
  let failed: LoopFailure | undefined;
  if (history.take(begun.count * itemEvents(body, answered))) {
    ({ failed } = await runItems({ request: items, from: 0, to: begun.count, run: nesting }, answered, runStep));
  } else {
    const size = Math.max(1, Math.floor(LOOP_BATCH_EVENTS / itemEvents(body, false)));
    for (let from = 0; from < begun.count && !failed; from += size) {
      const to = Math.min(begun.count, from + size);
      try {
        ({ failed } = await executeChild<(input: LoopBatchInput) => Promise<LoopBatchResult>>(LOOP_BATCH_WORKFLOW, {
          workflowId: `${begun.batchName}.${from}`,
          args: [{ request: items, from, to, run: nesting }],
          // Cancelling the run cancels the batch in progress.
          parentClosePolicy: 'REQUEST_CANCEL',
          staticSummary: `${loopId} (core.loop): items ${from} to ${to - 1} of ${begun.count}, execution ${request.run.executionId}`,
        }));
      } catch (err) {
        if (isCancellation(err)) throw err;
        const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
        failed = { kind: 'batch', from, to, message: (cause as Error).message };
      }
    }
  }
  const end: LoopEndRequest = { ...items, begunAt: begun.begunAt, count: begun.count, ...(failed ? { failed } : {}) };
  return { result: await stepPartActivity(request, true, 'end', (a) => a.loopEnd(end)) };
}

/**
 * Runs items `from` to `to - 1`, at most `concurrency` at a time, in index
 * order of start. With `onItemError: fail` the first failure stops new items
 * from starting (those in progress finish) and is returned; with `continue`,
 * a failed item's record says so and the others go on.
 */
export async function runItems({ request, from, to, run }: LoopBatchInput, answered: boolean, runStep: RunBodyStep): Promise<LoopBatchResult> {
  const input = request.step.input as LoopInputDefinition;
  const stopOnError = (input.onItemError ?? 'fail') === 'fail';
  const positions = bodyPositions(input.steps);
  // Items draw nothing more from a history budget: the loop counted their events as a whole (itemEvents), or a batch holds them.
  const scope: StepScope = { answered, nesting: run, history: new HistoryBudget(0) };
  let failed: LoopBatchResult['failed'];
  let next = from;
  const lane = async () => {
    while (next < to && !failed) {
      const index = next++;
      try {
        await runItem(request, index, positions, scope, runStep);
      } catch (err) {
        if (!(err instanceof StepFailed)) throw err;
        if (stopOnError) failed ??= { kind: 'item', index, message: err.message };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.concurrency ?? 1, to - from) }, lane));
  return failed ? { failed } : {};
}

/**
 * One item: the body in order (a core.if runs its branch), reading `item`,
 * `index`, what ran before the loop and its own earlier steps. Everything
 * the item's steps read is a reference (to the stored item, or to a record),
 * so a request is the same whether a local or a regular activity runs it.
 */
async function runItem(loop: StepRequest, index: number, positions: Map<string, number>, scope: StepScope, runStep: RunBodyStep): Promise<void> {
  const loopId = loop.step.stepId;
  // contextOf: a batch started before refs existed carries its loop's request as it was then.
  const outer = contextOf(loop);
  const context: StepContext = {
    steps: { ...outer.steps },
    refs: { ...outer.refs, item: { loopItem: { stepId: loopId, index } }, index: { loopItem: { stepId: loopId, index, indexOnly: true } } },
  };
  const walk = async (body: StepDefinition[]): Promise<void> => {
    for (const step of body) {
      const stepId = `${loopId}[${index}].${step.stepId}`;
      const request: StepRequest = {
        run: loop.run,
        step: { ...step, stepId },
        seq: loop.seq,
        context,
        offloadAboveBytes: ITEM_INLINE_BYTES,
        parent: { stepId: loopId, subSeq: index * LOOP_SUB_SEQ_SPAN + positions.get(step.stepId)! },
        ...(loop.typedValues ? { typedValues: true } : {}),
      };
      const { then } = await runStep(request, scope);
      // Later steps of the item read it from its record, under the body's id.
      carryRef(context, step.stepId, { record: stepId });
      if (then) await walk(then);
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

/** The history events one item may cost (every branch counted): a model call is always a regular activity. */
function itemEvents(body: StepDefinition[], answered: boolean): number {
  let events = 0;
  const count = (steps: StepDefinition[]) => {
    for (const step of steps) {
      events += answered || step.stepType === 'ai.llm-call' ? REGULAR_CALL_EVENTS : LOCAL_CALL_EVENTS;
      if (step.stepType === 'core.if') {
        count(step.input.then);
        count(step.input.else ?? []);
      }
    }
  };
  count(body);
  return Math.max(1, events);
}
