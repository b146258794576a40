import { MAX_QUERY_DEPTH, MAX_WIDGETS } from './input-shape';
import { MAX_ECHO, MAX_FINDINGS, MAX_FINDINGS_PER_WIDGET } from './report';
import { RULES } from './rules';
import { validateWidgets } from './validate-widgets';
import { CONTEXT, SALES, SALES_ID, widget } from './validation.fixtures';

// Every edit distance the validation computes is counted (the hints are its only work that grows with both input and model).
jest.mock('fastest-levenshtein', () => {
  const actual = jest.requireActual<typeof import('fastest-levenshtein')>('fastest-levenshtein');
  const counted = { calls: 0, longest: 0 };
  const distance = (a: string, b: string) => {
    counted.calls += 1;
    counted.longest = Math.max(counted.longest, a.length);
    return actual.distance(a, b);
  };
  return { ...actual, distance, counted };
});
const counted = (jest.requireMock('fastest-levenshtein') as { counted: { calls: number; longest: number } }).counted;

const good = widget();
const withQuery = (queryConfig: unknown) => ({ widgets: [{ ...good, chartType: 'table', queryConfig }] });
const nested = (depth: number) => {
  let filter: unknown = { member: `${SALES}.city`, operator: 'set' };
  for (let i = 0; i < depth; i++) filter = { and: [filter] };
  return filter;
};

