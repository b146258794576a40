// The bare-Temporal baselines of `npm run bench:webhook`: workflows that do nothing.
import { condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const doneUpdate = defineUpdate<string>('done');

export async function emptyWorkflow(): Promise<string> {
  return 'done';
}

/** Answers its update at once, as a return-only workflow would: the floor of update-with-start. */
export async function answeringWorkflow(): Promise<string> {
  let answered = false;
  setHandler(doneUpdate, () => {
    answered = true;
    return 'done';
  });
  await condition(() => answered);
  return 'done';
}
