/**
 * A delivery's execution could not be claimed: its trigger has an
 * execution of that delivery id already (RunRequest.claimNewDelivery).
 * Nothing was written.
 */
export class DeliveryRecorded extends Error {
  constructor() {
    super('An execution of this delivery is recorded already');
  }
}

/**
 * A delivery's run was started already (by an earlier delivery of the same
 * id, or a concurrent one that got there first): Temporal refused the
 * second start of its workflow id. Nothing was started or marked.
 */
export class DuplicateStart extends Error {
  constructor(readonly executionId: string) {
    super(`Execution ${executionId} was started already`);
  }
}
