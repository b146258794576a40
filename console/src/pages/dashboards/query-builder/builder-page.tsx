import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { download, get, patch, post } from '../../../api/client';
import { useSession } from '../../../session/session';
import { ErrorBox } from '../../../ui/error-box';
import { Page } from '../../../ui/page';
import { useApi } from '../../../ui/use-api';
import type { Dashboard, MetaList, SourceList, ValidationResult, Widget } from '../dashboard-api';
import { browserTimeZone } from '../dashboard-params';
import { ChartTypePicker, DisplaySettings } from './chart-settings';
import { MemberPickers, OrderAndLimit, TimePicker } from './field-pickers';
import { FiltersEditor } from './filters-editor';
import { Preview } from './preview';
import {
  type BuilderState,
  chartProblems,
  emptyState,
  fromWidget,
  isBuilderChart,
  keptParts,
  queryProblems,
  toDisplayConfig,
  toQueryConfig,
  withSource,
} from './query-state';
import './query-builder.css';

/** Back to the dashboard in edit mode: the builder is opened from it (Add widget, a tile's Edit), and a new widget lands at the bottom, to be placed. */
const dashboardAddress = (id: string) => `/dashboards/${id}?edit=1`;

/**
 * /console/dashboards/:id/widgets/new and /console/dashboards/:id/widgets/:widgetId/edit: the query builder.
 * Reads the dashboard (its widgets, its zone), the organization's sources and their analytics metadata, then
 * opens the builder on a new query or on the widget's own queryConfig and displayConfig.
 */
export default function QueryBuilderPage() {
  const { id = '', widgetId } = useParams();
  const { can } = useSession();
  const dashboard = useApi(`builder-dashboard:${id}`, (signal) => get<Dashboard>(`/dashboards/${id}`, { signal }));
  const sources = useApi('builder-sources', (signal) => get<SourceList>('/dashboards/data-sources', { signal, query: { limit: 1000 } }));
  const meta = useApi('builder-meta', (signal) => get<MetaList>('/dashboards/analytics/meta', { signal }));
  const title = widgetId ? 'Edit widget' : 'Add a widget';
  const back = <Link to={dashboardAddress(id)}>{dashboard.data?.name ?? 'Back to the dashboard'}</Link>;

  const error = dashboard.error ?? sources.error ?? meta.error;
  if (error || !dashboard.data || !sources.data || !meta.data) {
    return (
      <Page title={title} subtitle={back}>
        {error ? <ErrorBox error={error} /> : <p className="page-status">Loading…</p>}
      </Page>
    );
  }
  if (!can('dashboards:admin')) {
    return (
      <Page title={title} subtitle={back}>
        <p>Your role cannot add or change widgets: that needs the dashboards:admin permission.</p>
      </Page>
    );
  }
  if (sources.data.length === 0) {
    return (
      <Page title={title} subtitle={back}>
        <p>
          There are no data sources yet: a widget charts one. <Link to="/data/sources/new">Create a data source</Link>, then come back.
        </p>
      </Page>
    );
  }
  const widget = widgetId ? dashboard.data.widgets?.find((w) => w.id === widgetId) : undefined;
  if (widgetId && !widget) {
    return (
      <Page title={title} subtitle={back}>
        <ErrorBox error={new Error('This dashboard has no such widget: it may have been deleted.')} />
      </Page>
    );
  }
  if (widget && !isBuilderChart(widget.chartType)) {
    return (
      <Page title={title} subtitle={back}>
        <p>A {widget.chartType} widget has no query to build: change it on the dashboard.</p>
      </Page>
    );
  }
  return (
    <Page title={widget ? `Edit widget: ${widget.title}` : title} subtitle={back}>
      <Builder
        key={widget?.id ?? 'new'}
        dashboard={dashboard.data}
        widget={widget}
        sources={sources.data}
        meta={meta.data}
        timeZone={dashboard.data.timezone ?? browserTimeZone()}
      />
    </Page>
  );
}

interface BuilderProps {
  dashboard: Dashboard;
  widget: Widget | undefined;
  sources: SourceList;
  meta: MetaList;
  timeZone: string;
}

