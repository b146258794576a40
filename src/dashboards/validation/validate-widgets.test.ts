import { RULES } from './rules';
import { foreignSourceIdCandidates, validateWidgets } from './validate-widgets';
import { CONTEXT, FOREIGN_ID, ORDERS, ORDERS_ID, ruleIds, SALES, SALES_ID, SOURCES, validate, widget } from './validation.fixtures';

const only = (query: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
  validate([{ title: 'W', dataSourceId: SALES_ID, queryConfig: query, ...overrides }]);

describe('POST /dashboards/validate rules', () => {
  it('passes a good widget of each chart type, with no finding', () => {
    const good = [
      widget(),
      widget({ chartType: 'area' }),
      widget({ chartType: 'bar' }, { timeDimensions: [], dimensions: [`${SALES}.city`], limit: 50 }),
      widget({ chartType: 'pie' }, { timeDimensions: [], dimensions: [`${SALES}.city`], order: { [`${SALES}.amount`]: 'desc' }, limit: 10 }),
      widget({ chartType: 'stat-card' }, { timeDimensions: [{ dimension: `${SALES}.created`, dateRange: 'this month' }] }),
      widget({ chartType: 'table' }, { measures: [], timeDimensions: [], dimensions: [`${SALES}.city`, `${SALES}.price`], limit: 1000 }),
      widget({ chartType: undefined }),
    ];
    expect(validate(good)).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('every finding carries its rule id, the rule table severity, the widget index and a path', () => {
    const result = validate([widget(), widget({ dataSourceId: 'nope' }), widget({}, { limit: 20_000 })]);
    for (const f of [...result.errors, ...result.warnings]) {
      expect(f.severity).toBe(RULES[f.ruleId].severity);
      expect(f.widget).toEqual(expect.any(Number));
      expect(f.path).toMatch(/^widgets\[\d+\]/);
    }
    expect(result.errors).toEqual([expect.objectContaining({ ruleId: 'unknown-source', widget: 1, path: 'widgets[1].dataSourceId' })]);
    expect(result.warnings).toEqual([expect.objectContaining({ ruleId: 'limit-readable', widget: 2, path: 'widgets[2].queryConfig.limit' })]);
  });

  describe('field-refs', () => {
    it('reports an unknown member with the closest real one', () => {
      const result = only({ measures: [`${SALES}.amout`] });
      expect(result.ok).toBe(false);
      expect(result.errors).toEqual([
        {
          ruleId: 'field-refs',
          severity: 'error',
          widget: 0,
          message: `Unknown field "${SALES}.amout"; did you mean "${SALES}.amount"?`,
          path: 'widgets[0].queryConfig.measures[0]',
        },
      ]);
    });

    it('checks dimensions, time dimensions, nested filters, segments and order, each at its path', () => {
      const result = only({
        measures: [`${SALES}.count`],
        dimensions: [`${SALES}.cty`],
        timeDimensions: [{ dimension: `${SALES}.creatd`, granularity: 'day' }],
        filters: [{ or: [{ member: `${SALES}.city`, operator: 'set' }, { and: [{ dimension: `${SALES}.pric`, operator: 'gt', values: ['1'] }] }] }],
        segments: [`${SALES}.vip`],
        order: [[`${SALES}.quantty`, 'asc']],
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['field-refs', 'widgets[0].queryConfig.dimensions[0]'],
        ['field-refs', 'widgets[0].queryConfig.timeDimensions[0].dimension'],
        ['field-refs', 'widgets[0].queryConfig.filters[0].or[1].and[0].dimension'],
        ['field-refs', 'widgets[0].queryConfig.segments[0]'],
        ['field-refs', 'widgets[0].queryConfig.order[0][0]'],
      ]);
      expect(result.errors[0].message).toContain(`did you mean "${SALES}.city"?`);
      expect(result.errors[1].message).toContain(`did you mean "${SALES}.created"?`);
      expect(result.errors[2].message).toContain(`did you mean "${SALES}.price"?`);
      expect(result.errors[3].message).toBe(`Unknown segment "${SALES}.vip": data sources define no segments; filter on a dimension instead`);
      expect(result.errors[4].message).toContain(`did you mean "${SALES}.quantity"?`);
    });

    it('checks order given as an object', () => {
      const result = only({ measures: [`${SALES}.count`], order: { [`${SALES}.count`]: 'desc', [`${SALES}.amont`]: 'asc' } });
      expect(result.errors).toEqual([expect.objectContaining({ ruleId: 'field-refs', path: `widgets[0].queryConfig.order["${SALES}.amont"]` })]);
    });

    it('reports a name once, at its first place', () => {
      const result = only({ measures: [`${SALES}.amout`], order: { [`${SALES}.amout`]: 'desc' } });
      expect(ruleIds(result).errors).toEqual(['field-refs']);
    });

    it('hints the qualified name of an unqualified field', () => {
      const [error] = only({ measures: ['amount'] }).errors;
      expect(error.message).toBe(`Unknown field "amount": fields are named <source alias>.<field>; did you mean "${SALES}.amount"?`);
    });

    it('hints the time dimension form of Cube’s member.granularity shorthand', () => {
      const [error] = only({ dimensions: [`${SALES}.created.month`] }).errors;
      expect(error.message).toContain(`timeDimensions, {dimension: "${SALES}.created", granularity: "month"}`);
    });

    it('offers no hint when nothing is close, and points to the metadata', () => {
      const [error] = only({ measures: [`${SALES}.zzzzzzzzzz`] }).errors;
      expect(error.message).toBe(`Unknown field "${SALES}.zzzzzzzzzz" (GET /dashboards/analytics/meta lists the organization's fields)`);
    });

    it('reports nothing for known members', () => {
      expect(only({ measures: [`${SALES}.count`, `${SALES}.amount`], dimensions: [`${SALES}.city`] }).ok).toBe(true);
    });
  });

  describe('data sources', () => {
    it('unknown-source: an id of no organization, with a hint when the name or alias was given', () => {
      expect(validate([widget({ dataSourceId: '0190a0a0-0000-7000-8000-00000000abcd' })]).errors).toEqual([
        expect.objectContaining({ ruleId: 'unknown-source', message: expect.stringContaining('GET /dashboards/data-sources') }),
      ]);
      const [byName] = validate([widget({ dataSourceId: 'sales' })]).errors;
      expect(byName.message).toContain(`"Sales" has the id "${SALES_ID}"`);
      const [byAlias] = validate([widget({ dataSourceId: SALES })]).errors;
      expect(byAlias.message).toContain(`has the id "${SALES_ID}"`);
    });

    it('foreign-source: another organization’s source is named as such', () => {
      const result = validate([widget({ dataSourceId: FOREIGN_ID })]);
      expect(result.errors).toEqual([expect.objectContaining({ ruleId: 'foreign-source', path: 'widgets[0].dataSourceId' })]);
      // Without the route's lookup it is just unknown.
      expect(ruleIds(validate([widget({ dataSourceId: FOREIGN_ID })], { ...CONTEXT, foreignSourceIds: undefined })).errors).toEqual(['unknown-source']);
    });

    it('compares ids without regard to case, as PostgreSQL does', () => {
      expect(validate([widget({ dataSourceId: SALES_ID.toUpperCase() })]).ok).toBe(true);
      expect(ruleIds(validate([widget({ dataSourceId: FOREIGN_ID.toUpperCase() })])).errors).toEqual(['foreign-source']);
    });

    it('source-disabled is a warning only', () => {
      const result = validate([
        widget({ dataSourceId: ORDERS_ID }, { measures: [`${ORDERS}.total`], timeDimensions: [{ dimension: `${ORDERS}.placed`, granularity: 'week' }] }),
      ]);
      expect(result.ok).toBe(true);
      expect(ruleIds(result).warnings).toEqual(['source-disabled']);
    });

    it('source-mismatch: a member of another of the organization’s sources', () => {
      const result = only({ measures: [`${SALES}.count`, `${ORDERS}.total`] });
      expect(result.errors).toEqual([
        expect.objectContaining({
          ruleId: 'source-mismatch',
          path: 'widgets[0].queryConfig.measures[1]',
          message: `"${ORDERS}.total" is a field of data source "Orders", not of this widget's source "Sales": a widget's query names fields of its own source only`,
        }),
      ]);
    });

    it('prefers the widget’s own source in hints', () => {
      // `count` exists in both sources; an unknown alias gets the widget's own.
      const [error] = only({ measures: ['ds_unknown.count'] }).errors;
      expect(error.message).toContain(`did you mean "${SALES}.count"?`);
      const [fromOrders] = validate([{ title: 'W', dataSourceId: ORDERS_ID, queryConfig: { measures: ['ds_unknown.count'] } }]).errors;
      expect(fromOrders.message).toContain(`did you mean "${ORDERS}.count"?`);
    });

    it('foreignSourceIdCandidates gives the route the UUID-shaped ids that are not the organization’s, once each', () => {
      const body = {
        widgets: [
          { dataSourceId: SALES_ID },
          { dataSourceId: FOREIGN_ID },
          { dataSourceId: FOREIGN_ID.toUpperCase() },
          { dataSourceId: 'not-a-uuid' },
          null,
          { dataSourceId: 5 },
        ],
      };
      expect(foreignSourceIdCandidates(body, SOURCES)).toEqual([FOREIGN_ID]);
      expect(foreignSourceIdCandidates('nope', SOURCES)).toEqual([]);
      expect(
        foreignSourceIdCandidates(
          { widgets: Array.from({ length: 500 }, (_, i) => ({ dataSourceId: `0190a0a0-0000-7000-9000-${String(i).padStart(12, '0')}` })) },
          SOURCES,
        ),
      ).toHaveLength(200);
    });
  });

  describe('member-kind and duplicate-member', () => {
    it('refuses a dimension as a measure, a measure as a dimension, a non-time time dimension, a date operator on a non-time member', () => {
      const result = only({
        measures: [`${SALES}.city`],
        dimensions: [`${SALES}.count`],
        timeDimensions: [{ dimension: `${SALES}.price`, granularity: 'day' }, { dimension: `${SALES}.amount` }],
        filters: [{ member: `${SALES}.city`, operator: 'inDateRange', values: ['2024-01-01', '2024-02-01'] }],
      });
      expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
        ['member-kind', 'widgets[0].queryConfig.measures[0]'],
        ['member-kind', 'widgets[0].queryConfig.dimensions[0]'],
        ['member-kind', 'widgets[0].queryConfig.timeDimensions[0].dimension'],
        ['member-kind', 'widgets[0].queryConfig.timeDimensions[1].dimension'],
        ['member-kind', 'widgets[0].queryConfig.filters[0].member'],
      ]);
      expect(result.errors[0].message).toBe(`"${SALES}.city" is a dimension, not a measure: list it under dimensions`);
      expect(result.errors[2].message).toBe(`"${SALES}.price" is a number dimension, not a time dimension: list it under dimensions`);
    });

    it('lets filters and order use measures and dimensions alike', () => {
      const result = only({
        measures: [`${SALES}.count`],
        dimensions: [`${SALES}.city`],
        filters: [
          { member: `${SALES}.amount`, operator: 'gt', values: [10] },
          { member: `${SALES}.created`, operator: 'afterDate', values: ['2024-01-01'] },
        ],
        order: { [`${SALES}.count`]: 'desc', [`${SALES}.city`]: 'asc' },
      });
      expect(result).toEqual({ ok: true, errors: [], warnings: [] });
    });

    it('warns of duplicate members', () => {
      const result = only({
        measures: [`${SALES}.count`, `${SALES}.count`],
        dimensions: [`${SALES}.city`, `${SALES}.city`],
        timeDimensions: [
          { dimension: `${SALES}.created`, granularity: 'day' },
          { dimension: `${SALES}.created`, granularity: 'month' },
          { dimension: `${SALES}.created`, granularity: 'day' },
        ],
      });
      expect(result.ok).toBe(true);
      expect(result.warnings.map((f) => f.path)).toEqual([
        'widgets[0].queryConfig.measures[1]',
        'widgets[0].queryConfig.dimensions[1]',
        'widgets[0].queryConfig.timeDimensions[2]',
      ]);
      expect(ruleIds(result).warnings).toEqual(['duplicate-member', 'duplicate-member', 'duplicate-member']);
    });
  });

  describe('charts', () => {
    it('chart-type: an unknown type lists the known ones and the closest', () => {
      const [error] = validate([widget({ chartType: 'lines' })]).errors;
      expect(error).toEqual(expect.objectContaining({ ruleId: 'chart-type', path: 'widgets[0].chartType' }));
      expect(error.message).toBe('Unknown chart type "lines": the chart types are line, area, bar, pie, stat-card, table; did you mean "line"?');
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

  it('reports every problem of a widget at once, and widgets independently', () => {
    const result = validate([
      widget({ chartType: 'pi' }, { measures: [`${SALES}.amout`], timezone: 'Nowhere', bogus: true }),
      widget(),
      widget({ dataSourceId: FOREIGN_ID }),
    ]);
    expect(result.errors.map((f) => [f.widget, f.ruleId])).toEqual([
      [0, 'chart-type'],
      [0, 'timezone'],
      [0, 'malformed'],
      [0, 'field-refs'],
      [2, 'foreign-source'],
    ]);
  });

  it('works on an organization without sources', () => {
    const result = validateWidgets({ widgets: [widget()] }, { sources: [], meta: [] });
    expect(ruleIds(result).errors).toEqual(['unknown-source', 'field-refs', 'field-refs']);
  });
});
