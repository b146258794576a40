import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { formatDuration, formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { StatusBadge } from '../../ui/status-badge';
import { useApi, useInterval } from '../../ui/use-api';
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

/** Runs, newest first, filtered by what the URL query says; refreshed every 2 s while any shown run is still running. */
export function RunsListPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const path = withQuery('/executions', executionsQuery(filters, PAGE_SIZE));
  const runs = useApi(path, (signal) => get<ExecutionList>(path, { signal }));
  const inFlight = runs.data?.data.some((r) => r.status === 'running' || (r.status as string) === 'pending') ?? false;
  useInterval(runs.reload, 2000, inFlight && !runs.loading);

  const workflows = useApi('/workflows?limit=1000', (signal) => get<WorkflowList>('/workflows', { signal, query: { limit: 1000 } }));
  const triggerQuery = { workflowId: filters.workflowId, limit: 1000 };
  const webhookPath = withQuery('/webhook-triggers', triggerQuery);
  const schedulePath = withQuery('/schedule-triggers', triggerQuery);
  const webhooks = useApi(webhookPath, (signal) => get<WebhookTriggerList>(webhookPath, { signal }));
  const schedules = useApi(schedulePath, (signal) => get<ScheduleTriggerList>(schedulePath, { signal }));

  const set = (key: FilterKey) => (event: { target: { value: string } }) => changeFilter(setParams, key, event.target.value);
  const anyFilter = FILTER_KEYS.some((k) => params.get(k));

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
      <form className="filters" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
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
            <button type="button" onClick={() => setParams(new URLSearchParams())}>
              Clear filters
            </button>
          </div>
        )}
      </form>
      <ListView
        state={{ loading: runs.loading, error: runs.error ?? workflows.error }}
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
          { label: 'Open', hidden: true },
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

function RunRow({ run }: { run: ExecutionListItem }) {
  return (
    <tr>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td>
        {run.workflowName} <span className="muted">v{run.workflowVersion}</span>
      </td>
      <td>{run.mode}</td>
      <td>{run.trigger?.name ?? <span className="muted">—</span>}</td>
      <td>{formatTime(run.startedAt)}</td>
      <td className="num">{run.status === 'running' ? <span className="muted">running…</span> : formatDuration(run.durationMs)}</td>
      <td>
        <Link to={`/runs/${encodeURIComponent(run.id)}`} aria-label={`Open run of ${run.workflowName} started ${formatTime(run.startedAt)}`}>
          Open
        </Link>
      </td>
    </tr>
  );
}