function Builder({ dashboard, widget, sources, meta, timeZone }: BuilderProps) {
  const navigate = useNavigate();
  const [state, setState] = useState<BuilderState>(() => {
    if (widget) return fromWidget(widget);
    // One source: it is the choice. The built-in run sources every organization has do not count against the one it made.
    const own = sources.filter((s) => !s.builtIn);
    const only = own.length === 1 ? own[0].id : sources.length === 1 ? sources[0].id : '';
    return only ? withSource(emptyState(), only) : emptyState();
  });
  const [saving, setSaving] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [saveError, setSaveError] = useState<unknown>();
  const [findings, setFindings] = useState<string[]>([]);

  const source = sources.find((s) => s.id === state.dataSourceId);
  const entry = source ? meta.find((m) => m.name === source.servingRelation) : undefined;
  const blockers = [...queryProblems(state), ...chartProblems(state.chartType, state)];
  if (!state.title.trim()) blockers.push('Give the widget a title');
  const kept = keptParts(state);

  const body = () => ({
    title: state.title.trim(),
    chartType: state.chartType,
    dataSourceId: state.dataSourceId,
    queryConfig: toQueryConfig(state),
    displayConfig: toDisplayConfig(state),
  });

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (blockers.length > 0) return;
    setSaving(true);
    setSaveError(undefined);
    setFindings([]);
    try {
      // The validate endpoint first: a field the source does not have saves without complaint, and then shows nothing.
      const check = await post<ValidationResult>('/dashboards/validate', { widgets: [body()] });
      if (!check.ok) {
        setFindings(check.errors.map((f) => f.message));
        return;
      }
      if (widget) await patch<Widget>(`/dashboards/widgets/${widget.id}`, body());
      else await post<Widget>(`/dashboards/${dashboard.id}/widgets`, body());
      navigate(dashboardAddress(dashboard.id));
    } catch (err) {
      setSaveError(err);
    } finally {
      setSaving(false);
    }
  };

  const exportCsv = async () => {
    setExporting(true);
    setSaveError(undefined);
    try {
      const title = state.title.trim() || 'export';
      await download('POST', '/dashboards/analytics/export-csv', { query: { ...toQueryConfig(state), timezone: timeZone }, title }, `${title}.csv`);
    } catch (err) {
      setSaveError(err);
    } finally {
      setExporting(false);
    }
  };

  return (
    <form className="qb" onSubmit={(e) => void save(e)} aria-label={widget ? 'Edit the widget' : 'Build a widget'} noValidate>
      <div className="qb-controls">
        <fieldset className="qb-group">
          <legend>Data</legend>
          <div className="field">
            <label htmlFor="qb-source">Data source</label>
            <select id="qb-source" value={state.dataSourceId} onChange={(e) => setState(withSource(state, e.target.value))}>
              <option value="">Choose a data source</option>
              {sources.map((s) => (
                <option key={s.id} value={s.id} disabled={!s.enabled && s.id !== state.dataSourceId}>
                  {s.name}
                  {s.enabled ? '' : ' (disabled)'}
                </option>
              ))}
              {state.dataSourceId && !source && <option value={state.dataSourceId}>A source that no longer exists</option>}
            </select>
          </div>
          {source && !entry && <p className="muted">This source has no analytics fields yet (no records were synced).</p>}
          <p className="help">
            No source for this? <Link to="/data/sources/new">Create a data source</Link>
          </p>
        </fieldset>
        {entry && (
          <>
            <MemberPickers state={state} meta={entry} onChange={setState} />
            <TimePicker state={state} meta={entry} onChange={setState} />
            <FiltersEditor state={state} meta={entry} onChange={setState} />
            <OrderAndLimit state={state} meta={entry} onChange={setState} />
          </>
        )}
        <ChartTypePicker state={state} onChange={setState} />
        <DisplaySettings state={state} onChange={setState} />
        {kept.length > 0 && <p className="help">This widget&apos;s query also has {kept.join(', ')}: the builder keeps them as they are.</p>}
      </div>
      <div className="qb-side">
        <Preview state={state} alias={source?.servingRelation} timeZone={timeZone} />
        <div className="qb-actions">
          {findings.length > 0 && (
            <div role="alert" className="error-box">
              <p>The API cannot save this widget as it stands:</p>
              <ul>
                {findings.map((f, i) => (
                  <li key={i}>{f}</li>
                ))}
              </ul>
            </div>
          )}
          <ErrorBox error={saveError} />
          {blockers.length > 0 && (
            <p className="help" id="qb-save-blockers">
              To save: {blockers.join('; ')}.
            </p>
          )}
          <div className="form-actions">
            <button
              type="submit"
              className="primary"
              disabled={saving || blockers.length > 0}
              aria-describedby={blockers.length > 0 ? 'qb-save-blockers' : undefined}
            >
              {saving ? 'Saving…' : widget ? 'Save changes' : 'Save widget'}
            </button>
            <button type="button" onClick={() => void exportCsv()} disabled={exporting || queryProblems(state).length > 0}>
              {exporting ? 'Exporting…' : 'Export CSV'}
            </button>
            <Link className="button" to={dashboardAddress(dashboard.id)}>
              Cancel
            </Link>
          </div>
        </div>
      </div>
    </form>
  );
}
