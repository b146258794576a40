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

/** How often a start waiting for a run that has recorded its end (or not begun yet) is tried again. */
const RETRY_START_MS = 100;

/**
 * Starts sync runs of feed-backed sources. Every run of a source has the
 * workflow id `feed-sync:<dataSourceId>`, so Temporal itself refuses a second
 * one while the first is open, whoever (API or schedule) starts it.
 */
export class FeedSyncRuns {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** How long start() waits for an open run that the source does not show running (see start): FEED_SYNC_START_WAIT_SECONDS. */
    private readonly startWaitMs: number,
  ) {}

  /**
   * Queues a sync of `window`. 409 SyncRunning only while `showsRunning` (the
   * source's syncConfig.lastSyncStatus, the field GET shows) says a sync
   * runs: the answer and the field come from one record. Temporal still
   * admits one run of the source at a time; when it holds one that the source
   * does not show running, that run has recorded its end and is closing (its
   * workflow completes just after its last activity), or has been queued and
   * not begun: the start is tried again every RETRY_START_MS until Temporal
   * admits it (201) or the source shows the run (409), for `startWaitMs` at
   * most (then 409 too: no worker is taking the run's last step).
   */
  async start(target: FeedSyncTarget, window: SyncWindow, trigger: SyncTrigger, showsRunning: () => Promise<boolean>): Promise<string> {
    const workflowId = feedSyncWorkflowId(target.dataSourceId);
    const deadline = Date.now() + this.startWaitMs;
    for (;;) {
      if (await this.tryStart(target, window, trigger)) return workflowId;
      if ((await showsRunning()) || Date.now() >= deadline) throw await this.running(workflowId);
      await new Promise((resolve) => setTimeout(resolve, RETRY_START_MS));
    }
  }

  /** Starts a sync unless Temporal holds a run of the source already, which is fine: it covers the same ground. */
  async startUnlessRunning(target: FeedSyncTarget, window: SyncWindow, trigger: SyncTrigger): Promise<void> {
    await this.tryStart(target, window, trigger);
  }

  /** One start; false when Temporal holds an open run of the source. */
  private async tryStart(target: FeedSyncTarget, window: SyncWindow, trigger: SyncTrigger): Promise<boolean> {
    const input: FeedSyncInput = { organizationId: target.organizationId, dataSourceId: target.dataSourceId, window, trigger };
    try {
      await this.client.workflow.start(DATA_FEED_SYNC_WORKFLOW, {
        workflowId: feedSyncWorkflowId(target.dataSourceId),
        taskQueue: this.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: feedSearchAttributes(target),
        staticSummary: `Sync of data feed ${target.feedKey} (data source ${target.dataSourceId}), ${window.startDate} to ${window.endDate}`,
      });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  }

  /** The 409, naming when the open run started. */
  private async running(workflowId: string): Promise<SyncRunning> {
    const open = await this.client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
    return new SyncRunning(workflowId, open?.startTime);
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
}
