import type { Logger } from '../logging/logger';
import { FeedSyncReconciler, stoppedRunError } from './feed-sync-reconciler';
import type { OpenRun } from './feed-syncs.repository';

/**
 * Open runs in (startedAt, id) order, served by keyset as the repository
 * serves them; `closed`: their workflows' statuses; `onDescribe` runs as each
 * is described.
 */
function fakes(runs: OpenRun[], closed: Record<string, string | null>, onDescribe = () => {}) {
  const ended: string[] = [];
  const described: string[] = [];
  const syncs = {
    openRuns: jest.fn(async (_before: Date, after: { startedAt: Date; id: string } | null, limit: number) =>
      runs
        .filter((r) => !ended.includes(r.id) && (!after || r.startedAt > after.startedAt || (+r.startedAt === +after.startedAt && r.id > after.id)))
        .slice(0, limit),
    ),
    endStopped: jest.fn(async (_org: string, id: string) => {
      ended.push(id);
      return true;
    }),
  };
  const temporal = {
    closedStatus: jest.fn(async (workflowId: string) => {
      described.push(workflowId);
      onDescribe();
      return closed[workflowId] ?? null;
    }),
  };
  const logger = { info: jest.fn(), warn: jest.fn() } as unknown as Logger;
  const reconciler = new FeedSyncReconciler(syncs, temporal, logger, { intervalSeconds: 60, afterSeconds: 60 });
  return { reconciler, syncs, ended, described };
}

const run = (n: number, superseded = false): OpenRun => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  organizationId: 'org',
  workflowId: `feed-sync:source-${n}`,
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  superseded,
});

describe('FeedSyncReconciler', () => {
  it('ends superseded runs without asking Temporal, and the others when Temporal says their workflow closed', async () => {
    const runs = [run(1, true), run(2), run(3)];
    const { reconciler, ended, described } = fakes(runs, { 'feed-sync:source-2': 'TERMINATED' });
    expect(await reconciler.reconcileNow()).toBe(2);
    expect(ended).toEqual([runs[0].id, runs[1].id]);
    expect(described).toEqual(['feed-sync:source-2', 'feed-sync:source-3']);
  });

  it('reads the runs 100 at a time to the end, then starts the next pass from the oldest again', async () => {
    const runs = Array.from({ length: 250 }, (_, i) => run(i + 1));
    const { reconciler, syncs, described } = fakes(runs, {});
    expect(await reconciler.reconcileNow()).toBe(0);
    expect(described).toHaveLength(250);
    expect(syncs.openRuns.mock.calls.map((c) => c[2])).toEqual([100, 100, 100]);
    await reconciler.reconcileNow();
    expect(syncs.openRuns.mock.calls[3][1]).toBeNull();
  });

  it('stops a pass at its time limit; the next pass goes on after the last run it checked', async () => {
    const runs = Array.from({ length: 5 }, (_, i) => run(i + 1));
    let now = 0;
    // Each describe takes 8 s: the fourth run is past the pass's 20 s.
    const { reconciler, described } = fakes(runs, {}, () => (now += 8_000));
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      await reconciler.reconcileNow();
      expect(described).toEqual(['feed-sync:source-1', 'feed-sync:source-2', 'feed-sync:source-3']);
      now += 60_000;
      await reconciler.reconcileNow();
      expect(described.slice(3)).toEqual(['feed-sync:source-4', 'feed-sync:source-5']);
    } finally {
      clock.mockRestore();
    }
  });

  it('says what happened, and that the records stay', () => {
    expect(stoppedRunError('TERMINATED')).toMatch(
      /^The sync stopped without recording its end: its Temporal workflow was terminated\. The records it wrote are kept/,
    );
    expect(stoppedRunError('superseded')).toContain('a later sync of the source has begun since');
    expect(stoppedRunError('NOT_FOUND')).toContain('Temporal no longer knows its workflow');
    expect(stoppedRunError('COMPLETED')).toContain('its Temporal workflow ended (COMPLETED)');
  });
});
