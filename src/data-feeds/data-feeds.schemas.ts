import { z } from '../openapi/zod';

/** Bounds of a source's look-back: none to 30 days. */
export const MAX_LOOKBACK_MINUTES = 43_200;

/** Bounds of a feed's sync interval: one minute to one week. */
export const MIN_SYNC_INTERVAL_MINUTES = 1;
export const MAX_SYNC_INTERVAL_MINUTES = 10_080;

export const ToggleFeedBody = z
  .strictObject({
    feedKey: z.string().min(1).max(100).openapi({ example: 'github:issues' }),
    connectionId: z.string().min(1).max(100),
    connectionName: z.string().min(1).max(255),
    enabled: z.boolean(),
    // Range-checked by the service, which answers invalid_sync_interval (a distinct code) for it.
    syncIntervalMinutes: z
      .number()
      .optional()
      .openapi({ description: `Whole minutes, ${MIN_SYNC_INTERVAL_MINUTES} to ${MAX_SYNC_INTERVAL_MINUTES}; default FEED_SYNC_INTERVAL_MINUTES` }),
    lookbackMinutes: z.int().min(0).max(MAX_LOOKBACK_MINUTES).optional().openapi({
      description:
        "How far before the end of the last successful sync each sync without dates starts again, so values the vendor fills in late are read (whole minutes, 0 to 43200); default: the feed's own (README, Data feeds)",
    }),
  })
  .openapi('ToggleDataFeed');

export const AttachConnectionBody = z
  .strictObject({
    connectionId: z.uuid().openapi({ description: "A connection of the organization of the feed's connection type" }),
    connectionName: z.string().min(1).max(255).openapi({ description: "The connection's current name" }),
  })
  .openapi('AttachFeedConnection');
export type AttachConnectionBody = z.output<typeof AttachConnectionBody>;
export type ToggleFeedBody = z.output<typeof ToggleFeedBody>;

export const ToggleFeedResult = z
  .object({ enabled: z.boolean(), dataSourceId: z.string().nullable().openapi({ description: 'null when a feed never toggled on is toggled off' }) })
  .openapi('DataFeedToggled');

const IsoDate = z.iso.datetime({ offset: true }).openapi({ example: '2026-11-01T00:00:00Z' });

export const SyncBody = z
  .strictObject({
    startDate: IsoDate.optional(),
    endDate: IsoDate.optional().openapi({ description: 'Exclusive; default now, and an endDate after now is capped at now' }),
  })
  .openapi('SyncDataSource', { description: 'An empty object syncs from the end of the last successful sync to now' });
export type SyncBody = z.output<typeof SyncBody>;

export const SyncQueued = z.object({ message: z.string(), workflowId: z.string() }).openapi('SyncQueued');

const Count = z.number().int();

export const FeedSyncSchema = z
  .object({
    id: z.uuid(),
    trigger: z
      .enum(['schedule', 'manual', 'backfill'])
      .openapi({ description: "schedule: a beat of the source's schedule; manual: POST .../sync; backfill: POST .../sync of older dates" }),
    status: z.enum(['running', 'success', 'failed']),
    window: z.object({ startDate: z.string(), endDate: z.string().openapi({ description: 'Exclusive' }) }),
    records: z
      .object({ created: Count, updated: Count, unchanged: Count, deleted: Count })
      .openapi({ description: 'Written when the run ends: all 0 while it runs' }),
    vendorRequests: Count,
    pages: Count,
    reconciled: z.boolean().openapi({ description: 'Whether the run also deleted the records the vendor no longer has' }),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().int().nullable().openapi({ description: 'null while the run is running' }),
    error: z.string().nullable().openapi({ description: 'Why a failed run failed; never a secret' }),
  })
  .openapi('FeedSync');

export const FeedSyncList = z.object({ total: Count, data: z.array(FeedSyncSchema) }).openapi('FeedSyncList');

export const FeedCatalog = z
  .array(
    z.object({
      key: z.string().openapi({ example: 'github:issues', description: 'The feedKey of a toggle, and the type of the data source it makes' }),
      title: z.string(),
      connectionType: z.string().openapi({ description: 'The connection type the feed reads through (GET /connections/types/list)' }),
      fields: z.array(z.object({ name: z.string(), label: z.string(), type: z.string() })).openapi({ description: "The fields of the feed's records" }),
    }),
  )
  .openapi('DataFeedCatalog');
