import type { FeedSync } from './feed-syncs.types';

/** A sync run as the API shows it: no organization, source or workflow ids (the path names the source). */
export function presentFeedSync(s: FeedSync) {
  return {
    id: s.id,
    trigger: s.trigger,
    status: s.status,
    window: { startDate: s.window.startDate.toISOString(), endDate: s.window.endDate.toISOString() },
    records: { created: s.counts.created, updated: s.counts.updated, unchanged: s.counts.unchanged, deleted: s.counts.deleted },
    vendorRequests: s.counts.vendorRequests,
    pages: s.counts.pages,
    reconciled: s.reconciled,
    startedAt: s.startedAt.toISOString(),
    finishedAt: s.finishedAt?.toISOString() ?? null,
    // Wall time of the whole run, continuations as new included; null while it runs.
    durationMs: s.finishedAt ? s.finishedAt.getTime() - s.startedAt.getTime() : null,
    error: s.error,
  };
}
