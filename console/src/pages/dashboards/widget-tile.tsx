import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { widgetView, type WidgetView } from '@charts/index';
import { tileMarkdown } from '@charts/markdown';
import { chartTypeLabel, isTextWidget, sourceAlias, type Widget, type WidgetEntry } from './dashboard-api';
import { EChart } from './echart';
import { RowsTable } from './rows-table';
import { TextBody } from './text-tile';

/** A dashboard filter that narrows this tile, and the values it applies now (none: every value). */
export interface TileFilter {
  id: string;
  label: string;
  values: string[];
}

interface Props {
  widget: Widget;
  /** The widget's entry of the data call; undefined while it loads. */
  entry: WidgetEntry | undefined;
  /** The zone the data ran in: time labels are written in it. */
  timeZone: string;
  /** What POST /dashboards/validate found wrong with the widget (did-you-mean hints), for tiles that came back empty or failed. */
  hints: string[];
  /** The dashboard filters over the widget's source (a filter leaves widgets over other sources alone). */
  filters: TileFilter[];
  editing: boolean;
  onExportCsv(): Promise<void>;
  onDelete(): Promise<void>;
  /** A text tile's "Edit text": the page opens its editor. */
  onEditText(): void;
}

/**
 * One widget on the grid: its title, the filters that apply to it, its chart (or number, table, empty or error
 * state; or a text tile's Markdown) and its actions. In edit mode a chart links to the query builder
 * (`widgets/<id>/edit` under the dashboard's address) and a text tile opens its text editor.
 */
export function WidgetTile({ widget, entry, timeZone, hints, filters, editing, onExportCsv, onDelete, onEditText }: Props) {
  const text = isTextWidget(widget);
  const view = useMemo(
    () => (entry && !text ? widgetView({ ...widget, queryConfig: widget.queryConfig ?? {} }, entry, { timeZone, locale: navigator.language }) : undefined),
    [widget, entry, timeZone, text],
  );
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string>();
  const titleId = `widget-title-${widget.id}`;

  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setActionError(undefined);
    try {
      await action();
    } catch (err) {
      setActionError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article
      className={`tile tile-${widget.chartType}`}
      aria-labelledby={titleId}
      data-widget-id={widget.id}
      data-widget-state={text ? 'text' : (view?.kind ?? 'loading')}
    >
      <header className="tile-header">
        {editing && (
          <span className="tile-drag-handle" title="Drag to move" aria-hidden="true">
            ⠿
          </span>
        )}
        <h2 id={titleId} className="tile-title" title={widget.title}>
          {widget.title}
        </h2>
        <div className="tile-actions">
          {confirming ? (
            <>
              <span className="tile-confirm">Delete this widget?</span>
              <button type="button" className="danger small" disabled={busy} onClick={() => void act(onDelete)}>
                Delete
              </button>
              <button type="button" className="small" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <>
              {!text && (
                <button
                  type="button"
                  className="small"
                  disabled={busy || !entry}
                  onClick={() => void act(onExportCsv)}
                  aria-label={`Export ${widget.title} as CSV`}
                >
                  CSV
                </button>
              )}
              {editing &&
                (text ? (
                  <button type="button" className="small" onClick={onEditText} aria-label={`Edit text of ${widget.title}`}>
                    Edit text
                  </button>
                ) : (
                  <Link className="button small" to={`widgets/${widget.id}/edit`} aria-label={`Edit ${widget.title}`}>
                    Edit
                  </Link>
                ))}
              {editing && (
                <button type="button" className="small danger" onClick={() => setConfirming(true)} aria-label={`Delete ${widget.title}`}>
                  Delete
                </button>
              )}
            </>
          )}
        </div>
      </header>
      {actionError && (
        <p role="alert" className="tile-action-error">
          {actionError}
        </p>
      )}
      {filters.length > 0 && (
        <ul className="tile-filters" aria-label={`Dashboard filters on ${widget.title}`}>
          {filters.map((f) => (
            <li key={f.id}>
              {f.label}: {f.values.length > 0 ? f.values.join(', ') : 'all'}
            </li>
          ))}
        </ul>
      )}
      <div className="tile-body">
        {text ? <TextBody markdown={tileMarkdown(widget.displayConfig)} label={widget.title} /> : <TileBody view={view} widget={widget} hints={hints} />}
      </div>
    </article>
  );
}

function TileBody({ view, widget, hints: fullHints }: { view: WidgetView | undefined; widget: Widget; hints: string[] }) {
  // Fields of the widget's own source read as their plain names: `amount`, not `ds_<source id>.amount`.
  const own = (text: string) => (widget.dataSourceId ? text.split(`${sourceAlias(widget.dataSourceId)}.`).join('') : text);
  const hints = fullHints.map(own);
  const label = `${widget.title} (${chartTypeLabel(widget.chartType).toLowerCase()} chart)`;
  if (!view) return <p className="tile-status muted">Loading…</p>;
  switch (view.kind) {
    case 'chart':
      return <EChart option={view.option} label={label} />;
    case 'stat':
      return (
        <div className="stat" role="group" aria-label={label}>
          <p className="stat-value">{view.text}</p>
          <p className="stat-label">{view.label}</p>
          <Hints hints={hints} />
        </div>
      );
    case 'table':
      return <RowsTable view={view} label={label} />;
    case 'empty':
      return (
        <div className="tile-status" tabIndex={0}>
          <p className="muted">{own(view.message)}</p>
          <Hints hints={hints} />
        </div>
      );
    case 'error':
      return (
        <div className="tile-status tile-error" role="alert" tabIndex={0}>
          <p>{own(view.message)}</p>
          <Hints hints={hints} />
        </div>
      );
  }
}

function Hints({ hints }: { hints: string[] }) {
  if (hints.length === 0) return null;
  return (
    <ul className="tile-hints" aria-label="What to fix">
      {hints.map((h, i) => (
        <li key={i}>{h}</li>
      ))}
    </ul>
  );
}
