import type { LoopItemsRepository } from '../../src/executions/loop-items.repository';
import { MAX_LOOP_ITEMS, type LoopInputDefinition } from '../../src/workflows/definition.schemas';
import type { LoopBegun, LoopEndRequest, StepRequest, StepResult } from '../../workflows/run.types';
import { StepError } from './step-errors';
import { beginStep, runStep, type StepRunnerDeps } from './step-runner';

/** The per-item results a loop's output may hold together; past it the loop fails rather than building a giant record. */
export const MAX_LOOP_RESULTS_BYTES = 16 * 1024 * 1024;

/**
 * `core.loop`'s two activities around its items (which the workflow runs,
 * workflows/loops.ts): `loopBegin` renders `items` and stores them, one row
 * each; `loopEnd` records the loop's output from what each item recorded.
 */
export function createLoopSteps(deps: StepRunnerDeps, loopItems: Pick<LoopItemsRepository, 'store' | 'ends' | 'endsSize' | 'clear'>) {
  return {
    loopBegin(request: StepRequest): Promise<LoopBegun> {
      const input = request.step.input as LoopInputDefinition;
      const { organizationId, executionId } = request.run;
      return beginStep(deps, request, { items: input.items }, async (scope, begunAt) => {
        const items = typeof input.items === 'string' ? await scope.render(input.items) : await scope.renderDeep(input.items);
        if (!Array.isArray(items)) {
          throw new StepError(
            `items must be an array, or a template yielding one; it rendered to ${items === null ? 'null' : typeof items}`,
            'InvalidLoopItems',
          );
        }
        if (items.length > MAX_LOOP_ITEMS) {
          throw new StepError(`A loop runs at most ${MAX_LOOP_ITEMS} items; items has ${items.length}`, 'TooManyLoopItems');
        }
        // Stored items are data, read by every item step and recorded in clear: a secret must not be one (as a data store record).
        if (scope.secrets.touches(items)) {
          throw new StepError(
            'The items would hold a secret value (from $env or a connection); loop over the data and read the secret from $env inside the body',
            'SecretInLoopItems',
          );
        }
        await loopItems.store(organizationId, executionId, request.step.stepId, items);
        return { count: items.length, begunAt, batchName: `${executionId}.${request.step.stepId}` };
      });
    },

    /**
     * Output `{ results, errors, count }`: `results[i]` is what item i's
     * last step output (null when it failed), `errors` each failed item's
     * `{ index, stepId, message }`. With a failure that ended the loop, the
     * step fails naming the item.
     */
    loopEnd(request: LoopEndRequest): Promise<StepResult> {
      const input = request.step.input as LoopInputDefinition;
      const { organizationId, executionId } = request.run;
      const loopId = request.step.stepId;
      return runStep(
        deps,
        request,
        async (_scope, trace) => {
          trace.input = { items: request.count, concurrency: input.concurrency ?? 1, onItemError: input.onItemError ?? 'fail' };
          // Whatever the outcome, the items are done with: the records hold what the run keeps.
          await loopItems.clear(organizationId, executionId, loopId);
          const { failed } = request;
          if (failed?.kind === 'item') throw new StepError(`Item ${failed.index} failed: ${failed.message}`, 'LoopItemFailed');
          if (failed) throw new StepError(`The batch of items ${failed.from} to ${failed.to - 1} failed: ${failed.message}`, 'LoopBatchFailed');
          if ((await loopItems.endsSize(organizationId, executionId, loopId)) > MAX_LOOP_RESULTS_BYTES) {
            throw new StepError(
              `The items' results hold more than ${MAX_LOOP_RESULTS_BYTES / 1024 / 1024} MB together; end the body with a core.set of the fields you need`,
              'LoopResultsTooLarge',
            );
          }
          const results: unknown[] = new Array(request.count).fill(null);
          const errors: Array<{ index: number; stepId: string; message: string | null }> = [];
          for (const end of await loopItems.ends(organizationId, executionId, loopId)) {
            if (end.status === 'completed') results[end.index] = end.output;
            else errors.push({ index: end.index, stepId: bodyStepId(end.stepId), message: end.error });
          }
          return { results, errors, count: request.count };
        },
        new Date(request.begunAt),
      );
    },
  };
}

/** `each[3].fetch` → `fetch`: the body's own step id, as the definition names it. */
const bodyStepId = (recordId: string) => recordId.slice(recordId.indexOf('].') + 2);
