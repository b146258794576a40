import { type FormEvent, useState } from 'react';
import { get, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { useApi } from '../../ui/use-api';
import { CHART_TYPES, GRANULARITIES, type MetaList, type SourceList, type ValidationResult, type Widget, type WidgetQuery } from './dashboard-api';

const TIME_RANGES = ['', 'today', 'last 7 days', 'last 30 days', 'last 90 days', 'this month', 'this year', 'last 12 months'];

interface Props {
  dashboardId: string;
  onAdded(widget: Widget): void;
  onCancel(): void;
}

/**
 * Adds a widget: a data source (GET /dashboards/data-sources), its measures,
 * dimensions and time dimension from the analytics metadata
 * (GET /dashboards/analytics/meta), a chart type and a title. The query is
 * checked by POST /dashboards/validate first, so a chart that cannot draw
 * (a pie of two measures, a line without time) is refused with the reason.
 */
export function AddWidgetForm({ dashboardId, onAdded, onCancel }: Props) {
  const sources = useApi('sources', (signal) => get<SourceList>('/dashboards/data-sources', { signal, query: { limit: 1000 } }));
  const meta = useApi('meta', (signal) => get<MetaList>('/dashboards/analytics/meta', { signal }));
  const [title, setTitle] = useState('');
  const [chartType, setChartType] = useState('bar');
  const [sourceId, setSourceId] = useState('');
  const [measures, setMeasures] = useState<string[]>([]);
  const [dimensions, setDimensions] = useState<string[]>([]);
  const [timeDimension, setTimeDimension] = useState('');
  const [granularity, setGranularity] = useState('day');
  const [timeRange, setTimeRange] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  const source = sources.data?.find((s) => s.id === sourceId);
  const entry = source ? meta.data?.find((m) => m.name === source.servingRelation) : undefined;
  const timeDims = entry?.dimensions.filter((d) => d.type === 'time') ?? [];
  const plainDims = entry?.dimensions.filter((d) => d.type !== 'time') ?? [];

  const pickSource = (id: string) => {
    setSourceId(id);
    setMeasures([]);
    setDimensions([]);
    setTimeDimension('');
  };
  const toggle = (list: string[], set: (l: string[]) => void, name: string, on: boolean) => set(on ? [...list, name] : list.filter((n) => n !== name));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const queryConfig: WidgetQuery = { measures, dimensions };
    // A stat card is one number: its time dimension only bounds it (CHART_TYPES), with no granularity.
    if (timeDimension) queryConfig.timeDimensions = [{ dimension: timeDimension, ...(chartType === 'stat-card' ? {} : { granularity }) }];
    if (timeRange) queryConfig.timeRange = { type: 'relative', value: timeRange };
    const body = { title: title.trim(), chartType, dataSourceId: sourceId, queryConfig };
    setSaving(true);
    setError(undefined);
    setProblems([]);
    try {
      const check = await post<ValidationResult>('/dashboards/validate', { widgets: [body] });
      if (!check.ok) {
        setProblems(check.errors.map((f) => f.message));
        return;
      }
      onAdded(await post<Widget>(`/dashboards/${dashboardId}/widgets`, body));
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="add-widget" onSubmit={(e) => void submit(e)} aria-labelledby="add-widget-heading">
      <h2 id="add-widget-heading">Add a widget</h2>
      <ErrorBox error={sources.error ?? meta.error ?? error} />
      <div className="form-row">
        <div className="field">
          <label htmlFor="widget-title">Title</label>
          <input id="widget-title" required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="widget-chart-type">Chart type</label>
          <select id="widget-chart-type" value={chartType} onChange={(e) => setChartType(e.target.value)}>
            {CHART_TYPES.map((c) => (
              <option key={c.name} value={c.name}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="widget-source">Data source</label>
          <select id="widget-source" required value={sourceId} onChange={(e) => pickSource(e.target.value)}>
            <option value="">{sources.loading ? 'Loading…' : 'Choose a data source'}</option>
            {sources.data?.map((s) => (
              <option key={s.id} value={s.id} disabled={!s.enabled}>
                {s.name}
                {s.enabled ? '' : ' (disabled)'}
              </option>
            ))}
          </select>
        </div>
      </div>
      {source && !entry && !meta.loading && <p className="muted">This source has no analytics fields yet (no records were synced).</p>}
      {entry && (
        <div className="form-row">
          <fieldset>
            <legend>Measures</legend>
            {entry.measures.map((m) => (
              <label key={m.name} className="check">
                <input type="checkbox" checked={measures.includes(m.name)} onChange={(e) => toggle(measures, setMeasures, m.name, e.target.checked)} />
                {m.title}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Group by</legend>
            {plainDims.length === 0 && <p className="muted">No dimensions</p>}
            {plainDims.map((d) => (
              <label key={d.name} className="check">
                <input type="checkbox" checked={dimensions.includes(d.name)} onChange={(e) => toggle(dimensions, setDimensions, d.name, e.target.checked)} />
                {d.title}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Time</legend>
            <div className="field">
              <label htmlFor="widget-time-dimension">Time dimension</label>
              <select id="widget-time-dimension" value={timeDimension} onChange={(e) => setTimeDimension(e.target.value)}>
                <option value="">None</option>
                {timeDims.map((d) => (
                  <option key={d.name} value={d.name}>
                    {d.title}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="widget-granularity">Granularity</label>
              <select
                id="widget-granularity"
                value={granularity}
                disabled={!timeDimension || chartType === 'stat-card'}
                onChange={(e) => setGranularity(e.target.value)}
              >
                {GRANULARITIES.map((g) => (
                  <option key={g} value={g}>
                    {g}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="widget-time-range">Time range</label>
              <select id="widget-time-range" value={timeRange} onChange={(e) => setTimeRange(e.target.value)}>
                {TIME_RANGES.map((r) => (
                  <option key={r} value={r}>
                    {r || 'All time'}
                  </option>
                ))}
              </select>
            </div>
          </fieldset>
        </div>
      )}
      {problems.length > 0 && (
        <div role="alert" className="error-box">
          <p>This widget cannot be drawn as it stands:</p>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving || !entry}>
          {saving ? 'Saving…' : 'Save widget'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
