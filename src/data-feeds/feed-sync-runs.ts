import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { ConflictError } from '../errors/errors';
import { DATA_FEED_SYNC_WORKFLOW, feedSyncWorkflowId, type FeedSyncInput, type SyncTrigger, type SyncWindow } from '../../workflows/data-feed-sync.types';
import { feedSearchAttributes, type FeedSyncTarget } from './feed-schedules';

/** The sync run of a source that was already running: when it started, for the 409 message. */
export class SyncRunning extends ConflictError {
  constructor(
    readonly workflowId: string,
    readonly startedAt: Date | undefined,
  ) {
    super(
      `A sync of this data source is already running (workflow ${workflowId}${startedAt ? `, started ${startedAt.toISOString()}` : ''}); ` +
        'wait for it to finish (GET the data source: syncConfig.lastSyncStatus) and send the request again',
      'sync_running',
    );
  }
}

/**
 * Starts sync runs of feed-backed sources. Every run of a source has the
 * workflow id `feed-sync:<dataSourceId>`, so Temporal itself refuses a second
 * one while the first is open, whoever (API or schedule) starts it.
 */
export class FeedSyncRuns {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Queues a sync of `window`; SyncRunning (409) while another sync of the source runs. */
  async start(target: FeedSyncTarget, window: SyncWindow, trigger: SyncTrigger): Promise<string> {
    const workflowId = feedSyncWorkflowId(target.dataSourceId);
    const input: FeedSyncInput = { organizationId: target.organizationId, dataSourceId: target.dataSourceId, window, trigger };
    try {
      await this.client.workflow.start(DATA_FEED_SYNC_WORKFLOW, {
        workflowId,
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: feedSearchAttributes(target),
        staticSummary: `Sync of data feed ${target.feedKey} (data source ${target.dataSourceId}), ${window.startDate} to ${window.endDate}`,
      });
      return workflowId;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      const running = await this.client.workflow
        .getHandle(workflowId)
        .describe()
        .catch(() => undefined);
      throw new SyncRunning(workflowId, running?.startTime);
    }
  }

  /**
   * How the latest run of workflow `workflowId` (a source's sync runs all
   * have its one id) stands in Temporal: null while it runs, else the status
   * it closed with (TERMINATED, TIMED_OUT…), or NOT_FOUND when Temporal no
   * longer has it. One describe, within `timeoutMs`.
   */
  async closedStatus(workflowId: string, timeoutMs: number): Promise<string | null> {
    try {
      const described = await this.client.withDeadline(Date.now() + timeoutMs, () => this.client.workflow.getHandle(workflowId).describe());
      return described.status.name === 'RUNNING' ? null : described.status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw err;
    }
  }

  /** Like start, but a sync already running is fine (it covers the same ground). */
  async startUnlessRunning(target: FeedSyncTarget, window: SyncWindow, trigger: SyncTrigger): Promise<void> {
    try {
      await this.start(target, window, trigger);
    } catch (err) {
      if (!(err instanceof SyncRunning)) throw err;
    }
  }
}
