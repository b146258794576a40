import type { AnalyticsSource } from '../data-sources/analytics-source.entity';
import { servingRelationName } from '../data-sources/serving-relation';
import { ValidationError } from '../errors/errors';
import { renameQueryMembers, sourceIdOfAlias } from './dashboard-export-members';
import { exportIdFor, toPortable } from './dashboard-export';
import { assertPortableFormat, DashboardExport, parseDashboardImport } from './dashboard-export.schemas';
import { fromPortable } from './dashboard-import';
import { DashboardWidget } from './dashboard-widget.entity';
import { Dashboard } from './dashboard.entity';

/** The portable format without a database: export, schema, import, and the alias rewrite everywhere a member can be. */

const ORDERS = '0190a000-0000-7000-8000-000000000001';
const PEOPLE = '0190a000-0000-7000-8000-000000000002';
const o = servingRelationName(ORDERS);
const p = servingRelationName(PEOPLE);

const source = (id: string, name: string): AnalyticsSource =>
  ({
    id,
    name,
    type: 'custom',
    dataStoreTableName: name.toLowerCase(),
    recordSchema: {
      name,
      fields: {
        at: { type: 'date', label: 'At', timeDimension: true },
        amount: { type: 'number', label: 'Amount', measure: true },
        region: { type: 'string', label: 'Region' },
      },
      calculatedFields: [
        {
          id: '0190a000-0000-7000-8000-0000000000c1',
          name: 'double',
          label: 'Double',
          type: 'number',
          expression: { type: 'Identifier', name: 'amount' },
          formula: 'amount',
          measure: true,
        },
      ],
    },
    windowDimensions: [
      {
        id: '0190a000-0000-7000-8000-0000000000d1',
        name: 'seq',
        label: 'Seq',
        function: 'row_number',
        partitionBy: ['region'],
        orderBy: 'at',
        direction: 'asc',
        semantic: 'lifetime',
      },
    ],
  }) as unknown as AnalyticsSource;

const sources = new Map([
  [ORDERS, source(ORDERS, 'Orders')],
  [PEOPLE, source(PEOPLE, 'People')],
]);

function fixture() {
  const dashboard = Object.assign(new Dashboard(), {
    id: '0190a000-0000-7000-8000-00000000da01',
    organizationId: '0190a000-0000-7000-8000-00000000a000',
    userId: '0190a000-0000-7000-8000-00000000b000',
    name: 'Sales',
    description: 'Weekly',
    isDefault: true,
    timezone: 'Europe/Paris',
    layout: [] as Dashboard['layout'],
    filterConfig: [
      { id: 'region', dataSourceId: ORDERS, dimension: `${o}.region`, label: 'Region' },
      { id: 'who', dataSourceId: PEOPLE, dimension: 'region', label: 'Who' },
    ],
    filterDefaults: { region: ['EU'] },
  });
  const widget = (n: number, dataSourceId: string, queryConfig: object) =>
    Object.assign(new DashboardWidget(), {
      id: `0190a000-0000-7000-8000-0000000000${10 + n}`,
      dashboardId: dashboard.id,
      title: `W${n}`,
      chartType: 'table',
      dataSourceId,
      queryConfig,
      displayConfig: { legend: { show: n === 1 } },
    });
  const widgets = [
    widget(1, ORDERS, {
      measures: [`${o}.amount`, `${o}.double`],
      dimensions: [`${o}.region`, `${p}.region`, 'ds_0190a000_0000_7000_8000_0000000000ff.x', 'unqualified'],
      timeDimensions: [{ dimension: `${o}.at`, granularity: 'day', dateRange: 'last 7 days' }],
      filters: [
        { or: [{ member: `${o}.region`, operator: 'equals', values: ['EU'] }, { and: [{ dimension: `${o}.amount`, operator: 'gt', values: ['3'] }] }] },
      ],
      segments: [`${o}.big`],
      order: { [`${o}.amount`]: 'desc' },
      timeRange: { type: 'relative', value: 'last 30 days' },
      limit: 10,
    }),
    widget(2, PEOPLE, { measures: [`${p}.count`], dimensions: [], timeDimensions: [], filters: [], order: [[`${p}.count`, 'asc']] }),
  ];
  dashboard.layout = [
    { widgetId: widgets[0].id, x: 0, y: 0, w: 6, h: 4 },
    { widgetId: widgets[1].id, x: 6, y: 0, w: 6, h: 4 },
  ];
  return { dashboard, widgets };
}

