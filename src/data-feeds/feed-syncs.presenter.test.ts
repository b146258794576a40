import { presentFeedSync } from './feed-syncs.presenter';
import type { FeedSync } from './feed-syncs.types';

const run = (finishedAt: Date | null): FeedSync => ({
  id: 'b9a4c0de-0000-4000-8000-000000000001',
  organizationId: 'b9a4c0de-0000-4000-8000-000000000002',
  dataSourceId: 'b9a4c0de-0000-4000-8000-000000000003',
  workflowId: 'feed-sync:b9a4c0de-0000-4000-8000-000000000003',
  trigger: 'schedule',
  window: { startDate: new Date('2026-11-01T00:00:00Z'), endDate: new Date('2026-11-02T00:00:00Z') },
  status: finishedAt ? 'success' : 'running',
  counts: { created: 1, updated: 2, unchanged: 3, deleted: 4, vendorRequests: 5, pages: 6 },
  reconciled: false,
  startedAt: new Date('2026-11-02T00:00:00.250Z'),
  finishedAt,
  error: null,
});

describe('presentFeedSync', () => {
  it('shows a finished run with its duration in milliseconds, and no internal ids', () => {
    expect(presentFeedSync(run(new Date('2026-11-02T00:01:01.000Z')))).toEqual({
      id: 'b9a4c0de-0000-4000-8000-000000000001',
      trigger: 'schedule',
      status: 'success',
      window: { startDate: '2026-11-01T00:00:00.000Z', endDate: '2026-11-02T00:00:00.000Z' },
      records: { created: 1, updated: 2, unchanged: 3, deleted: 4 },
      vendorRequests: 5,
      pages: 6,
      reconciled: false,
      startedAt: '2026-11-02T00:00:00.250Z',
      finishedAt: '2026-11-02T00:01:01.000Z',
      durationMs: 60_750,
      error: null,
    });
  });

  it('gives a running run no end and no duration', () => {
    expect(presentFeedSync(run(null))).toMatchObject({ status: 'running', finishedAt: null, durationMs: null });
  });
});
