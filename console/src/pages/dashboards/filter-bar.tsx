import { post } from '../../api/client';
import { useApi } from '../../ui/use-api';
import type { Dashboard, DistinctValues, FilterConfigItem } from './dashboard-api';
import { browserTimeZone, type DashboardParams, zoneChoices } from './dashboard-params';

const DEFAULT = '\u0000default';
const ALL = '\u0000all';

/**
 * The dashboard's filter controls (each `equals` on one field of one source) and the time zone switch. A dashboard
 * with a fixed zone shows it to everyone; an editor changes it (`onChangeZone` opens the dashboard's settings).
 */
export function FilterBar({ dashboard, params, onChangeZone }: { dashboard: Dashboard; params: DashboardParams; onChangeZone?: () => void }) {
  const fixedZone = dashboard.timezone;
  const zone = fixedZone ?? params.timeZone ?? browserTimeZone();
  return (
    <div className="filters dashboard-filters" role="search" aria-label="Dashboard filters">
      {dashboard.filterConfig.map((filter) => (
        <FilterControl
          key={filter.id}
          filter={filter}
          defaults={dashboard.filterDefaults[filter.id] ?? []}
          chosen={params.chosen[filter.id]}
          onChange={(values) => params.setFilter(filter.id, values)}
        />
      ))}
      <div>
        <label htmlFor="dashboard-time-zone">Time zone</label>
        <select
          id="dashboard-time-zone"
          value={zone}
          disabled={fixedZone !== null}
          aria-describedby={fixedZone !== null ? 'dashboard-time-zone-note' : undefined}
          onChange={(e) => params.setTimeZone(e.target.value === browserTimeZone() ? undefined : e.target.value)}
        >
          {zoneChoices(zone, browserTimeZone()).map((z) => (
            <option key={z} value={z}>
              {z === browserTimeZone() ? `${z} (this browser)` : z}
            </option>
          ))}
        </select>
      </div>
      {fixedZone !== null && (
        <p id="dashboard-time-zone-note" className="muted zone-note">
          This dashboard shows times in {fixedZone} for everyone.{' '}
          {onChangeZone && (
            <button type="button" className="small" onClick={onChangeZone}>
              Change time zone
            </button>
          )}
        </p>
      )}
    </div>
  );
}

interface ControlProps {
  filter: FilterConfigItem;
  defaults: string[];
  /** The viewer's values; undefined: the default applies. */
  chosen: string[] | undefined;
  onChange(values: string[] | undefined): void;
}

/** One filter: the values its field holds (POST /dashboards/analytics/distinct-values), "All", and the default when there is one. */
function FilterControl({ filter, defaults, chosen, onChange }: ControlProps) {
  const options = useApi(`${filter.dataSourceId}|${filter.dimension}`, (signal) =>
    post<DistinctValues>('/dashboards/analytics/distinct-values', { dataSourceId: filter.dataSourceId, dimension: filter.dimension, limit: 500 }, { signal }),
  );
  const id = `dashboard-filter-${filter.id}`;
  const current = chosen === undefined ? DEFAULT : chosen.length === 0 ? ALL : chosen.join('\u0001');
  const values = options.data?.values ?? [];
  // A value in the URL that the field no longer holds (or several at once) stays selectable, so the control shows what is applied.
  const extra = chosen && chosen.length > 0 && !(chosen.length === 1 && values.includes(chosen[0])) ? [chosen] : [];

  const change = (value: string) => {
    if (value === DEFAULT) onChange(undefined);
    else if (value === ALL) onChange([]);
    else onChange(value.split('\u0001'));
  };

  return (
    <div>
      <label htmlFor={id}>{filter.label || filter.dimension}</label>
      <select id={id} value={current} onChange={(e) => change(e.target.value)} aria-busy={options.loading}>
        {defaults.length > 0 ? <option value={DEFAULT}>Default: {defaults.join(', ')}</option> : <option value={DEFAULT}>All</option>}
        {defaults.length > 0 && <option value={ALL}>All</option>}
        {extra.map((v) => (
          <option key={v.join('\u0001')} value={v.join('\u0001')}>
            {v.join(', ')}
          </option>
        ))}
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
      {options.error !== undefined && <span className="error">Values could not be loaded</span>}
    </div>
  );
}
