// The bare-Temporal baseline of `npm run bench:engine`: a fan-out of the same shape as a core.loop,
// with a cheap activity standing in for the body and nothing of the service around it.
import { executeChild, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';

export interface FanOutInput {
  items: number;
  concurrency: number;
  /** Items per child workflow, as the loop's batches (LOOP_BATCH_STEP_RUNS for a one-step body). */
  batch: number;
}

const { double } = proxyLocalActivities<{ double(n: number): Promise<number> }>({ startToCloseTimeout: '30 seconds' });

export async function fanOut(input: FanOutInput): Promise<number> {
  let total = 0;
  for (let from = 0; from < input.items; from += input.batch) {
    const to = Math.min(input.items, from + input.batch);
    total += await executeChild(fanOutBatch, { workflowId: `${workflowInfo().workflowId}.${from}`, args: [{ from, to, concurrency: input.concurrency }] });
  }
  return total;
}

export async function fanOutBatch({ from, to, concurrency }: { from: number; to: number; concurrency: number }): Promise<number> {
  let next = from;
  let sum = 0;
  const lane = async () => {
    while (next < to) sum += await double(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, to - from) }, lane));
  return sum;
}