/** Each gives ok: false with at least one error at the expected rule and path, and never throws. */
const MALFORMED: Array<[string, unknown, string, string | undefined]> = [
  ['null body', null, 'malformed', undefined],
  ['a string body', 'widgets', 'malformed', undefined],
  ['a number body', 42, 'malformed', undefined],
  ['an array at the top', [good], 'malformed', undefined],
  ['no widgets key', {}, 'malformed', 'widgets'],
  ['widgets an object', { widgets: { 0: good } }, 'malformed', 'widgets'],
  ['widgets a string', { widgets: 'all' }, 'malformed', 'widgets'],
  ['widgets null', { widgets: null }, 'malformed', 'widgets'],
  ['an unknown key beside widgets', { widgets: [good], dashboard: 'x' }, 'malformed', 'dashboard'],
  ['a widget null', { widgets: [null] }, 'malformed', 'widgets[0]'],
  ['a widget an array', { widgets: [[good]] }, 'malformed', 'widgets[0]'],
  ['a widget a string', { widgets: ['line'] }, 'malformed', 'widgets[0]'],
  ['title missing', { widgets: [{ ...good, title: undefined }] }, 'malformed', 'widgets[0].title'],
  ['title a number', { widgets: [{ ...good, title: 7 }] }, 'malformed', 'widgets[0].title'],
  ['title empty', { widgets: [{ ...good, title: '  ' }] }, 'malformed', 'widgets[0].title'],
  ['title too long', { widgets: [{ ...good, title: 'x'.repeat(201) }] }, 'malformed', 'widgets[0].title'],
  ['dataSourceId missing', { widgets: [{ ...good, dataSourceId: undefined }] }, 'malformed', 'widgets[0].dataSourceId'],
  ['dataSourceId an object', { widgets: [{ ...good, dataSourceId: { id: SALES_ID } }] }, 'malformed', 'widgets[0].dataSourceId'],
  ['chartType a number', { widgets: [{ ...good, chartType: 1 }] }, 'malformed', 'widgets[0].chartType'],
  ['displayConfig a string', { widgets: [{ ...good, displayConfig: 'legend' }] }, 'malformed', 'widgets[0].displayConfig'],
  ['an unknown key on a widget', { widgets: [{ ...good, querConfig: {} }] }, 'malformed', 'widgets[0].querConfig'],
  ['queryConfig missing', { widgets: [{ ...good, queryConfig: undefined }] }, 'malformed', 'widgets[0].queryConfig'],
  ['queryConfig null', withQuery(null), 'malformed', 'widgets[0].queryConfig'],
  ['queryConfig an array', withQuery([]), 'malformed', 'widgets[0].queryConfig'],
  ['queryConfig a JSON string', withQuery(JSON.stringify(good.queryConfig)), 'malformed', 'widgets[0].queryConfig'],
  ['measures a string', withQuery({ measures: `${SALES}.count` }), 'malformed', 'widgets[0].queryConfig.measures'],
  ['a measure a number', withQuery({ measures: [1] }), 'malformed', 'widgets[0].queryConfig.measures[0]'],
  ['dimensions an object', withQuery({ measures: [`${SALES}.count`], dimensions: { a: 1 } }), 'malformed', 'widgets[0].queryConfig.dimensions'],
  [
    'timeDimensions without dimension',
    withQuery({ timeDimensions: [{ granularity: 'day' }] }),
    'malformed',
    'widgets[0].queryConfig.timeDimensions[0].dimension',
  ],
  [
    'a time dimension with an unknown key',
    withQuery({ timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'day', range: 'x' }] }),
    'malformed',
    'widgets[0].queryConfig.timeDimensions[0]',
  ],
  [
    'dateRange a number',
    withQuery({ timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'day', dateRange: 7 }] }),
    'time-range',
    'widgets[0].queryConfig.timeDimensions[0].dateRange',
  ],
  ['filters an object', withQuery({ measures: [`${SALES}.count`], filters: { member: `${SALES}.city` } }), 'malformed', 'widgets[0].queryConfig.filters'],
  ['a filter without member', withQuery({ measures: [`${SALES}.count`], filters: [{ operator: 'set' }] }), 'malformed', 'widgets[0].queryConfig.filters[0]'],
  [
    'a filter with an object value',
    withQuery({ measures: [`${SALES}.count`], filters: [{ member: `${SALES}.city`, operator: 'equals', values: [{}] }] }),
    'malformed',
    'widgets[0].queryConfig.filters[0].values[0]',
  ],
  [
    'a filter group with both and and or',
    withQuery({ measures: [`${SALES}.count`], filters: [{ and: [], or: [] }] }),
    'malformed',
    'widgets[0].queryConfig.filters[0]',
  ],
  [
    'order with a bad direction',
    withQuery({ measures: [`${SALES}.count`], order: { [`${SALES}.count`]: 'up' } }),
    'malformed',
    `widgets[0].queryConfig.order["${SALES}.count"]`,
  ],
  ['order a string', withQuery({ measures: [`${SALES}.count`], order: 'desc' }), 'malformed', 'widgets[0].queryConfig.order'],
  ['limit a string', withQuery({ measures: [`${SALES}.count`], limit: '10' }), 'limit', 'widgets[0].queryConfig.limit'],
  ['offset negative', withQuery({ measures: [`${SALES}.count`], offset: -1 }), 'malformed', 'widgets[0].queryConfig.offset'],
  ['ungrouped a string', withQuery({ measures: [`${SALES}.count`], ungrouped: 'yes' }), 'malformed', 'widgets[0].queryConfig.ungrouped'],
  ['timezone a number', withQuery({ measures: [`${SALES}.count`], timezone: 3 }), 'timezone', 'widgets[0].queryConfig.timezone'],
  [
    'timeRange without value',
    withQuery({ measures: [`${SALES}.count`], timeRange: { type: 'relative' } }),
    'time-range',
    'widgets[0].queryConfig.timeRange.value',
  ],
  ['an unknown key in queryConfig', withQuery({ measures: [`${SALES}.count`], chartType: 'line' }), 'malformed', 'widgets[0].queryConfig.chartType'],
  ['a member of 10,000 characters', withQuery({ measures: [`${SALES}.${'a'.repeat(10_000)}`] }), 'malformed', 'widgets[0].queryConfig.measures[0]'],
  ['measures with 100,000 items', withQuery({ measures: Array(100_000).fill(`${SALES}.count`) }), 'malformed', 'widgets[0].queryConfig'],
  ['filters nested 5,000 levels deep', withQuery({ measures: [`${SALES}.count`], filters: [nested(5_000)] }), 'malformed', undefined],
  ['filters nested 11 levels deep', withQuery({ measures: [`${SALES}.count`], filters: [nested(11)] }), 'malformed', undefined],
  ['too many widgets', { widgets: Array(MAX_WIDGETS + 1).fill(good) }, 'malformed', 'widgets'],
];

