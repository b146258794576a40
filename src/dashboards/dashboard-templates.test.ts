import type { MetaEntry } from '../analytics/analytics.schemas';
import { BUILT_IN_MODELS, type BuiltInType, RUN_STEPS_TYPE, RUNS_TYPE } from '../data-sources/runs-source';
import { servingRelationName } from '../data-sources/serving-relation';
import { operationsTemplate } from './dashboard-templates';
import { layoutIssues } from './layout-rules';
import { validateWidgets } from './validation/validate-widgets';

const IDS = new Map<string, string>([
  [RUNS_TYPE, '01a2051d-0000-7000-8000-0000000000a1'],
  [RUN_STEPS_TYPE, '01a2051d-0000-7000-8000-0000000000a2'],
]);

/** The analytics meta of the built-in sources, as the service would list it. */
function metaOf(type: BuiltInType): MetaEntry {
  const alias = servingRelationName(IDS.get(type)!);
  const model = BUILT_IN_MODELS[type];
  const member = ([name, m]: [string, { title: string; type: string }], kind: 'measure' | 'dimension') => ({
    name: `${alias}.${name}`,
    title: m.title,
    type: kind === 'measure' ? 'number' : m.type,
  });
  return {
    name: alias,
    title: model.name,
    measures: Object.entries(model.measures).map((e) => member(e, 'measure')),
    dimensions: Object.entries(model.dimensions).map((e) => member(e, 'dimension')),
  };
}

describe('the Operations template', () => {
  const plan = operationsTemplate(IDS);

  it('passes the rules POST /dashboards/validate applies: known members, each chart type given what it needs', () => {
    const sources = [...IDS].map(([type, id]) => ({ id, name: type, servingRelation: servingRelationName(id), enabled: true }));
    const widgets = plan.widgets.map((w) => ({ title: w.title, chartType: w.chartType, dataSourceId: IDS.get(w.sourceType), queryConfig: w.queryConfig }));
    const result = validateWidgets({ widgets }, { sources, meta: [metaOf(RUNS_TYPE), metaOf(RUN_STEPS_TYPE)] });
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('lays its four widgets out on the grid without overlaps', () => {
    const layout = plan.widgets.map((w, i) => ({ widgetId: `w${i}`, ...w.cells }));
    expect(layoutIssues(layout, new Map(layout.map((item, i) => [item.widgetId, plan.widgets[i].title])))).toEqual([]);
    expect(plan.widgets.map((w) => w.title)).toEqual(['Runs per day by status', 'p95 duration per workflow (ms)', 'Failures by step', 'Model cost by model']);
  });
});
