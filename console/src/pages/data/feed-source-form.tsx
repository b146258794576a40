import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { useApi } from '../../ui/use-api';
import type { ConnectionList, FeedCatalog, FeedToggled } from './data-types';

const CONNECTIONS = '/connections?limit=1000';
const CATALOG = '/dashboards/data-feeds/catalog';

/**
 * "From a data feed": a built-in feed read through one of the organization's connections of its kind. Turning
 * the feed on (POST /dashboards/data-feeds/toggle) makes the source, with the feed's own fields, and starts syncing.
 */
export function FeedSourceForm() {
  const { can } = useSession();
  const navigate = useNavigate();
  const connections = useApi(can('secrets:view') ? CONNECTIONS : null, (signal) => get<ConnectionList>(CONNECTIONS, { signal }));
  const catalog = useApi(CATALOG, (signal) => get<FeedCatalog>(CATALOG, { signal }));
  const [feedKey, setFeedKey] = useState('');
  const [connectionId, setConnectionId] = useState('');
  const [interval, setSyncInterval] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const feeds = catalog.data ?? [];
  const feed = feeds.find((f) => f.key === feedKey) ?? feeds[0];
  const usable = (connections.data?.data ?? []).filter((c) => c.type === feed?.connectionType);
  const connection = usable.find((c) => c.id === connectionId) ?? usable[0];

  async function turnOn(event: FormEvent) {
    event.preventDefault();
    if (!connection || !feed) return;
    setError(undefined);
    setBusy(true);
    try {
      const toggled = await post<FeedToggled>('/dashboards/data-feeds/toggle', {
        feedKey: feed.key,
        connectionId: connection.id,
        connectionName: connection.name,
        enabled: true,
        ...(interval.trim() ? { syncIntervalMinutes: Number(interval) } : {}),
      });
      navigate(`/data/sources/${toggled.dataSourceId}`);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  }

  const intervalProblem = problemAt(error, 'syncIntervalMinutes');
  const connectionProblem = problemAt(error, 'connectionId');
  return (
    <section aria-labelledby="feed-source-heading">
      <h2 id="feed-source-heading">From a data feed</h2>
      <p className="muted">
        A data feed copies a vendor's records into a table of its own through one of your connections, on a schedule, and the source over it comes with the
        feed's fields. Turning a feed on again for the same connection re-enables its source.
      </p>
      <form className="stacked-form" aria-label="New data source from a data feed" onSubmit={(e) => void turnOn(e)}>
        {!feed ? (
          <>
            <ErrorBox error={catalog.error} />
            {!catalog.error && <p className="page-status">Loading feeds…</p>}
          </>
        ) : (
          <div className="field">
            <label htmlFor="feed-kind">Feed</label>
            <select id="feed-kind" value={feed.key} onChange={(e) => setFeedKey(e.target.value)} aria-describedby="feed-kind-help">
              {feeds.map((f) => (
                <option key={f.key} value={f.key}>
                  {f.title}
                </option>
              ))}
            </select>
            <span id="feed-kind-help" className="help">
              Records hold {feed.fields.map((f) => f.label).join(', ')}; read through a <code>{feed.connectionType}</code> connection
            </span>
          </div>
        )}
        {!feed ? null : !can('secrets:view') ? (
          <p className="notice">Your role cannot list connections (it needs secrets:view), so a feed cannot be turned on from here.</p>
        ) : connections.data === undefined ? (
          <>
            <ErrorBox error={connections.error} />
            {!connections.error && <p className="page-status">Loading connections…</p>}
          </>
        ) : usable.length === 0 ? (
          <div className="empty-state">
            <p>
              There is no <code>{feed.connectionType}</code> connection yet. Add one in <Link to="/settings/connections">Settings → Connections</Link> (type{' '}
              <code>{feed.connectionType}</code>), then come back here.
            </p>
          </div>
        ) : (
          <>
            <div className="field">
              <label htmlFor="feed-connection">Connection</label>
              <select
                id="feed-connection"
                value={connection?.id ?? ''}
                onChange={(e) => setConnectionId(e.target.value)}
                {...problemProps('feed-connection', connectionProblem)}
              >
                {usable.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
              <ProblemNote id="feed-connection" problem={connectionProblem} />
            </div>
            <div className="field">
              <label htmlFor="feed-interval">Sync every (minutes)</label>
              <input
                id="feed-interval"
                type="number"
                inputMode="numeric"
                min={1}
                max={10080}
                step={1}
                value={interval}
                placeholder="the service's default"
                onChange={(e) => setSyncInterval(e.target.value)}
                {...problemProps('feed-interval', intervalProblem, 'feed-interval-help')}
              />
              <span id="feed-interval-help" className="help">
                1 to 10,080 (a week); empty for the service's default
              </span>
              <ProblemNote id="feed-interval" problem={intervalProblem} />
            </div>
            <ErrorBox error={error} />
            <div className="form-actions">
              <button type="submit" className="primary" disabled={busy}>
                Turn the feed on
              </button>
              <Link className="button" to="/data/sources">
                Cancel
              </Link>
            </div>
          </>
        )}
      </form>
    </section>
  );
}
