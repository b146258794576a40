import { runItems, type LoopBatchInput, type LoopBatchResult } from './loops';
import { runStep } from './step-handlers';

/**
 * A child workflow running one batch of a large loop's items (loops.ts): a
 * history of its own. Its steps are local activities where they can be.
 */
export async function runLoopBatch(input: LoopBatchInput): Promise<LoopBatchResult> {
  return runItems(input, false, runStep);
}
