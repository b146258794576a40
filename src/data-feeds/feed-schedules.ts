import { type Client, ScheduleNotFoundError, ScheduleAlreadyRunning } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS } from '../temporal/search-attributes';
import { DATA_FEED_SCHEDULED_SYNC_WORKFLOW, feedScheduledRunId, feedScheduleId, type ScheduledFeedSyncInput } from '../../workflows/data-feed-sync.types';

const { OrganizationId: ORGANIZATION_ID, DataSourceId: DATA_SOURCE_ID, FeedKey: FEED_KEY } = SEARCH_ATTRIBUTE_KEYS;

/** What identifies a feed's source to operators: the schedule and every run carry it as search attributes. */
export interface FeedSyncTarget {
  organizationId: string;
  dataSourceId: string;
  feedKey: string;
}

/** The search attributes of a feed's schedule and of its sync runs (OrganizationId, DataSourceId, FeedKey). */
export function feedSearchAttributes(target: FeedSyncTarget): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: ORGANIZATION_ID, value: target.organizationId },
    { key: DATA_SOURCE_ID, value: target.dataSourceId },
    { key: FEED_KEY, value: target.feedKey },
  ]);
}

/**
 * The Temporal Schedule of each feed-backed source (`feed-sync:<dataSourceId>`):
 * every `syncIntervalMinutes` it starts the scheduled sync workflow, skipping
 * a beat while the previous one still runs. Toggling a feed off pauses it;
 * deleting the source deletes it.
 */
export class FeedSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Creates the schedule, or updates its interval; either way it ends up running (not paused). */
  async activate(target: FeedSyncTarget, intervalMinutes: number): Promise<void> {
    const handle = this.client.schedule.getHandle(feedScheduleId(target.dataSourceId));
    const spec = { intervals: [{ every: `${intervalMinutes}m` }] };
    try {
      await this.client.schedule.create({
        scheduleId: handle.scheduleId,
        spec,
        action: this.action(target),
        policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
        typedSearchAttributes: feedSearchAttributes(target),
        memo: { feedKey: target.feedKey },
      });
      return;
    } catch (err) {
      // Toggled on before (or by a concurrent toggle): update it in place.
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    // The update carries the state it read: paused, when toggled off before. It unpauses itself, so the
    // schedule runs whichever of the two signals (update, unpause) Temporal's scheduler applies last.
    await handle.update((previous) => ({ ...previous, spec, action: this.action(target), state: { ...previous.state, paused: false } }));
    await handle.unpause(`Data feed ${target.feedKey} toggled on`);
  }

  /** Pauses the schedule; nothing to do when there is none. */
  async pause(dataSourceId: string, note: string): Promise<void> {
    await ignoreMissing(() => this.client.schedule.getHandle(feedScheduleId(dataSourceId)).pause(note));
  }

  async delete(dataSourceId: string): Promise<void> {
    await ignoreMissing(() => this.client.schedule.getHandle(feedScheduleId(dataSourceId)).delete());
  }

  private action(target: FeedSyncTarget) {
    const input: ScheduledFeedSyncInput = { organizationId: target.organizationId, dataSourceId: target.dataSourceId };
    return {
      type: 'startWorkflow' as const,
      workflowType: DATA_FEED_SCHEDULED_SYNC_WORKFLOW,
      workflowId: feedScheduledRunId(target.dataSourceId),
      taskQueue: this.taskQueue,
      args: [input],
      typedSearchAttributes: feedSearchAttributes(target),
      staticSummary: `Scheduled sync of data feed ${target.feedKey} (data source ${target.dataSourceId})`,
    };
  }
}

async function ignoreMissing<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return undefined;
    throw err;
  }
}
