/**
 * A step failure the activity means to report: a message for people (never
 * a secret value), a stable type, and whether retrying could help.
 */
export class StepError extends Error {
  constructor(
    message: string,
    readonly type = 'StepError',
    readonly retryable = false,
  ) {
    super(message);
  }
}
