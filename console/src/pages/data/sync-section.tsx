import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { get, post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { formatDuration, formatTime } from '../../ui/format';
import { Pager } from '../../ui/pager';
import { useApi, usePolling } from '../../ui/use-api';
import type { DataSource, FeedSync, FeedSyncList, SyncQueued } from './data-types';
import { SyncBadge } from './sync-badge';

const LIMIT = 20;
const TRIGGERS: Record<FeedSync['trigger'], string> = { schedule: 'Schedule', manual: 'Manual', backfill: 'Backfill' };

interface Props {
  source: DataSource;
  canSync: boolean;
  onChanged(): void;
}

/** A feed source's sync state, its run history (paged in the URL) and, for dashboards:admin, "Sync now". */
export function SyncSection({ source, canSync, onChanged }: Props) {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('syncsOffset') ?? 0) || 0);
  const key = `/dashboards/data-sources/${source.id}/syncs?limit=${LIMIT}&offset=${offset}`;
  const syncs = useApi(key, (signal) => get<FeedSyncList>(key, { signal }));
  const [message, setMessage] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const config = source.syncConfig;
  const running = config?.lastSyncStatus === 'running' || (syncs.data?.data.some((s) => s.status === 'running') ?? false);

  // While a sync runs, follow it.
  usePolling(
    () => {
      syncs.reload();
      onChanged();
    },
    3000,
    running,
  );

  async function syncNow() {
    setBusy(true);
    setError(undefined);
    setMessage(undefined);
    try {
      const queued = await post<SyncQueued>(`/dashboards/data-sources/${source.id}/sync`, {});
      setMessage(queued.message);
      syncs.reload();
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="sync-heading">
      <div className="section-header">
        <h2 id="sync-heading">Sync</h2>
        {canSync && (
          <button type="button" className="primary" onClick={() => void syncNow()} disabled={busy || running}>
            {running ? 'Sync running…' : 'Sync now'}
          </button>
        )}
      </div>
      {message && (
        <p role="status" className="notice">
          {message}
        </p>
      )}
      <ErrorBox error={error} />
      {config ? (
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <SyncBadge status={config.lastSyncStatus} />
            </dd>
          </div>
          <div>
            <dt>Connection</dt>
            <dd>{source.connectionName ?? <span className="error">none (attach one through the API)</span>}</dd>
          </div>
          <div>
            <dt>Every</dt>
            <dd>{config.syncIntervalMinutes} min</dd>
          </div>
          <div>
            <dt>Last sync</dt>
            <dd>{formatTime(config.lastSyncAt)}</dd>
          </div>
          <div>
            <dt>Synced through</dt>
            <dd>{formatTime(config.syncedThrough)}</dd>
          </div>
          {config.lastSyncRecords && (
            <div>
              <dt>Last sync wrote</dt>
              <dd>
                {config.lastSyncRecords.created} new, {config.lastSyncRecords.updated} changed
                {config.lastSyncRecords.deleted ? `, ${config.lastSyncRecords.deleted} deleted` : ''}
              </dd>
            </div>
          )}
        </dl>
      ) : (
        <p className="muted">This source has a connection but no sync schedule.</p>
      )}
      {config?.lastSyncError && (
        <div className="error-box" role="note">
          <p>Last error: {config.lastSyncError}</p>
        </div>
      )}
      <h3>History</h3>
      <ErrorBox error={syncs.error} />
      {!syncs.data && !syncs.error && <p className="page-status">Loading syncs…</p>}
      {syncs.data && syncs.data.total === 0 && <p className="empty-state">No sync has run yet.</p>}
      {syncs.data && syncs.data.data.length > 0 && (
        <>
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col">Window</th>
                <th scope="col" className="num">
                  New
                </th>
                <th scope="col" className="num">
                  Changed
                </th>
                <th scope="col" className="num">
                  Deleted
                </th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {syncs.data.data.map((run) => (
                <tr key={run.id}>
                  <td className="nowrap">{formatTime(run.startedAt)}</td>
                  <td>{TRIGGERS[run.trigger] ?? run.trigger}</td>
                  <td>
                    <SyncBadge status={run.status} />
                  </td>
                  <td className="nowrap">
                    {formatTime(run.window.startDate)} → {formatTime(run.window.endDate)}
                  </td>
                  <td className="num">{run.records.created}</td>
                  <td className="num">{run.records.updated}</td>
                  <td className="num">{run.records.deleted}</td>
                  <td>{formatDuration(run.durationMs)}</td>
                  <td className="error">{run.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            offset={offset}
            limit={LIMIT}
            total={syncs.data.total}
            onChange={(next) => {
              const p = new URLSearchParams(params);
              if (next) p.set('syncsOffset', String(next));
              else p.delete('syncsOffset');
              setParams(p);
            }}
          />
        </>
      )}
    </section>
  );
}
