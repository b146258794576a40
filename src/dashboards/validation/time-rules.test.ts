import { ruleIds, SALES, SALES_ID, validate } from './validation.fixtures';

const only = (query: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
  validate([{ title: 'W', dataSourceId: SALES_ID, queryConfig: query, ...overrides }]);

describe('POST /dashboards/validate date, filter and limit rules', () => {
  describe('time', () => {
    it('granularity: Cube’s list, with a hint', () => {
      const result = only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'days' }] });
      expect(result.errors).toEqual([
        expect.objectContaining({
          ruleId: 'granularity',
          path: 'widgets[0].queryConfig.timeDimensions[0].granularity',
          message: 'Unknown granularity "days": Cube knows second, minute, hour, day, week, month, quarter, year; did you mean "day"?',
        }),
      ]);
      for (const granularity of ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']) {
        expect(only({ timeDimensions: [{ dimension: `${SALES}.created`, granularity }] }).ok).toBe(true);
      }
      expect(ruleIds(only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, granularity: 7 }] })).errors).toEqual([
        'granularity',
      ]);
    });

    it('time-range: a dateRange or timeRange Cube cannot read', () => {
      const result = only({
        measures: [`${SALES}.count`],
        timeDimensions: [{ dimension: `${SALES}.created`, dateRange: 'last sometime' }],
        timeRange: { type: 'relative', value: 'from 2024-01-01 to whenever' },
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['time-range', 'widgets[0].queryConfig.timeDimensions[0].dateRange'],
        ['time-range', 'widgets[0].queryConfig.timeRange.value'],
      ]);
      expect(result.errors[0].message).toContain("Cube says: Can't parse date: 'last sometime'");
    });

    it('time-range: phrases Cube reads pass', () => {
      for (const value of [
        'last 7 days',
        'this month',
        'today',
        'yesterday',
        'last quarter',
        'next 2 weeks',
        'from 2024-01-01 to 2024-03-31',
        'Last 12 Months',
        '2024-01-01',
      ]) {
        expect(only({ measures: [`${SALES}.count`], timeRange: { type: 'relative', value } })).toEqual({ ok: true, errors: [], warnings: [] });
      }
    });

    it('time-range: timeRange.type other than relative', () => {
      const result = only({ measures: [`${SALES}.count`], timeRange: { type: 'absolute', value: 'last 7 days' } });
      expect(result.errors).toEqual([expect.objectContaining({ ruleId: 'time-range', path: 'widgets[0].queryConfig.timeRange.type' })]);
      expect(ruleIds(only({ measures: [`${SALES}.count`], timeRange: 'last 7 days' })).errors).toEqual(['time-range']);
    });

    it('time-range: a date pair must be two dates', () => {
      const result = only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, dateRange: ['2024-02-30', 'soon'] }] });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['time-range', 'widgets[0].queryConfig.timeDimensions[0].dateRange[0]'],
        ['time-range', 'widgets[0].queryConfig.timeDimensions[0].dateRange[1]'],
      ]);
      expect(
        only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, dateRange: ['2024-01-01', '2024-01-31T23:59:59'] }] }).ok,
      ).toBe(true);
    });

    it('time-range-empty: a range that ends before it starts', () => {
      for (const dateRange of ['last 0 days', 'from 2024-03-01 to 2024-01-01', ['2024-03-01', '2024-01-01']]) {
        const result = only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, dateRange }] });
        expect(ruleIds(result)).toEqual({ errors: [], warnings: ['time-range-empty'] });
      }
      expect(
        only({ measures: [`${SALES}.count`], timeDimensions: [{ dimension: `${SALES}.created`, dateRange: ['2024-01-01', '2024-01-01'] }] }).warnings,
      ).toEqual([]);
    });

    it('time-range-unused: every time dimension has its own dateRange', () => {
      const base = { measures: [`${SALES}.count`], timeRange: { type: 'relative', value: 'last 7 days' } };
      expect(ruleIds(only({ ...base, timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'day', dateRange: 'this year' }] })).warnings).toEqual([
        'time-range-unused',
      ]);
      expect(only({ ...base, timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'day' }] }).warnings).toEqual([]);
      expect(only(base).warnings).toEqual([]);
    });

    it('timezone: an IANA zone', () => {
      expect(only({ measures: [`${SALES}.count`], timezone: 'Mars/Olympus' }).errors).toEqual([
        expect.objectContaining({ ruleId: 'timezone', path: 'widgets[0].queryConfig.timezone', message: expect.stringContaining('IANA') }),
      ]);
      expect(only({ measures: [`${SALES}.count`], timezone: 'Europe/Paris', timeRange: { type: 'relative', value: 'today' } }).ok).toBe(true);
    });
  });

  describe('filters', () => {
    it('filter-operator: unknown or missing, at any depth, listing Cube’s', () => {
      const result = only({
        measures: [`${SALES}.count`],
        filters: [{ member: `${SALES}.city`, operator: 'equal', values: ['x'] }, { or: [{ member: `${SALES}.city`, values: ['x'] }] }],
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['filter-operator', 'widgets[0].queryConfig.filters[0].operator'],
        ['filter-operator', 'widgets[0].queryConfig.filters[1].or[0].operator'],
      ]);
      expect(result.errors[0].message).toContain('"equal" is not a filter operator; use one of equals, notEquals');
      expect(result.errors[1].message).toContain('operator is missing');
    });

    it('keeps checking the other members of a filter list with a bad operator', () => {
      const result = only({
        measures: [`${SALES}.count`],
        filters: [
          {
            and: [
              { member: `${SALES}.city`, operator: 'equalz', values: ['x'] },
              { member: `${SALES}.citi`, operator: 'equals', values: ['x'] },
            ],
          },
        ],
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['filter-operator', 'widgets[0].queryConfig.filters[0].and[0].operator'],
        ['field-refs', 'widgets[0].queryConfig.filters[0].and[1].member'],
      ]);
    });

    it('filter-values: values an operator needs, and dates for date operators', () => {
      const result = only({
        measures: [`${SALES}.count`],
        filters: [
          { member: `${SALES}.city`, operator: 'equals' },
          { member: `${SALES}.city`, operator: 'in', values: [] },
          { member: `${SALES}.created`, operator: 'inDateRange', values: ['2024-01-01'] },
          { member: `${SALES}.created`, operator: 'beforeDate', values: ['yesterday-ish'] },
          { member: `${SALES}.created`, operator: 'afterDate', values: ['2024-01-01', '2024-01-02', '2024-01-03'] },
        ],
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['filter-values', 'widgets[0].queryConfig.filters[0].values'],
        ['filter-values', 'widgets[0].queryConfig.filters[1].values'],
        ['filter-values', 'widgets[0].queryConfig.filters[2].values'],
        ['filter-values', 'widgets[0].queryConfig.filters[3].values[0]'],
        ['filter-values', 'widgets[0].queryConfig.filters[4].values'],
      ]);
    });

    it('filter-values: set, notSet and good dates pass', () => {
      const result = only({
        measures: [`${SALES}.count`],
        filters: [
          { member: `${SALES}.city`, operator: 'set' },
          { member: `${SALES}.city`, operator: 'notSet' },
          { member: `${SALES}.created`, operator: 'inDateRange', values: ['2024-01-01', '2024-01-31T12:00:00.000Z'] },
          { member: `${SALES}.created`, operator: 'beforeOrOnDate', values: ['2024-06-01'] },
        ],
      });
      expect(result).toEqual({ ok: true, errors: [], warnings: [] });
    });
  });

  describe('limit', () => {
    it('limit above the most rows a query answers, or not a positive integer, is an error', () => {
      for (const limit of [50_001, 0, 1.5, '10']) {
        expect(ruleIds(only({ measures: [`${SALES}.count`], limit })).errors).toEqual(['limit']);
      }
      const [error] = only({ measures: [`${SALES}.count`], limit: 60_000 }).errors;
      expect(error.message).toBe('queryConfig.limit must be an integer from 1 to 50000, the most rows a query answers; received number 60000');
    });
  });
});
