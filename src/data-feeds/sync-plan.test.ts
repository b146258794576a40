import type { FeedDefinition } from './feed-definition';
import { planSync, RECONCILE_EVERY_HOURS } from './sync-plan';

const now = new Date('2026-11-20T12:00:00.000Z');
const window = { startDate: '2026-11-19T11:00:00.000Z', endDate: now.toISOString() };
const listing: Pick<FeedDefinition, 'deletions'> = { deletions: { kind: 'listing', reconcileWindowDays: 30 } };
const keys: Pick<FeedDefinition, 'deletions'> = { deletions: { kind: 'keys', batchSize: 100, existing: () => Promise.resolve(new Set()) } };
const config = (lastReconciledAt: string | null) => ({ syncIntervalMinutes: 60, lastSyncAt: null, lastSyncStatus: null, lastReconciledAt });
let ids = 0;
const newId = () => `id-${++ids}`;
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString();

describe('planSync', () => {
  it('lists the window of a listing feed with a listing id, and reconciles the rest of 30 days when due', () => {
    const plan = planSync({ feed: listing, config: config(null), window, trigger: 'schedule', now, newId });
    expect(plan.reconciles).toBe(true);
    expect(plan.phases).toEqual([
      { kind: 'window', window, listingId: expect.any(String), cursor: null },
      { kind: 'window', window: { startDate: '2026-10-21T12:00:00.000Z', endDate: window.startDate }, listingId: expect.any(String), cursor: null },
    ]);
    const [a, b] = plan.phases as Array<{ listingId: string }>;
    expect(a.listingId).not.toBe(b.listingId);
  });

  it('does not reconcile again within RECONCILE_EVERY_HOURS, nor on a backfill', () => {
    const recent = planSync({ feed: listing, config: config(hoursAgo(RECONCILE_EVERY_HOURS - 1)), window, trigger: 'schedule', now, newId });
    expect(recent).toEqual({ phases: [expect.objectContaining({ kind: 'window', window })], reconciles: false });
    const due = planSync({ feed: listing, config: config(hoursAgo(RECONCILE_EVERY_HOURS)), window, trigger: 'manual', now, newId });
    expect(due.reconciles).toBe(true);
    expect(planSync({ feed: listing, config: config(null), window, trigger: 'backfill', now, newId }).reconciles).toBe(false);
  });

  it('needs no second listing when the window already covers the reconciliation window', () => {
    const wide = { startDate: '2026-10-01T00:00:00.000Z', endDate: now.toISOString() };
    expect(planSync({ feed: listing, config: null, window: wide, trigger: 'manual', now, newId })).toEqual({
      phases: [{ kind: 'window', window: wide, listingId: expect.any(String), cursor: null }],
      reconciles: true,
    });
  });

  it('lists the window of a keys feed without a listing id, and checks every stored key when due', () => {
    expect(planSync({ feed: keys, config: config(null), window, trigger: 'schedule', now, newId })).toEqual({
      phases: [
        { kind: 'window', window, listingId: null, cursor: null },
        { kind: 'keys', after: null },
      ],
      reconciles: true,
    });
    expect(planSync({ feed: keys, config: config(hoursAgo(1)), window, trigger: 'schedule', now, newId }).phases).toHaveLength(1);
  });
});