describe('POST /dashboards/validate on malformed input', () => {
  it.each(MALFORMED)('%s: ok false, a finding, no throw', (_name, body, ruleId, path) => {
    const result = validateWidgets(body, CONTEXT);
    expect(result.ok).toBe(false);
    expect(result.errors).toContainEqual(expect.objectContaining({ ruleId, severity: 'error', ...(path === undefined ? {} : { path }) }));
    for (const f of [...result.errors, ...result.warnings]) {
      if (f.ruleId !== 'findings-truncated') expect(f.severity).toBe(RULES[f.ruleId].severity);
      expect(f.message.length).toBeLessThan(1_000);
      expect(f.ruleId).not.toBe('unchecked');
    }
  });

  it('covers at least 20 distinct malformed inputs', () => {
    expect(new Set(MALFORMED.map(([name]) => name)).size).toBeGreaterThanOrEqual(20);
  });

  it('names the body as widget null and a widget by its index', () => {
    expect(validateWidgets(null, CONTEXT).errors).toEqual([
      { ruleId: 'malformed', severity: 'error', widget: null, message: 'The body must be an object {widgets: [...]}, received null' },
    ]);
    const result = validateWidgets({ widgets: [good, 5] }, CONTEXT);
    expect(result.errors).toEqual([expect.objectContaining({ widget: 1, path: 'widgets[1]' })]);
  });

  it('accepts the other fields of a widget as GET /dashboards/{id} shows it', () => {
    const read = {
      ...good,
      id: 'w1',
      suid: 'abc',
      organizationId: 'o',
      dashboardId: 'd',
      createdAt: 'now',
      updatedAt: 'now',
      displayConfig: { legend: { show: true } },
    };
    expect(validateWidgets({ widgets: [read] }, CONTEXT)).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it(`filters nest ten levels deep within the depth bound (${MAX_QUERY_DEPTH})`, () => {
    expect(validateWidgets(withQuery({ measures: [`${SALES}.count`], filters: [nested(10)] }), CONTEXT)).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('reads JSON with __proto__ and constructor keys as plain unknown keys', () => {
    const body = JSON.parse(
      `{"widgets":[{"title":"T","dataSourceId":"${SALES_ID}","__proto__":{"x":1},"queryConfig":{"measures":["${SALES}.count"],"constructor":1,"__proto__":[],"order":{"__proto__":"asc"}}}],"__proto__":null}`,
    );
    const result = validateWidgets(body, CONTEXT);
    expect(result.errors.map((f) => [f.ruleId, f.path])).toEqual([
      ['malformed', '__proto__'],
      ['malformed', 'widgets[0].__proto__'],
      ['malformed', 'widgets[0].queryConfig.constructor'],
      ['malformed', 'widgets[0].queryConfig.__proto__'],
    ]);
    // zod's record drops an order key named __proto__, as the query route does: it never reaches Cube.
  });

  it('answers for input that is not JSON at all', () => {
    const hostile = {
      get widgets(): unknown {
        throw new Error('boom');
      },
    };
    expect(validateWidgets(hostile, CONTEXT)).toEqual({ ok: false, errors: [expect.objectContaining({ ruleId: 'unchecked', widget: null })], warnings: [] });
  });

  it('an empty widget list is fine', () => {
    expect(validateWidgets({ widgets: [] }, CONTEXT)).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('too many widgets: the first ones are still checked', () => {
    const widgets = [...Array(MAX_WIDGETS - 1).fill(good), widget({ chartType: 'nope' }), widget({ chartType: 'nope' })];
    const result = validateWidgets({ widgets }, CONTEXT);
    expect(result.errors.map((f) => [f.widget, f.ruleId])).toEqual([
      [null, 'malformed'],
      [MAX_WIDGETS - 1, 'chart-type'],
    ]);
  });

  it('never echoes a huge input: names, keys and paths are cut', () => {
    const huge = 'k'.repeat(1_000_000);
    const result = validateWidgets(
      {
        widgets: [
          { ...good, dataSourceId: huge.slice(0, 100), chartType: huge.slice(0, 50), queryConfig: { [huge]: 1, measures: [`${SALES}.${'z'.repeat(290)}`] } },
        ],
        [huge]: 1,
      },
      CONTEXT,
    );
    expect(result.ok).toBe(false);
    for (const f of result.errors) {
      expect(f.message.length).toBeLessThan(MAX_ECHO * 4);
      expect((f.path ?? '').length).toBeLessThan(MAX_ECHO * 3);
    }
  });

  it('caps the findings per widget and per request, and ok still counts them all', () => {
    const many = { measures: Array.from({ length: 100 }, (_, i) => `${SALES}.nope_${i}`) };
    const one = validateWidgets(withQuery(many), CONTEXT);
    expect(one.errors).toHaveLength(MAX_FINDINGS_PER_WIDGET + 1);
    expect(one.errors[MAX_FINDINGS_PER_WIDGET]).toEqual(
      expect.objectContaining({
        ruleId: 'findings-truncated',
        widget: 0,
        message: `${100 - MAX_FINDINGS_PER_WIDGET} more errors for this widget are not listed`,
      }),
    );
    const all = validateWidgets({ widgets: Array(MAX_WIDGETS).fill({ ...good, queryConfig: many }) }, CONTEXT);
    expect(all.ok).toBe(false);
    expect(all.errors.length).toBeLessThanOrEqual(MAX_FINDINGS + 2);
    expect(all.errors[all.errors.length - 1]).toEqual(expect.objectContaining({ ruleId: 'findings-truncated', widget: null }));
  });

  it('bounds its work on the largest input it accepts: hints for at most 100 names, each against at most 3,000 members', () => {
    // 200 widgets of 100 distinct unknown members each, against 10,000 members: 20,000 unknown names.
    const widgets = Array.from({ length: MAX_WIDGETS }, (_, w) => ({
      ...good,
      queryConfig: { measures: Array.from({ length: 100 }, (_, i) => `${SALES}.unknown_member_${w}_${i}`), filters: [nested(10)] },
    }));
    counted.calls = 0;
    counted.longest = 0;
    const result = validateWidgets({ widgets }, { ...CONTEXT, meta: bigMeta(50, 200) });
    expect(result.ok).toBe(false);
    // Unbounded, each unknown name would be compared with every member (twice: field and whole name): 400 million edit distances.
    // Bounded: 100 names x 3,000 candidates x 2, and names cut to 100 characters.
    expect(counted.calls).toBeGreaterThan(0);
    expect(counted.calls).toBeLessThanOrEqual(100 * 3_000 * 2);
    expect(counted.longest).toBeLessThanOrEqual(100);
  });

  it('never throws on random JSON, and never reports a widget as unchecked', () => {
    const random = seeded(20240515);
    const pieces = [
      ...Object.keys({ title: 1, dataSourceId: 1, chartType: 1, queryConfig: 1, widgets: 1 }),
      ...['measures', 'dimensions', 'timeDimensions', 'filters', 'segments', 'order', 'timeRange', 'timezone', 'limit', 'offset', 'ungrouped'],
      ...['and', 'or', 'member', 'dimension', 'operator', 'values', 'granularity', 'dateRange', 'type', 'value', '__proto__', 'constructor'],
    ];
    const strings = [
      '',
      'line',
      'pie',
      'day',
      'days',
      'last 7 days',
      'from x to y',
      'equals',
      'inDateRange',
      'set',
      'relative',
      'UTC',
      SALES_ID,
      `${SALES}.count`,
      `${SALES}.city`,
      `${SALES}.created`,
      '2024-02-30',
      'x'.repeat(400),
    ];
    const value = (depth: number): unknown => {
      const pick = random() * (depth > 5 ? 6 : 9);
      if (pick < 1) return null;
      if (pick < 2) return random() < 0.5;
      if (pick < 3) return Math.floor(random() * 200_000) - 100 + (random() < 0.2 ? 0.5 : 0);
      if (pick < 6) return strings[Math.floor(random() * strings.length)];
      if (pick < 7.5) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const obj: Record<string, unknown> = {};
      for (let i = Math.floor(random() * 5); i > 0; i--) obj[pieces[Math.floor(random() * pieces.length)]] = value(depth + 1);
      return obj;
    };
    const shaped = () => ({ widgets: Array.from({ length: Math.floor(random() * 4) }, () => ({ ...(value(0) as object), queryConfig: value(1) })) });
    for (let i = 0; i < 3_000; i++) {
      const body = i % 2 === 0 ? value(0) : shaped();
      let result: ReturnType<typeof validateWidgets> | undefined;
      expect(() => (result = validateWidgets(body, CONTEXT))).not.toThrow();
      expect(result!.ok).toBe(result!.errors.length === 0);
      for (const f of [...result!.errors, ...result!.warnings]) expect(f.ruleId).not.toBe('unchecked');
    }
  });
});

describe('POST /dashboards/validate on mutated widgets', () => {
  it('never throws when any one value of a rich widget is replaced by random JSON', () => {
    const random = seeded(7);
    const rich = () =>
      widget(
        { chartType: 'bar', displayConfig: { legend: { show: true } } },
        {
          dimensions: [`${SALES}.city`],
          filters: [
            {
              or: [
                { member: `${SALES}.city`, operator: 'equals', values: ['a', 1, null] },
                { and: [{ dimension: `${SALES}.created`, operator: 'inDateRange', values: ['2024-01-01', '2024-02-01'] }] },
              ],
            },
          ],
          order: [[`${SALES}.amount`, 'desc']],
          timeRange: { type: 'relative', value: 'last 7 days' },
          timezone: 'Europe/Paris',
          limit: 100,
          segments: [],
        },
      );
    const replacements: unknown[] = [
      null,
      0,
      -1,
      1e12,
      0.5,
      true,
      '',
      'x',
      'last 0 days',
      [],
      [[]],
      {},
      { and: [] },
      { or: {} },
      [null],
      ['2024-02-30', 'x'],
      'x'.repeat(5_000),
    ];
    // Every place of the widget, as a path of keys and indexes.
    const places = (value: unknown, path: Array<string | number> = []): Array<Array<string | number>> =>
      typeof value !== 'object' || value === null
        ? [path]
        : [path, ...Object.entries(value).flatMap(([k, v]) => places(v, [...path, Array.isArray(value) ? Number(k) : k]))];
    const all = places(rich()).filter((p) => p.length > 0);
    for (let i = 0; i < 2_000; i++) {
      const target = rich();
      const path = all[Math.floor(random() * all.length)];
      let parent: Record<string | number, unknown> = target;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
      parent[path[path.length - 1]] = replacements[Math.floor(random() * replacements.length)];
      let result: ReturnType<typeof validateWidgets> | undefined;
      expect(() => (result = validateWidgets({ widgets: [target] }, CONTEXT))).not.toThrow();
      for (const f of [...result!.errors, ...result!.warnings]) expect(f.ruleId).not.toBe('unchecked');
    }
  });
});

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function bigMeta(sources: number, fields: number) {
  return Array.from({ length: sources }, (_, s) => {
    const alias = `ds_0190a0a0_0000_7000_9000_${String(s).padStart(12, '0')}`;
    const members = Array.from({ length: fields }, (_, f) => ({ name: `${alias}.field_number_${f}`, title: `F${f}`, type: 'number' }));
    return { name: alias, title: `S${s}`, measures: members.slice(0, fields / 2), dimensions: members.slice(fields / 2) };
  });
}
