import { WorkflowExecutionAlreadyStartedError, type WorkflowStartOptions } from '@temporalio/client';
import { newId } from '../ids';
import type { Logger } from '../logging/logger';
import { DeliveryRecorded, DuplicateStart } from './duplicate-starts';
import { NOT_STARTED_MESSAGE, type ExecutionsRepository } from './executions.repository';
import type { RunClient } from './run-client';
import { executionRecord, startOptions, type RunRequest } from './run-request';

/** What launching reads and writes of executions. */
export type LaunchRecords = Pick<ExecutionsRepository, 'insert' | 'finish'>;

/**
 * What every way of starting a run shares: the execution is recorded first
 * (a step records into it), a delivery is claimed or told apart from its
 * duplicates, and a run Temporal never accepted is marked failed.
 */
export class RunLauncher {
  constructor(
    readonly client: RunClient,
    private readonly executions: LaunchRecords,
    private readonly taskQueue: string,
    private readonly logger: Logger,
  ) {}

  /** Records the execution (and runs `beforeStart`); returns its id and how to start its run. */
  async prepare(request: RunRequest): Promise<{ id: string; options: WorkflowStartOptions }> {
    const id = request.executionId ?? newId();
    const claimed = await this.executions.insert(executionRecord(request, id), { unlessDeliverySeen: request.claimNewDelivery });
    if (request.claimNewDelivery && !claimed) throw new DeliveryRecorded();
    // A derived id is retried by its caller, which must find the execution still open; a new one would sit "running".
    await request.beforeStart?.(id).catch(async (err: unknown) => {
      throw request.executionId ? err : await this.notStarted(request, id, err);
    });
    return { id, options: startOptions(request, id, this.taskQueue) };
  }

  /** Runs `start`; a refused delivery is DuplicateStart, any other failure marks the execution failed and is rethrown. */
  async guard<T>(request: RunRequest, id: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (err) {
      // A delivery's execution is shared by its duplicates: once Temporal has a run of this id (refused as a duplicate, or
      // started by another caller or by this very call before its answer was lost), the execution is that run's, not this caller's to mark.
      if (request.deliveryId && (err instanceof WorkflowExecutionAlreadyStartedError || (await this.exists(id)))) throw new DuplicateStart(id);
      throw await this.notStarted(request, id, err);
    }
  }

  /** Whether Temporal has a run of this id, running or closed. */
  exists(workflowId: string): Promise<boolean> {
    return this.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      );
  }

  /** A run Temporal never accepted is marked failed, so it does not sit "running" forever; returns the error to throw. */
  async notStarted(request: RunRequest, id: string, err: unknown): Promise<unknown> {
    this.logger.error({ executionId: id, err: { type: (err as Error).name, message: (err as Error).message } }, 'run did not start');
    await this.executions.finish(request.organizationId, id, 'failed', { message: NOT_STARTED_MESSAGE }).catch(() => undefined);
    return err;
  }
}