test('an export names sources by exportId, members as $exportId.field, widgets by key, and carries no id', () => {
  const { dashboard, widgets } = fixture();
  const payload = toPortable(dashboard, widgets, sources);
  expect(DashboardExport.parse(payload)).toEqual(payload);
  const text = JSON.stringify(payload);
  for (const id of [
    dashboard.id,
    dashboard.organizationId,
    dashboard.userId!,
    ORDERS,
    PEOPLE,
    o,
    p,
    ...widgets.map((w) => w.id),
    '0190a000-0000-7000-8000-0000000000c1',
  ]) {
    expect(text).not.toContain(id);
  }
  expect(payload.dataSources.map((s) => [s.exportId, s.alias, s.name])).toEqual([
    ['orders', '$orders', 'Orders'],
    ['people', '$people', 'People'],
  ]);
  expect(payload.dataSources[0].recordSchema.calculatedFields).toEqual([expect.not.objectContaining({ id: expect.anything() })]);
  expect(payload.dataSources[0].windowDimensions).toEqual([expect.objectContaining({ name: 'seq', partitionBy: ['region'] })]);
  expect(payload.dashboard.layout).toEqual([
    { widget: 'w1', x: 0, y: 0, w: 6, h: 4 },
    { widget: 'w2', x: 6, y: 0, w: 6, h: 4 },
  ]);
  expect(payload.dashboard.filterConfig).toEqual([
    { id: 'region', dataSource: 'orders', dimension: '$orders.region', label: 'Region' },
    { id: 'who', dataSource: 'people', dimension: 'region', label: 'Who' },
  ]);
  const q = payload.widgets[0].queryConfig!;
  expect(q.measures).toEqual(['$orders.amount', '$orders.double']);
  // Another source's field is renamed too; a made-up or deleted alias and an unqualified name are kept verbatim.
  expect(q.dimensions).toEqual(['$orders.region', '$people.region', 'ds_0190a000_0000_7000_8000_0000000000ff.x', 'unqualified']);
  expect(q.timeDimensions).toEqual([{ dimension: '$orders.at', granularity: 'day', dateRange: 'last 7 days' }]);
  expect(q.filters).toEqual([
    { or: [{ member: '$orders.region', operator: 'equals', values: ['EU'] }, { and: [{ dimension: '$orders.amount', operator: 'gt', values: ['3'] }] }] },
  ]);
  expect(q.segments).toEqual(['$orders.big']);
  expect(q.order).toEqual({ '$orders.amount': 'desc' });
  expect(payload.widgets[1].queryConfig!.order).toEqual([['$people.count', 'asc']]);
});

test('an import of the export into other sources is the same dashboard but for ids and aliases', () => {
  const { dashboard, widgets } = fixture();
  const payload = parseDashboardImport({
    ...toPortable(dashboard, widgets, sources),
    dataSourceMappings: {},
  });
  const mine = new Map([
    ['orders', '0190b000-0000-7000-8000-000000000001'],
    ['people', '0190b000-0000-7000-8000-000000000002'],
  ]);
  const imported = fromPortable(payload, { organizationId: 'org-b', userId: null, sourceIds: mine });
  const back = (text: string) =>
    text
      .replaceAll(servingRelationName(mine.get('orders')!), o)
      .replaceAll(servingRelationName(mine.get('people')!), p)
      .replaceAll(mine.get('orders')!, ORDERS)
      .replaceAll(mine.get('people')!, PEOPLE);
  const widgetIdBack = new Map(imported.widgets.map((w, i) => [w.id, widgets[i].id]));
  const same = (d: Dashboard) => ({ ...d, id: undefined, organizationId: undefined, userId: undefined, suid: undefined });
  const importedBack = JSON.parse(back(JSON.stringify(same(imported.dashboard))));
  importedBack.layout = importedBack.layout.map((item: { widgetId: string }) => ({ ...item, widgetId: widgetIdBack.get(item.widgetId) }));
  expect(importedBack).toEqual(JSON.parse(JSON.stringify(same(dashboard))));
  imported.widgets.forEach((w, i) => {
    expect(w.dashboardId).toBe(imported.dashboard.id);
    const { id: _a, suid: _b, organizationId: _c, dashboardId: _d, ...rest } = w;
    const { id: _e, dashboardId: _f, ...original } = widgets[i];
    expect(JSON.parse(back(JSON.stringify(rest)))).toEqual({ ...original, queryConfig: expect.objectContaining(original.queryConfig) });
  });
});

