import { useCallback, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { del, download, patch, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { type Dashboard, filtersOfWidget, type LayoutItem, TEXT_CHART_TYPE, type ValidationResult, type Widget } from './dashboard-api';
import { DashboardGrid } from './dashboard-grid';
import { browserTimeZone, useDashboardParams } from './dashboard-params';
import { loadDashboard, loadDashboardData } from './dashboard-prefetch';
import { DashboardSettings } from './dashboard-settings';
import { FilterBar } from './filter-bar';
import { FilterEditor } from './filter-editor';
import { TextTileEditor } from './text-tile';
import { WidgetTile } from './widget-tile';

const sameLayout = (a: LayoutItem[], b: LayoutItem[]) =>
  a.length === b.length &&
  a.every((item) => b.some((o) => o.widgetId === item.widgetId && o.x === item.x && o.y === item.y && o.w === item.w && o.h === item.h));

/** What the page has open above the grid: the settings, or the editor of a new or existing text tile. */
type Panel = { kind: 'settings' } | { kind: 'text'; widget?: Widget } | undefined;

/**
 * One dashboard: its filters and time zone (in the URL), its widgets on the
 * grid drawn from one POST /dashboards/{id}/data call, and for
 * dashboards:admin its settings (name, description, default, zone, deletion)
 * and an edit mode that moves, resizes and deletes tiles, edits the filters,
 * adds and writes text tiles, and links to the query builder for charts.
 */
export default function DashboardPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const admin = can('dashboards:admin');
  const params = useDashboardParams();
  const editing = admin && params.editing;
  const [panel, setPanel] = useState<Panel>();
  const [pdfStatus, setPdfStatus] = useState('');
  const [override, setOverride] = useState<{ basedOn: string; layout: LayoutItem[] }>();
  const [layoutError, setLayoutError] = useState<unknown>();
  const [pdfError, setPdfError] = useState<unknown>();
  const [exporting, setExporting] = useState(false);

  const dashboard = useApi(`dashboard:${id}`, (signal) => loadDashboard(id, signal));
  const d = dashboard.data?.id === id ? dashboard.data : undefined;
  const widgets = useMemo(() => d?.widgets ?? [], [d]);

  // Only filters the dashboard has: a stale `filter.<id>` in the URL would make the API refuse the whole call.
  const filters = useMemo(
    () => Object.fromEntries(Object.entries(params.chosen).filter(([key]) => d?.filterConfig.some((f) => f.id === key))),
    [params.chosen, d],
  );
  const viewerZone = params.timeZone ?? browserTimeZone();
  const dataBody = useMemo(() => ({ filters, timezone: viewerZone }), [filters, viewerZone]);
  // Runs again when the filters (the viewer's, or the dashboard's own and their defaults), the zone (the viewer's or the
  // dashboard's) or the widgets change; not when the layout, the name or the description does.
  const dataKey = d
    ? [
        id,
        JSON.stringify(dataBody),
        widgets.map((w) => `${w.id}@${w.updatedAt}`).join(),
        JSON.stringify(d.filterConfig),
        JSON.stringify(d.filterDefaults),
        d.timezone ?? '',
      ].join('|')
    : null;
  const data = useApi(dataKey, (signal) => loadDashboardData(id, dataBody, signal));
  const entries = useMemo(() => new Map((data.data?.widgets ?? []).map((e) => [e.widgetId, e])), [data.data]);

  // Widgets that failed or came back empty are checked by the validate endpoint: its did-you-mean hints say what to fix.
  const suspects = useMemo(
    () =>
      data.loading
        ? []
        : widgets.filter((w) => {
            const e = entries.get(w.id);
            return e && ('error' in e || e.data.length === 0 || (e.unknownMembers?.length ?? 0) > 0);
          }),
    [widgets, entries, data.loading],
  );
  const validation = useApi(suspects.length > 0 ? `validate|${dataKey}|${suspects.map((w) => w.id).join()}` : null, (signal) =>
    post<ValidationResult>(
      '/dashboards/validate',
      {
        widgets: suspects.map((w) => ({
          title: w.title,
          chartType: w.chartType,
          dataSourceId: w.dataSourceId,
          queryConfig: w.queryConfig,
          displayConfig: w.displayConfig,
        })),
      },
      { signal },
    ),
  );
  const hintsOf = (widgetId: string): string[] => {
    const index = suspects.findIndex((w) => w.id === widgetId);
    if (index < 0 || !validation.data) return [];
    return validation.data.errors.filter((f) => f.widget === index).map((f) => f.message);
  };

  const layout = useMemo(() => (d ? (override && override.basedOn === d.updatedAt ? override.layout : d.layout) : []), [d, override]);
  const { reload } = dashboard;
  const saveLayout = useCallback(
    async (next: LayoutItem[]) => {
      if (!d || sameLayout(next, layout)) return;
      setOverride({ basedOn: d.updatedAt, layout: next });
      setLayoutError(undefined);
      try {
        await patch<Dashboard>(`/dashboards/${id}/layout`, { layout: next });
        reload();
      } catch (err) {
        // Back to the stored layout: the grid shows what the dashboard holds, with the API's reason above it.
        setOverride(undefined);
        setLayoutError(err);
      }
    },
    [d, layout, id, reload],
  );

  // The server runs every widget and draws the PDF: a few seconds, said on the button and to assistive technology.
  const exportPdf = async () => {
    setExporting(true);
    setPdfError(undefined);
    setPdfStatus('Preparing the PDF: the widgets run again and are drawn, which takes a few seconds…');
    try {
      await download('POST', `/dashboards/${id}/report.pdf`, dataBody, `${d?.name ?? 'dashboard'}.pdf`);
      setPdfStatus('The PDF is ready and was downloaded.');
    } catch (err) {
      setPdfError(err);
      setPdfStatus('The PDF could not be made.');
    } finally {
      setExporting(false);
    }
  };

  const saveText = async (widget: Widget | undefined, value: { title: string; markdown: string }) => {
    if (widget) {
      await patch(`/dashboards/widgets/${widget.id}`, { title: value.title, displayConfig: { ...widget.displayConfig, markdown: value.markdown } });
    } else {
      await post(`/dashboards/${id}/widgets`, { title: value.title, chartType: TEXT_CHART_TYPE, displayConfig: { markdown: value.markdown } });
    }
    setPanel(undefined);
    reload();
  };

  if (!d) {
    return (
      <Page title="Dashboard">
        {dashboard.error ? <ErrorBox error={dashboard.error} /> : <p className="page-status">Loading…</p>}
        <Link to="/dashboards">All dashboards</Link>
      </Page>
    );
  }

  const zone = data.data?.timezone ?? d.timezone ?? viewerZone;
  const byId = new Map(widgets.map((w) => [w.id, w]));
  const offGrid = widgets.filter((w) => !layout.some((l) => l.widgetId === w.id));
  const bottom = layout.reduce((b, l) => Math.max(b, l.y + l.h), 0);

  const actions = (
    <>
      <button type="button" onClick={() => void exportPdf()} disabled={exporting} aria-busy={exporting} aria-describedby="dashboard-pdf-status">
        {exporting ? 'Preparing PDF…' : 'Export PDF'}
      </button>
      {admin && (
        <button
          type="button"
          onClick={() => setPanel(panel?.kind === 'settings' ? undefined : { kind: 'settings' })}
          aria-expanded={panel?.kind === 'settings'}
        >
          Settings
        </button>
      )}
      {admin &&
        (editing ? (
          <>
            {/* The query builder, relative to this dashboard's address: /console/dashboards/<id>/widgets/new. */}
            <Link className="button" to="widgets/new">
              Add widget
            </Link>
            <button type="button" onClick={() => setPanel({ kind: 'text' })} disabled={panel?.kind === 'text'}>
              Add text
            </button>
            <button type="button" className="primary" onClick={() => params.setEditing(false)}>
              Done editing
            </button>
          </>
        ) : (
          <button type="button" onClick={() => params.setEditing(true)}>
            Edit dashboard
          </button>
        ))}
    </>
  );

  return (
    <Page
      title={d.name}
      subtitle={
        <>
          <Link to="/dashboards">Dashboards</Link>
          {d.description && <> · {d.description}</>}
          {d.isDefault && <span className="badge ok">Default</span>}
        </>
      }
      actions={actions}
    >
      {admin && panel?.kind === 'settings' && <DashboardSettings key={d.updatedAt} dashboard={d} onSaved={reload} onClose={() => setPanel(undefined)} />}
      <FilterBar dashboard={d} params={params} onChangeZone={admin ? () => setPanel({ kind: 'settings' }) : undefined} />
      <p id="dashboard-pdf-status" role="status" aria-live="polite" className="pdf-status muted">
        {pdfStatus}
      </p>
      <ErrorBox error={data.error ?? layoutError ?? pdfError} />
      {editing && <FilterEditor dashboard={d} onSaved={reload} />}
      {editing && <p className="edit-help muted">Drag a tile by its ⠿ handle, resize it from its lower right corner; changes are saved as you make them.</p>}
      {editing && panel?.kind === 'text' && (
        <TextTileEditor
          key={panel.widget?.id ?? 'new'}
          heading={panel.widget ? `Edit text of ${panel.widget.title}` : 'Add text'}
          initialTitle={panel.widget?.title ?? 'Notes'}
          initialMarkdown={typeof panel.widget?.displayConfig.markdown === 'string' ? panel.widget.displayConfig.markdown : ''}
          saveLabel={panel.widget ? 'Save text' : 'Add text tile'}
          onSave={(value) => saveText(panel.widget, value)}
          onCancel={() => setPanel(undefined)}
        />
      )}
      {widgets.length === 0 ? (
        <div className="empty-state">
          <p>This dashboard has no widgets yet.</p>
          {admin && !editing && (
            <button type="button" className="primary" onClick={() => params.setEditing(true)}>
              Edit dashboard to add one
            </button>
          )}
        </div>
      ) : (
        <DashboardGrid
          layout={layout}
          editing={editing}
          busy={data.loading}
          onLayoutDone={(next) => void saveLayout(next)}
          tile={(widgetId) => {
            const widget = byId.get(widgetId)!;
            // What each filter over the widget's source applies now: the viewer's values, else the default (none: all).
            const tileFilters = filtersOfWidget(d.filterConfig, widget).map((f) => ({
              id: f.id,
              label: f.label || f.dimension,
              values: filters[f.id] ?? d.filterDefaults[f.id] ?? [],
            }));
            return (
              <WidgetTile
                widget={widget}
                entry={entries.get(widgetId)}
                timeZone={zone}
                hints={hintsOf(widgetId)}
                filters={tileFilters}
                editing={editing}
                onEditText={() => setPanel({ kind: 'text', widget })}
                // The server runs the widget's query exactly as the data call did (same body): the file and the tile agree.
                onExportCsv={() => download('POST', `/dashboards/widgets/${widget.id}/export-csv`, dataBody, `${widget.title}.csv`)}
                onDelete={async () => {
                  await del(`/dashboards/widgets/${widgetId}`);
                  reload();
                }}
              />
            );
          }}
        />
      )}
      {editing && offGrid.length > 0 && (
        <section className="off-grid" aria-labelledby="off-grid-heading">
          <h2 id="off-grid-heading">Not on the grid</h2>
          <ul>
            {offGrid.map((w) => (
              <li key={w.id}>
                {w.title}{' '}
                <button type="button" className="small" onClick={() => void saveLayout([...layout, { widgetId: w.id, x: 0, y: bottom, w: 6, h: 4 }])}>
                  Place on the grid
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </Page>
  );
}
