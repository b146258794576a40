import { type MouseEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { get, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { formatDuration, formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { StatusBadge } from '../../ui/status-badge';
import { useApi, usePolling } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import {
  EXECUTION_MODES,
  EXECUTION_STATUSES,
  type ExecutionList,
  type ExecutionListItem,
  type ScheduleTriggerList,
  type WebhookTriggerList,
  type WorkflowList,
} from './run-model';
import { changeFilter, executionsQuery, FILTER_KEYS, readFilters, type FilterKey } from './run-filters';

const PAGE_SIZE = 25;
/** How often the list asks again while a shown run is still going (its status and duration change). */
const IN_FLIGHT_POLL_MS = 2000;
/** How often the first page asks again for new runs. */
const NEW_RUNS_POLL_MS = 5000;

/**
 * Runs, newest first, filtered by what the URL query says, kept current while the page is in view: the first page
 * asks again every 5 s with the current filters (a run that starts and matches them appears at the top), and any
 * page every 2 s while a run it shows is still going. A later page does not poll for new runs: each one would push
 * the rows being read down by one. A hidden tab asks nothing. Rows are keyed by run, so an answer that changes
 * nothing redraws nothing, and the link that has focus keeps it.
 */
export function RunsListPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const path = withQuery('/executions', executionsQuery(filters, PAGE_SIZE));
  const runs = useApi(path, (signal) => get<ExecutionList>(path, { signal }));
  const inFlight = runs.data?.data.some((r) => r.status === 'running' || (r.status as string) === 'pending') ?? false;
  const pollMs = inFlight ? IN_FLIGHT_POLL_MS : filters.offset === 0 ? NEW_RUNS_POLL_MS : undefined;
  usePolling(runs.reload, pollMs ?? NEW_RUNS_POLL_MS, pollMs !== undefined && !runs.loading && runs.data !== undefined);

  const workflows = useApi('/workflows?limit=1000', (signal) => get<WorkflowList>('/workflows', { signal, query: { limit: 1000 } }));
  const triggerQuery = { workflowId: filters.workflowId, limit: 1000 };
  const webhookPath = withQuery('/webhook-triggers', triggerQuery);
  const schedulePath = withQuery('/schedule-triggers', triggerQuery);
  const webhooks = useApi(webhookPath, (signal) => get<WebhookTriggerList>(webhookPath, { signal }));
  const schedules = useApi(schedulePath, (signal) => get<ScheduleTriggerList>(schedulePath, { signal }));

  const set = (key: FilterKey) => (event: { target: { value: string } }) => changeFilter(setParams, key, event.target.value);
  const activeFilters = FILTER_KEYS.filter((k) => params.get(k)).length;
  const anyFilter = activeFilters > 0;
  // The filters fold behind one button, so the runs are a few key presses from the top of the page. They show by
  // themselves whenever one applies (a filtered address, back/forward); once used they stay until the button folds
  // them (clearing the last filter must not hide the field that has focus).
  const [filtersOpen, setFiltersOpen] = useState<boolean>();
  const showFilters = filtersOpen ?? anyFilter;

  // The delivery id is typed: it applies on Enter or on leaving the field, not at every keystroke (one history entry, one request).
  const [deliveryId, setDeliveryId] = useState(filters.deliveryId);
  const [deliveryIdOfUrl, setDeliveryIdOfUrl] = useState(filters.deliveryId);
  if (deliveryIdOfUrl !== filters.deliveryId) {
    // The URL changed it (back, forward, Clear filters): the field follows.
    setDeliveryIdOfUrl(filters.deliveryId);
    setDeliveryId(filters.deliveryId);
  }
  const applyDeliveryId = (value = deliveryId) => {
    if (value.trim() !== filters.deliveryId) changeFilter(setParams, 'deliveryId', value.trim());
  };

  return (
    <Page
      title="Runs"
      subtitle="Every execution of the organization's workflows, newest first"
      actions={
        can('workflows:admin') && (
          <Link className="button" to="/runs/replay">
            Bulk replay
          </Link>
        )
      }
    >
      <p className="filters-toggle">
        <button type="button" aria-expanded={showFilters} aria-controls="run-filters" onClick={() => setFiltersOpen(!showFilters)}>
          Filters{activeFilters > 0 && ` (${activeFilters} applied)`}
        </button>
      </p>
      <form
        id="run-filters"
        className="filters"
        aria-label="Filter runs"
        hidden={!showFilters}
        onSubmit={(e) => e.preventDefault()}
        onChange={() => setFiltersOpen(true)}
      >
        <div>
          <label htmlFor="filter-workflow">Workflow</label>
          <select id="filter-workflow" value={filters.workflowId} onChange={set('workflowId')}>
            <option value="">All workflows</option>
            {workflows.data?.data.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={filters.status} onChange={set('status')}>
            <option value="">Any status</option>
            {EXECUTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-mode">Mode</label>
          <select id="filter-mode" value={filters.mode} onChange={set('mode')}>
            <option value="">Any mode</option>
            {EXECUTION_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="filter-trigger">Trigger</label>
          <select id="filter-trigger" value={filters.triggerId} onChange={set('triggerId')}>
            <option value="">Any trigger</option>
            {(webhooks.data?.data.length ?? 0) > 0 && (
              <optgroup label="Webhooks">
                {webhooks.data?.data.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </optgroup>
            )}
            {(schedules.data?.data.length ?? 0) > 0 && (
              <optgroup label="Schedules">
                {schedules.data?.data.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </div>
        <div>
          <label htmlFor="filter-after">Started after</label>
          <input id="filter-after" type="datetime-local" step="1" value={filters.startedAfter} onChange={set('startedAfter')} />
        </div>
        <div>
          <label htmlFor="filter-before">Started before</label>
          <input id="filter-before" type="datetime-local" step="1" value={filters.startedBefore} onChange={set('startedBefore')} />
        </div>
        <div>
          <label htmlFor="filter-delivery">Delivery id</label>
          <input
            id="filter-delivery"
            type="search"
            className="mono delivery-id-filter"
            autoComplete="off"
            maxLength={200}
            placeholder="press Enter to apply"
            value={deliveryId}
            onChange={(e) => {
              setDeliveryId(e.target.value);
              // Emptied (or cleared with the field's own button): every run again, at once.
              if (e.target.value === '') applyDeliveryId('');
            }}
            onKeyDown={(e) => {
              // No submit button, several fields: Enter would not submit the form by itself.
              if (e.key === 'Enter') applyDeliveryId();
            }}
            onBlur={() => applyDeliveryId()}
          />
        </div>
        {anyFilter && (
          <div>
            <button
              type="button"
              onClick={() => {
                setFiltersOpen(true);
                setParams(new URLSearchParams());
              }}
            >
              Clear filters
            </button>
          </div>
        )}
      </form>
      <ListView
        // A poll is no news: the table is marked busy only while another page or other filters load.
        state={{ loading: runs.loading && !runs.refreshing, error: runs.error ?? workflows.error }}
        items={runs.data?.data}
        loadingText="Loading runs…"
        empty={anyFilter ? 'No run matches these filters.' : 'No runs yet. Runs appear here when a webhook, a schedule, the API or a test run starts one.'}
        className="runs-table"
        caption="Runs"
        columns={[
          { label: 'Status' },
          { label: 'Workflow' },
          { label: 'Mode' },
          { label: 'Trigger' },
          { label: 'Started' },
          { label: 'Duration', numeric: true },
        ]}
        rowKey={(run) => run.id}
        row={(run) => <RunRow run={run} />}
        paging={
          runs.data && {
            offset: filters.offset,
            limit: PAGE_SIZE,
            total: runs.data.total,
            onChange: (offset) =>
              setParams((p) => {
                const next = new URLSearchParams(p);
                if (offset) next.set('offset', String(offset));
                else next.delete('offset');
                return next;
              }),
          }
        }
      />
      {runs.data && <p className="muted runs-total">{runs.data.total === 1 ? '1 run' : `${runs.data.total} runs`}</p>}
    </Page>
  );
}

/**
 * One run. Its workflow's name is the link to it, the one keyboard stop of the row; a click anywhere else on the
 * row opens the run too (not a click on another control, not one that ends a text selection, not a modified click,
 * which the link itself handles as a new tab).
 */
function RunRow({ run }: { run: ExecutionListItem }) {
  const navigate = useNavigate();
  const to = `/runs/${encodeURIComponent(run.id)}`;
  const open = (event: MouseEvent<HTMLTableRowElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if ((event.target as Element).closest('a, button, input, select, textarea, label, summary')) return;
    if (window.getSelection()?.toString()) return;
    navigate(to);
  };
  return (
    <tr className="run-row" onClick={open}>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td className="run-workflow">
        <Link to={to} aria-label={`${run.workflowName}, run started ${formatTime(run.startedAt)}`}>
          {run.workflowName}
        </Link>{' '}
        <span className="muted">v{run.workflowVersion}</span>
      </td>
      <td data-label="Mode">{run.mode}</td>
      <td data-label="Trigger">{run.trigger?.name ?? <span className="muted">—</span>}</td>
      <td data-label="Started">{formatTime(run.startedAt)}</td>
      <td className="num" data-label="Duration">
        {run.status === 'running' ? <span className="muted">running…</span> : formatDuration(run.durationMs)}
      </td>
    </tr>
  );
}
