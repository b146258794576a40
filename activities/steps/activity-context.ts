import { Context } from '@temporalio/activity';

/** The running activity's context, or undefined when a step runs outside Temporal (unit tests). */
export function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
