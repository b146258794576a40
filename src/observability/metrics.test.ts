import { FairScheduler } from '../lib/fair-scheduler';
import { analyticsQueue, bounded, registry, statusClass, watchAnalyticsQueues } from './metrics';

describe('metrics', () => {
  test('status classes and bounded labels leave no open-ended value', () => {
    expect([200, 202, 301, 401, 429, 503, 99, 700].map(statusClass)).toEqual(['2xx', '2xx', '3xx', '4xx', '4xx', '5xx', 'other', 'other']);
    expect(bounded('webhook', ['webhook', 'api'])).toBe('webhook');
    expect(bounded('01a25304-d552-72f2-813d-9adbf87c3d35', ['webhook', 'api'])).toBe('other');
  });

  test('the analytics queues are read at scrape time: running and waiting, per queue', async () => {
    const make = (concurrency: number) => new FairScheduler({ concurrency, perKey: concurrency, maxWaitingPerKey: 10, whenFull: () => new Error('full') });
    const queues = { queries: make(1), exports: make(1) };
    watchAnalyticsQueues(queues);
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const first = queues.queries.run('org-a', () => held);
    const second = queues.queries.run('org-b', async () => undefined);

    const values = async () => Object.fromEntries((await analyticsQueue.get()).values.map((v) => [`${v.labels.queue} ${v.labels.state}`, v.value]));
    expect(await values()).toEqual({ 'queries running': 1, 'queries waiting': 1, 'exports running': 0, 'exports waiting': 0 });
    finish();
    await Promise.all([first, second]);
    expect(await values()).toEqual({ 'queries running': 0, 'queries waiting': 0, 'exports running': 0, 'exports waiting': 0 });
    expect(await registry.metrics()).toContain('flowbase_analytics_queue{queue="queries",state="running"} 0');
  });
});
