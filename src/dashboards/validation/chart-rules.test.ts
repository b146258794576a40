import { ruleIds, SALES, validate, widget } from './validation.fixtures';

describe('POST /dashboards/validate chart rules', () => {
  describe('charts', () => {
    it('chart-type: an unknown type lists the known ones and the closest', () => {
      const [error] = validate([widget({ chartType: 'lines' })]).errors;
      expect(error).toEqual(expect.objectContaining({ ruleId: 'chart-type', path: 'widgets[0].chartType' }));
      expect(error.message).toBe('Unknown chart type "lines": the chart types are line, area, bar, pie, stat-card, table, text; did you mean "line"?');
    });

    it('chart-measures: a chart that needs a measure has none; table needs none', () => {
      const noMeasure = { measures: [], dimensions: [`${SALES}.city`], timeDimensions: [] };
      expect(ruleIds(validate([widget({ chartType: 'bar' }, noMeasure)])).errors).toEqual(['chart-measures']);
      expect(ruleIds(validate([widget({ chartType: 'stat-card' }, noMeasure)]))).toEqual({ errors: ['chart-measures'], warnings: ['chart-single-value'] });
      expect(validate([widget({ chartType: 'table' }, noMeasure)]).ok).toBe(true);
    });

    it('chart-measures: a pie shows one measure', () => {
      const result = validate([
        widget({ chartType: 'pie' }, { measures: [`${SALES}.count`, `${SALES}.amount`], timeDimensions: [], dimensions: [`${SALES}.city`] }),
      ]);
      expect(result.errors).toEqual([expect.objectContaining({ ruleId: 'chart-measures', message: 'A pie chart shows one measure; the query has 2' })]);
    });

    it('chart-time-dimension: line and area need a time dimension with a granularity', () => {
      for (const chartType of ['line', 'area']) {
        const withoutGranularity = validate([
          widget({ chartType }, { timeDimensions: [{ dimension: `${SALES}.created`, dateRange: 'last 7 days' }], dimensions: [`${SALES}.city`] }),
        ]);
        expect(withoutGranularity.errors).toEqual([
          expect.objectContaining({
            ruleId: 'chart-time-dimension',
            message: `A ${chartType} chart needs a time dimension with a granularity for its x axis, such as {dimension: "${SALES}.created", granularity: "day"}`,
          }),
        ]);
      }
      expect(validate([widget({ chartType: 'bar' }, { dimensions: [] })]).ok).toBe(true);
    });

    it('chart-grouping: bar and pie need a dimension or a granularity', () => {
      const ungrouped = { timeDimensions: [{ dimension: `${SALES}.created`, dateRange: 'last 7 days' }] };
      expect(ruleIds(validate([widget({ chartType: 'bar' }, ungrouped)])).errors).toEqual(['chart-grouping']);
      expect(ruleIds(validate([widget({ chartType: 'pie' }, ungrouped)])).errors).toEqual(['chart-grouping']);
      expect(validate([widget({ chartType: 'pie' }, { ...ungrouped, dimensions: [`${SALES}.city`] })]).ok).toBe(true);
    });

    it('chart-single-value: a stat-card that groups is a warning', () => {
      const grouped = validate([widget({ chartType: 'stat-card' }, { dimensions: [`${SALES}.city`], timeDimensions: [] })]);
      expect(grouped.ok).toBe(true);
      expect(ruleIds(grouped).warnings).toEqual(['chart-single-value']);
      expect(ruleIds(validate([widget({ chartType: 'stat-card' })])).warnings).toEqual(['chart-single-value']);
    });

    it('limit-readable: a limit above what the chart shows is a warning; at it, nothing', () => {
      expect(ruleIds(validate([widget({ chartType: 'pie' }, { timeDimensions: [], dimensions: [`${SALES}.city`], limit: 21 })])).warnings).toEqual([
        'limit-readable',
      ]);
      expect(validate([widget({ chartType: 'pie' }, { timeDimensions: [], dimensions: [`${SALES}.city`], limit: 20 })]).warnings).toEqual([]);
      expect(ruleIds(validate([widget({ chartType: 'table' }, { limit: 5000 })])).warnings).toEqual(['limit-readable']);
      expect(validate([widget({ chartType: undefined }, { limit: 50_000 })]).warnings).toEqual([]);
    });

    it('empty-query: no measure, dimension or granularity, whatever the chart', () => {
      for (const chartType of ['table', undefined, 'bar']) {
        const result = validate([widget({ chartType }, { measures: [], timeDimensions: [{ dimension: `${SALES}.created`, dateRange: 'today' }] })]);
        expect(ruleIds(result).errors).toEqual(['empty-query']);
      }
    });
  });
});
