import { AnalyticsQuery } from './analytics.schemas';
import { type KnownMember, queryIssues } from './query-checks';

const MEMBERS: Record<string, KnownMember> = {
  'ds_a.count': { kind: 'measure', type: 'number', integer: true },
  'ds_a.amount': { kind: 'measure', type: 'number' },
  'ds_a.city': { kind: 'dimension', type: 'string' },
  'ds_a.qty': { kind: 'dimension', type: 'number' },
  'ds_a.at': { kind: 'dimension', type: 'time' },
  'ds_b.count': { kind: 'measure', type: 'number', integer: true },
};
const ctx = {
  member: (name: string) => MEMBERS[name],
  timeDimensionOf: (alias: string) => (alias === 'ds_a' ? 'ds_a.at' : undefined),
  now: new Date('2026-03-10T00:00:00Z'),
};
const issues = (q: Record<string, unknown>) => queryIssues(AnalyticsQuery.parse(q), ctx);
const counted = (extra: Record<string, unknown>) => ({ measures: ['ds_a.count'], ...extra });
const filtered = (filter: Record<string, unknown>) => counted({ filters: [filter] });

describe('queryIssues', () => {
  it('passes queries Cube runs, and leaves members the model does not have alone', () => {
    expect(issues(counted({ dimensions: ['ds_a.city'], timeDimensions: [{ dimension: 'ds_a.at', granularity: 'day', dateRange: 'last 7 days' }] }))).toEqual(
      [],
    );
    expect(issues(filtered({ member: 'ds_a.amount', operator: 'measureFilter' }))).toEqual([]);
    expect(issues(filtered({ member: 'ds_a.amount', operator: 'gt', values: ['1.5e3'] }))).toEqual([]);
    expect(issues(filtered({ member: 'ds_a.at', operator: 'inDateRange', values: ['2026-01-01', '2026-01-31T12:00:00Z'] }))).toEqual([]);
    expect(issues(filtered({ member: 'ds_a.qty', operator: 'equals', values: [null] }))).toEqual([]);
    expect(issues({ measures: ['ds_a.nope'], dimensions: ['ds_a.typo'], filters: [{ member: 'ds_a.gone', operator: 'contains', values: ['x'] }] })).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'measureFilter on a dimension',
      filtered({ member: 'ds_a.city', operator: 'measureFilter' }),
      'filters.0.member',
      /"ds_a.city" is a string dimension: measureFilter applies to measures only/,
    ],
    ['the filter named by `dimension`', filtered({ dimension: 'ds_a.city', operator: 'measureFilter' }), 'filters.0.dimension', /measureFilter/],
    ['a dimension under measures', { measures: ['ds_a.city'] }, 'measures.0', /"ds_a.city" is a string dimension, not a measure.*"ds_a.count"/],
    ['a measure under dimensions', { dimensions: ['ds_a.amount'] }, 'dimensions.0', /"ds_a.amount" is a measure, not a dimension/],
    [
      'a text operator on a number',
      filtered({ member: 'ds_a.qty', operator: 'contains', values: ['1'] }),
      'filters.0.member',
      /"ds_a.qty" is a number dimension: the operator "contains" matches text/,
    ],
    ['a text operator on a date', filtered({ member: 'ds_a.at', operator: 'startsWith', values: ['2026'] }), 'filters.0.member', /inDateRange/],
    [
      'a date operator on a string',
      filtered({ member: 'ds_a.city', operator: 'beforeDate', values: ['2026-01-01'] }),
      'filters.0.member',
      /not a time dimension: the date operator "beforeDate"/,
    ],
    [
      'a date operator on a measure',
      filtered({ member: 'ds_a.amount', operator: 'inDateRange', values: ['2026-01-01', '2026-02-01'] }),
      'filters.0.member',
      /"ds_a.amount" is a measure, not a time dimension/,
    ],
    ['a word for a number', filtered({ member: 'ds_a.qty', operator: 'gt', values: ['many'] }), 'filters.0.values.0', /"many" is not a number.*"ds_a.qty"/],
    [
      'a fraction for a count',
      filtered({ member: 'ds_a.count', operator: 'gte', values: ['1.5'] }),
      'filters.0.values.0',
      /"1.5" is not a whole number.*"ds_a.count"/,
    ],
    ['a word for a date', filtered({ member: 'ds_a.at', operator: 'equals', values: ['soon'] }), 'filters.0.values.0', /"soon" is not a date.*"ds_a.at"/],
    ['null for a date operator', filtered({ member: 'ds_a.at', operator: 'afterDate', values: [null] }), 'filters.0.values.0', /null is not a date/],
    ['no values', filtered({ member: 'ds_a.city', operator: 'equals' }), 'filters.0.values', /"equals" on "ds_a.city" needs at least one value/],
    [
      'a time dimension that is a string',
      counted({ timeDimensions: [{ dimension: 'ds_a.city', granularity: 'day' }] }),
      'timeDimensions.0.dimension',
      /"ds_a.city" is a string dimension, not a time dimension.*"ds_a.at"/,
    ],
    [
      'a time dimension that is a measure',
      counted({ timeDimensions: [{ dimension: 'ds_a.amount', dateRange: 'last 7 days' }] }),
      'timeDimensions.0.dimension',
      /is a measure, not a time dimension/,
    ],
    [
      'an unknown granularity',
      counted({ timeDimensions: [{ dimension: 'ds_a.at', granularity: 'fortnight' }] }),
      'timeDimensions.0.granularity',
      /"fortnight" for "ds_a.at"/,
    ],
    [
      'a phrase Cube cannot read',
      counted({ timeDimensions: [{ dimension: 'ds_a.at', dateRange: 'last fortnight' }] }),
      'timeDimensions.0.dateRange',
      /"last fortnight" is not a date range/,
    ],
    [
      'a date pair with a non-date',
      counted({ timeDimensions: [{ dimension: 'ds_a.at', dateRange: ['2026-01-01', '2026-02-30'] }] }),
      'timeDimensions.0.dateRange.1',
      /"2026-02-30" is not a date/,
    ],
    ['a timeRange Cube cannot read', counted({ timeRange: { type: 'relative', value: 'whenever' } }), 'timeRange.value', /"whenever" is not a date range/],
    ['a segment', counted({ segments: ['ds_a.city'] }), 'segments.0', /not a segment: data sources define no segments/],
    [
      'an or group of a measure and a dimension',
      filtered({ or: [{ member: 'ds_a.amount', operator: 'gt', values: ['1'] }, { and: [{ member: 'ds_a.city', operator: 'set' }] }] }),
      'filters.0',
      /"or" group mixes the measure "ds_a.amount" and the dimension "ds_a.city"/,
    ],
    ['two sources', { measures: ['ds_a.count', 'ds_b.count'] }, 'measures.1', /"ds_b.count" is of another data source than "ds_a.count"/],
    ['nothing to answer', { filters: [{ member: 'ds_a.city', operator: 'set' }] }, '', /asks for nothing/],
  ])('%s', (_name, q, path, message) => {
    expect(issues(q)).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('reports a mixed group once, at the outermost group, and every problem of a query', () => {
    const q = {
      measures: ['ds_a.city'],
      filters: [
        {
          and: [
            {
              or: [
                { member: 'ds_a.amount', operator: 'gt', values: ['1'] },
                { member: 'ds_a.city', operator: 'set' },
              ],
            },
          ],
        },
      ],
    };
    expect(issues(q).map((i) => i.path)).toEqual(['measures.0', 'filters.0']);
  });
});
