import { useMemo } from 'react';
import { type ChartResult, widgetView } from '@charts/index';
import { ApiError, post } from '../../../api/client';
import { ErrorBox } from '../../../ui/error-box';
import { useApi } from '../../../ui/use-api';
import { EChart } from '../echart';
import { RowsTable } from '../rows-table';
import { type BuilderState, CHART_RULES, chartProblems, previewWidget, queryProblems, toQueryConfig } from './query-state';
import { useDebounced } from './use-debounced';

/** Rows the preview's table shows; the chart draws them all. */
const TABLE_ROWS = 100;
/** How long the query must stay unchanged before it runs: ticking boxes in a row runs one query. */
export const PREVIEW_DEBOUNCE_MS = 300;

interface Props {
  state: BuilderState;
  /** The source's alias (`ds_…`): its fields read as their plain names in the API's messages, as on the dashboard's tiles. */
  alias: string | undefined;
  /** The zone the dashboard's widgets run in: the preview's rows and time labels are those the tile will show. */
  timeZone: string;
}

type Answer = ChartResult & { data: Array<Record<string, unknown>> };

/**
 * The live preview: the query as it stands, run (debounced) through POST /dashboards/analytics/query, drawn as
 * the chosen chart by the shared chart module (the same widgetView and EChart the dashboard's tiles use) and as a
 * table. `data-state` says `pending` from a change until its answer is drawn (bench:console and the tests wait on it).
 */
export function Preview({ state, alias, timeZone }: Props) {
  const problems = queryProblems(state);
  const query = useMemo(() => ({ ...toQueryConfig(state), timezone: timeZone }), [state, timeZone]);
  const key = problems.length === 0 ? JSON.stringify(query) : null;
  const settled = useDebounced(key, PREVIEW_DEBOUNCE_MS);
  const answer = useApi(settled, async (signal) => {
    const sent = JSON.parse(settled!) as typeof query;
    const result = await post<Answer>('/dashboards/analytics/query', { query: sent }, { signal });
    return { sent, result };
  });
  const pending = key !== null && (settled !== key || answer.loading);
  const current = key !== null && !pending;

  // Drawn from the query that answered, with the chart type and display settings as they are now (they need no query).
  const widget = useMemo(() => {
    const w = previewWidget(state);
    return answer.data ? { ...w, queryConfig: answer.data.sent } : w;
  }, [state, answer.data]);
  const opts = useMemo(() => ({ timeZone, locale: navigator.language }), [timeZone]);
  const result = answer.data?.result;
  const chart = useMemo(() => (result ? widgetView(widget, result, opts) : undefined), [widget, result, opts]);
  const table = useMemo(() => (result ? widgetView({ ...widget, chartType: 'table' }, result, opts) : undefined), [widget, result, opts]);
  const chartProblemsNow = chartProblems(state.chartType, state);
  const label = `${state.title || 'Preview'} (${CHART_RULES[state.chartType].label.toLowerCase()} chart)`;
  const error = current ? plainNames(answer.error, alias) : undefined;
  const dataState = key === null ? 'incomplete' : pending ? 'pending' : error ? 'error' : 'ready';

  return (
    <section className="qb-preview" aria-labelledby="qb-preview-heading" data-state={dataState} aria-busy={pending}>
      <div className="qb-preview-header">
        <h2 id="qb-preview-heading">Preview</h2>
        <p className="muted" role="status">
          {key === null ? '' : pending ? 'Updating…' : error ? 'The query was refused' : result ? `${result.data.length.toLocaleString()} rows` : ''}
        </p>
      </div>
      {problems.length > 0 && (
        <div className="qb-preview-empty">
          <p>The preview runs once the query can be sent:</p>
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {error ? <ErrorBox error={error} /> : null}
      {key !== null && !error && result && (
        <>
          <div className="qb-chart">
            {chartProblemsNow.length > 0 ? (
              <div className="tile-status tile-error" role="alert">
                <p>This query cannot be drawn as a {CHART_RULES[state.chartType].label.toLowerCase()} chart:</p>
                <ul>
                  {chartProblemsNow.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              </div>
            ) : (
              <ChartView view={chart} label={label} />
            )}
          </div>
          {table?.kind === 'table' && <RowsTable view={table} label="Preview rows" className="qb-table" maxRows={TABLE_ROWS} />}
          {table?.kind === 'empty' && <p className="muted">{table.message}</p>}
        </>
      )}
    </section>
  );
}

/** An API error with `ds_….amount` written `amount`, as the dashboard's tiles write their own source's fields. */
function plainNames(error: unknown, alias: string | undefined): unknown {
  if (!(error instanceof ApiError) || !alias) return error;
  const own = (text: string) => text.split(`${alias}.`).join('');
  return new ApiError(
    error.status,
    error.code,
    own(error.message),
    error.details.map((d) => ({ ...d, message: own(d.message) })),
    error.requestId,
  );
}

function ChartView({ view, label }: { view: ReturnType<typeof widgetView> | undefined; label: string }) {
  if (!view) return null;
  switch (view.kind) {
    case 'chart':
      return <EChart option={view.option} label={label} />;
    case 'stat':
      return (
        <div className="stat" role="group" aria-label={label}>
          <p className="stat-value">{view.text}</p>
          <p className="stat-label">{view.label}</p>
        </div>
      );
    case 'table':
      return <p className="muted qb-chart-note">A table widget shows the rows below.</p>;
    case 'empty':
      return <p className="muted qb-chart-note">{view.message}</p>;
    case 'error':
      return (
        <p className="tile-error qb-chart-note" role="alert">
          {view.message}
        </p>
      );
  }
}
