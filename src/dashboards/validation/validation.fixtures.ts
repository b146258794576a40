import type { MetaEntry } from '../../analytics/analytics.schemas';
import type { ValidationSource } from './source-rules';
import { type ValidationContext, validateWidgets } from './validate-widgets';

/** An organization with two sources, Sales (enabled) and Orders (disabled), for the validate unit tests. */
export const SALES_ID = '0190a0a0-0000-7000-8000-000000000001';
export const ORDERS_ID = '0190a0a0-0000-7000-8000-000000000002';
export const FOREIGN_ID = '0190a0a0-0000-7000-8000-0000000000ff';
export const SALES = 'ds_0190a0a0_0000_7000_8000_000000000001';
export const ORDERS = 'ds_0190a0a0_0000_7000_8000_000000000002';

const member = (name: string, type: string) => ({ name, title: name.split('.')[1], type });

export const META: MetaEntry[] = [
  {
    name: SALES,
    title: 'Sales',
    measures: [member(`${SALES}.count`, 'number'), member(`${SALES}.amount`, 'number'), member(`${SALES}.quantity`, 'number')],
    dimensions: [member(`${SALES}.city`, 'string'), member(`${SALES}.created`, 'time'), member(`${SALES}.price`, 'number')],
  },
  {
    name: ORDERS,
    title: 'Orders',
    measures: [member(`${ORDERS}.count`, 'number'), member(`${ORDERS}.total`, 'number')],
    dimensions: [member(`${ORDERS}.region`, 'string'), member(`${ORDERS}.amount_band`, 'string'), member(`${ORDERS}.placed`, 'time')],
  },
];

export const SOURCES: ValidationSource[] = [
  { id: SALES_ID, name: 'Sales', servingRelation: SALES, enabled: true },
  { id: ORDERS_ID, name: 'Orders', servingRelation: ORDERS, enabled: false },
];

export const CONTEXT: ValidationContext = { sources: SOURCES, meta: META, foreignSourceIds: new Set([FOREIGN_ID]), now: new Date('2024-05-15T12:00:00Z') };

/** A widget on Sales that passes every rule; tests change one thing. */
export function widget(overrides: Record<string, unknown> = {}, query: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Revenue',
    dataSourceId: SALES_ID,
    chartType: 'line',
    queryConfig: {
      measures: [`${SALES}.amount`],
      timeDimensions: [{ dimension: `${SALES}.created`, granularity: 'day', dateRange: 'last 30 days' }],
      ...query,
    },
    ...overrides,
  };
}

export const validate = (widgets: unknown[], context: ValidationContext = CONTEXT) => validateWidgets({ widgets }, context);

/** The rule ids of a result's errors and warnings, for terse assertions. */
export function ruleIds(result: ReturnType<typeof validateWidgets>) {
  return { errors: result.errors.map((f) => f.ruleId), warnings: result.warnings.map((f) => f.ruleId) };
}
