import type { Filter } from '../analytics/analytics.schemas';
import type { FieldIssue } from '../errors/errors';
import type { FilterConfigItem, FilterDefaults } from './dashboards.schemas';

/**
 * A dashboard's filter controls: each is `equals` on one field of one data
 * source, applied to the widgets over that source. Values come from the
 * viewer (the widget data calls) or else from the dashboard's defaults.
 */

/** Keys of `values` that are not filter ids of the dashboard, each named at `<prefix>.<key>`. */
export function unknownFilterKeys(values: FilterDefaults, filters: readonly FilterConfigItem[], prefix: string): FieldIssue[] {
  const ids = new Set(filters.map((f) => f.id));
  const known = filters.length === 0 ? 'this dashboard has no filters' : `its filters are ${[...ids].map((id) => `"${id}"`).join(', ')}`;
  return Object.keys(values)
    .filter((key) => !ids.has(key))
    .map((key) => ({ path: `${prefix}.${key}`, message: `"${key}" is not the id of a filter of this dashboard (${known})` }));
}

/** The defaults that still have their filter: a filter taken out of the dashboard takes its default with it. */
export function defaultsOfFilters(defaults: FilterDefaults, filters: readonly FilterConfigItem[]): FilterDefaults {
  const ids = new Set(filters.map((f) => f.id));
  return Object.fromEntries(Object.entries(defaults).filter(([key]) => ids.has(key)));
}

/** A dashboard filter added to a widget's query: its id, whether the caller chose its values (else they are the default), and the filter. */
export interface AppliedFilter {
  id: string;
  chosen: boolean;
  filter: Filter;
}

/**
 * The `equals` filters the dashboard's filter controls add to a widget over
 * the source `dataSourceId` (whose fields are named `<alias>.<field>`): one per
 * filter over that source that has values, the caller's when given for it
 * (an empty list clears it), else the default. Filters over other sources
 * leave the widget alone.
 */
export function appliedDashboardFilters(
  dataSourceId: string,
  alias: string,
  filters: readonly FilterConfigItem[],
  defaults: FilterDefaults,
  chosen: FilterDefaults = {},
): AppliedFilter[] {
  return filters
    .filter((f) => f.dataSourceId === dataSourceId)
    .flatMap((f) => {
      const own = Object.hasOwn(chosen, f.id);
      const values = own ? chosen[f.id] : (defaults[f.id] ?? []);
      if (values.length === 0) return [];
      const member = f.dimension.includes('.') ? f.dimension : `${alias}.${f.dimension}`;
      return [{ id: f.id, chosen: own, filter: { member, operator: 'equals', values: [...values] } }];
    });
}
