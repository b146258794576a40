import { AnalyticsQuery } from '../analytics/analytics.schemas';
import { foreignMembers, widgetPlaces, widgetQuery, widgetTimeZone } from './widget-query';
import { isIanaTimeZone } from './time-zone';

const A = 'ds_a';

describe('widgetTimeZone', () => {
  test("the dashboard's zone; when null, the viewer's; else the query's own; else UTC", () => {
    expect(widgetTimeZone('Europe/Paris', 'Asia/Tokyo', 'America/Chicago')).toBe('Europe/Paris');
    expect(widgetTimeZone(null, 'Asia/Tokyo', 'America/Chicago')).toBe('Asia/Tokyo');
    expect(widgetTimeZone(null, undefined, 'America/Chicago')).toBe('America/Chicago');
    expect(widgetTimeZone(null)).toBe('UTC');
  });
});

describe('isIanaTimeZone', () => {
  test('zones yes, offsets and made-up names no', () => {
    for (const zone of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'america/new_york']) expect(isIanaTimeZone(zone)).toBe(true);
    for (const zone of ['+02:00', 'Mars/Olympus', '', 'Europe/', '../etc', 'x'.repeat(65)]) expect(isIanaTimeZone(zone)).toBe(false);
  });
});

describe('widgetQuery', () => {
  const saved = AnalyticsQuery.parse({
    measures: [`${A}.count`],
    filters: [{ member: `${A}.city`, operator: 'notEquals', values: ['x'] }],
    timeRange: { type: 'relative', value: 'last 7 days' },
    timezone: 'Asia/Tokyo',
  });

  test("adds the dashboard's filters to the widget's own, keeps its timeRange, sets the zone", () => {
    const extra = [{ member: `${A}.region`, operator: 'equals', values: ['EU'] }];
    expect(widgetQuery(saved, extra, 'Europe/Paris')).toEqual({
      ...saved,
      filters: [...saved.filters, ...extra],
      timeRange: { type: 'relative', value: 'last 7 days' },
      timezone: 'Europe/Paris',
    });
    expect(saved.filters).toHaveLength(1);
  });

  test("members outside the widget's source are foreign, wherever they are named", () => {
    expect(foreignMembers(saved, A)).toEqual([]);
    const q = AnalyticsQuery.parse({
      measures: [`${A}.count`, 'ds_b.amount'],
      dimensions: ['typo'],
      filters: [{ or: [{ member: 'ds_b.city', operator: 'set' }] }],
      order: { 'ds_b.amount': 'desc' },
    });
    expect(foreignMembers(q, A)).toEqual(['ds_b.amount', 'typo', 'ds_b.city']);
  });
});

describe('widgetPlaces', () => {
  test("the saved queryConfig's places, and the dashboard filters after its filters: the caller's values or the dashboard's default", () => {
    const filter = { member: `${A}.region`, operator: 'equals', values: ['EU'] };
    const at = widgetPlaces(1, [
      { id: 'region', chosen: true, filter },
      { id: 'qty', chosen: false, filter },
    ]);
    expect(at('')).toBe('queryConfig');
    expect(at('measures.0')).toBe('queryConfig.measures.0');
    expect(at('filters.0.and.1.member')).toBe('queryConfig.filters.0.and.1.member');
    expect(at('filters.1.values.2')).toBe('filters.region.2');
    expect(at('filters.1.member')).toBe('filters.region');
    expect(at('filters.2.values.0')).toBe('dashboard.filterDefaults.qty.0');
  });
});
