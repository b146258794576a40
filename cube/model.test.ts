import { AnalyticsSource } from '../src/data-sources/analytics-source.entity';
import { builtInCube } from '../src/data-sources/runs-source';
import { cubeModel } from './model';

function source(overrides: Partial<AnalyticsSource> = {}): AnalyticsSource {
  return Object.assign(new AnalyticsSource(), {
    id: '01a2051d-6376-7344-af07-949d8d334eab',
    name: 'Orders',
    servingRelation: 'ds_01a2051d_6376_7344_af07_949d8d334eab',
    recordSchema: {
      name: 'orders',
      fields: {
        amount: { type: 'number', label: 'Amount', measure: true },
        city: { type: 'string', label: 'City' },
        at: { type: 'date', label: 'At', timeDimension: true },
      },
      calculatedFields: [],
    },
    windowDimensions: [],
    ...overrides,
  });
}

/** Evaluates the generated file as Cube's compiler would, with CUBE left as a placeholder. */
function evaluate(js: string): { name: string; definition: any } {
  let captured: { name: string; definition: any } | undefined;
  const cube = (name: string, definition: any) => (captured = { name, definition });
  new Function('cube', 'CUBE', js)(cube, '<CUBE>');
  return captured!;
}

describe('cubeModel', () => {
  it('names the cube after the serving relation, with fields as measures and dimensions', () => {
    const { name, definition } = evaluate(cubeModel(source()));
    expect(name).toBe('ds_01a2051d_6376_7344_af07_949d8d334eab');
    expect(definition.title).toBe('Orders');
    expect(Object.keys(definition.measures)).toEqual(['count', 'amount']);
    expect(definition.measures.count).toMatchObject({ type: 'count', sql: '*' });
    expect(definition.measures.amount).toMatchObject({ type: 'sum', sql: '<CUBE>."amount"', title: 'Amount' });
    expect(definition.dimensions.at).toMatchObject({ type: 'time', sql: '<CUBE>."at"' });
    expect(definition.dimensions.city).toMatchObject({ type: 'string' });
    expect(definition.sql).toContain('analytics."ds_01a2051d_6376_7344_af07_949d8d334eab"');
    expect(definition.sql).toContain('__expires_at IS NULL OR __expires_at > now()');
  });

  it('keeps hostile labels and names as plain strings: no code or template runs', () => {
    const hostile = 'x`); process.exit(1); cube(`y ${CUBE} "quoted" \\ \n';
    const { definition } = evaluate(
      cubeModel(
        source({
          name: hostile,
          recordSchema: {
            name: 'o',
            fields: { amount: { type: 'number', label: hostile, measure: true }, at: { type: 'date', label: hostile, timeDimension: true } },
            calculatedFields: [],
          },
        }),
      ),
    );
    expect(definition.title).toBe(hostile);
    expect(definition.measures.amount.title).toBe(hostile);
    expect(definition.dimensions.at.title).toBe(hostile);
  });

  it('turns calculated fields into SQL with null-safe division and flags them', () => {
    const expression = {
      type: 'BinaryExpression',
      operator: '/',
      left: { type: 'Identifier', name: 'amount' },
      right: { type: 'Literal', value: 2.5, raw: '2.5' },
    } as const;
    const calculatedFields = [
      { id: '01a2051d-0000-7000-8000-000000000001', name: 'half', label: 'Half', type: 'number' as const, expression, formula: 'amount / 2.5', measure: true },
      {
        id: '01a2051d-0000-7000-8000-000000000002',
        name: 'halfRow',
        label: 'Half row',
        type: 'number' as const,
        expression,
        formula: 'amount / 2.5',
        measure: false,
      },
    ];
    const { definition } = evaluate(cubeModel(source({ recordSchema: { ...source().recordSchema, calculatedFields } })));
    expect(definition.measures.half).toMatchObject({ type: 'sum', sql: `(<CUBE>."amount" / NULLIF('2.5'::numeric, 0))`, meta: { calculated: true } });
    expect(definition.dimensions.halfRow).toMatchObject({ type: 'number', meta: { calculated: true } });
  });

  it('computes window dimensions over every live row before any filter', () => {
    const windowDimensions = [
      {
        id: '01a2051d-0000-7000-8000-000000000003',
        name: 'rank',
        label: 'Rank',
        function: 'row_number' as const,
        partitionBy: ['city'],
        orderBy: 'amount',
        direction: 'desc' as const,
        semantic: 'lifetime' as const,
      },
    ];
    const { definition } = evaluate(cubeModel(source({ windowDimensions })));
    expect(definition.sql).toContain('row_number() OVER (PARTITION BY t."city" ORDER BY t."amount" DESC NULLS LAST, t.__key) AS "rank"');
    expect(definition.sql).toContain('WHERE (t.__expires_at IS NULL OR t.__expires_at > now())');
    expect(definition.dimensions.rank).toMatchObject({ type: 'number', sql: '<CUBE>."rank"' });
  });

  it("renders a built-in source's own model: the organization's runs, its id a literal, no serving relation", () => {
    const organizationId = '01a2051d-0000-7000-8000-0000000000aa';
    const runs = source({ type: 'flowbase:runs', organizationId, builtIn: builtInCube('flowbase:runs', organizationId) });
    const { name, definition } = evaluate(cubeModel(runs));
    expect(name).toBe('ds_01a2051d_6376_7344_af07_949d8d334eab');
    expect(definition.sql).toContain(`WHERE e.organization_id = '${organizationId}'`);
    expect(definition.sql).toContain('FROM executions e');
    expect(definition.sql).not.toContain('analytics.');
    expect(definition.dimensions.__key).toMatchObject({ primaryKey: true, shown: false });
    expect(definition.dimensions.startedAt).toMatchObject({ type: 'time', sql: '<CUBE>."startedAt"' });
    expect(definition.dimensions.status).toMatchObject({ type: 'string' });
    expect(definition.measures.count).toMatchObject({ type: 'count', sql: '*' });
    expect(definition.measures.durationP95).toMatchObject({ type: 'number', sql: 'percentile_cont(0.95) WITHIN GROUP (ORDER BY <CUBE>."durationMs")' });
    expect(definition.measures.failureRate.type).toBe('number');
    expect(definition.measures.cost).toMatchObject({ type: 'sum', sql: '<CUBE>."cost"' });
    // Fields the row's record schema lists play no part: the model is the code's.
    expect(definition.measures.amount).toBeUndefined();

    const steps = evaluate(cubeModel(source({ type: 'flowbase:run-steps', builtIn: builtInCube('flowbase:run-steps', organizationId) }))).definition;
    expect(steps.sql).toContain('FROM execution_steps s');
    expect(Object.keys(steps.dimensions)).toEqual(expect.arrayContaining(['stepType', 'provider', 'model', 'workflow', 'startedAt']));
  });

  it('refuses to build a built-in model for anything but an organization id', () => {
    expect(() => builtInCube('flowbase:runs', "x' OR true --")).toThrow('Not an organization id');
    expect(builtInCube('custom', '01a2051d-0000-7000-8000-0000000000aa')).toBeUndefined();
  });
});
