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

  describe('query-refused', () => {
    it('reports what the query route refuses with invalid_query and no other rule reports, each once at its path', () => {
      const result = only({
        measures: [`${SALES}.count`],
        filters: [
          { member: `${SALES}.city`, operator: 'measureFilter' },
          { member: `${SALES}.price`, operator: 'contains', values: ['1'] },
          { member: `${SALES}.amount`, operator: 'gt', values: ['a lot'] },
          { member: `${SALES}.count`, operator: 'equals', values: ['2.5'] },
          {
            or: [
              { member: `${SALES}.amount`, operator: 'gt', values: ['1'] },
              { member: `${SALES}.city`, operator: 'equals', values: ['Paris'] },
            ],
          },
        ],
      });
      expect(result.ok).toBe(false);
      const refused = result.errors.filter((f) => f.ruleId === 'query-refused');
      expect(refused.map((f) => f.path)).toEqual([
        'widgets[0].queryConfig.filters[0].member',
        'widgets[0].queryConfig.filters[1].member',
        'widgets[0].queryConfig.filters[2].values[0]',
        'widgets[0].queryConfig.filters[3].values[0]',
        'widgets[0].queryConfig.filters[4]',
      ]);
      for (const f of refused) expect(f.message).not.toMatch(/^Invalid/);
      // Nothing is reported twice: no other rule's finding shares a path with these.
      const paths = result.errors.map((f) => f.path);
      expect(new Set(paths).size).toBe(paths.length);
    });

    it('leaves to the other rules what they report: an empty query, a dropped field, a member of another kind', () => {
      expect(only({ measures: [] }).errors.map((f) => f.ruleId)).toEqual(['empty-query']);
      expect(only({ measures: 'x' }).errors.map((f) => f.ruleId)).not.toContain('query-refused');
      expect(only({ measures: [`${SALES}.city`] }).errors.map((f) => f.ruleId)).toEqual(['member-kind']);
    });
  });
});