test('the payload is checked: format and version first, then every cross-reference, each issue naming its field', () => {
  const { dashboard, widgets } = fixture();
  const payload = toPortable(dashboard, widgets, sources);
  for (const [change, path] of [
    [{ format: 'grafana' }, 'format'],
    [{ version: 2 }, 'version'],
    [{ version: '1' }, 'version'],
  ] as const) {
    const thrown = catchError(() => assertPortableFormat({ ...payload, ...change }));
    expect(thrown).toMatchObject({ code: 'unsupported_format', details: [expect.objectContaining({ path })] });
  }
  const broken = structuredClone(payload) as any;
  broken.dataSources.push({ ...broken.dataSources[0] });
  broken.widgets[1].key = 'w1';
  broken.widgets[0].dataSource = 'nowhere';
  broken.widgets[0].queryConfig.measures.push('$ghost.amount');
  broken.dashboard.layout.push({ widget: 'w9', x: 0, y: 4, w: 1, h: 1 });
  broken.dashboard.filterConfig[1].dimension = '$orders.region';
  broken.dashboard.filterDefaults.nope = ['x'];
  const thrown = catchError(() => parseDashboardImport({ ...broken, dataSourceMappings: {} }));
  expect(thrown).toMatchObject({ code: 'validation_failed' });
  expect(thrown.details!.map((d) => d.path).sort()).toEqual([
    'dashboard.filterConfig.1.dimension',
    'dashboard.filterDefaults.nope',
    // w2 was renamed w1 (a repeated key), so the layout's w2 names no widget either.
    'dashboard.layout.1.widget',
    'dashboard.layout.2.widget',
    'dataSources.2.exportId',
    'widgets.0.dataSource',
    'widgets.0.queryConfig',
    'widgets.1.key',
  ]);
});

test('the layout rules apply to the imported layout (invalid_layout, naming the item)', () => {
  const { dashboard, widgets } = fixture();
  const payload = parseDashboardImport({ ...toPortable(dashboard, widgets, sources), dataSourceMappings: {} });
  payload.dashboard.layout[1].x = 3;
  const thrown = catchError(() =>
    fromPortable(payload, {
      organizationId: 'o',
      userId: null,
      sourceIds: new Map([
        ['orders', ORDERS],
        ['people', PEOPLE],
      ]),
    }),
  );
  expect(thrown).toMatchObject({
    code: 'invalid_layout',
    details: [expect.objectContaining({ path: 'dashboard.layout.1', message: expect.stringContaining('overlaps') })],
  });
});

test('exportIds come from source names, unique, starting with a letter', () => {
  expect(exportIdFor('Orders 2024', new Set())).toBe('orders_2024');
  expect(exportIdFor('Café crème', new Set())).toBe('cafe_creme');
  expect(exportIdFor('2024', new Set())).toBe('source_2024');
  expect(exportIdFor('!!!', new Set())).toBe('source');
  expect(exportIdFor('Orders', new Set(['orders', 'orders_2']))).toBe('orders_3');
});

test('the rename reaches every place of a query and nothing else', () => {
  const renamed = renameQueryMembers({ measures: ['a.x'], dimensions: ['b.y'], timeDimensions: [], filters: [], limit: 5, timezone: 'UTC' }, (alias) =>
    alias === 'a' ? 'z' : undefined,
  );
  expect(renamed).toEqual({ measures: ['z.x'], dimensions: ['b.y'], timeDimensions: [], filters: [], limit: 5, timezone: 'UTC' });
  expect(sourceIdOfAlias(o)).toBe(ORDERS);
  expect(sourceIdOfAlias('ds_nope')).toBeUndefined();
});

function catchError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}
