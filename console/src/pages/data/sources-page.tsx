import { Link } from 'react-router';
import { get } from '../../api/client';
import { useSession } from '../../session/session';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { DataTabs } from './data-tabs';
import type { SourceList } from './data-types';
import { SyncBadge } from './sync-badge';
import './sources.css';

const KEY = '/dashboards/data-sources';

/** The data sources dashboards query: each over one data store table, some fed by a connection's data feed. */
export function SourcesPage() {
  const { can } = useSession();
  const sources = useApi(can('dashboards:view') ? KEY : null, (signal) => get<SourceList>(KEY, { signal }));

  return (
    <Page
      title="Data sources"
      subtitle="Typed views over data store tables that dashboards query"
      actions={
        can('dashboards:admin') && (
          <Link className="button primary" to="/data/sources/new">
            New data source
          </Link>
        )
      }
    >
      <DataTabs />
      {!can('dashboards:view') && <p className="notice">Your role cannot read data sources (it needs dashboards:view).</p>}
      {/* Every organization has its built-in run sources, so the list is never empty: the explanation shows until one of its own exists. */}
      {sources.data && sources.data.length > 0 && sources.data.every((s) => s.builtIn) && <NoSourcesOfItsOwn />}
      <ListView
        state={sources}
        items={sources.data}
        loadingText="Loading data sources…"
        empty={<NoSourcesOfItsOwn />}
        columns={[{ label: 'Name' }, { label: 'Table' }, { label: 'Fields', numeric: true }, { label: 'Feed' }, { label: 'State' }, { label: 'Updated' }]}
        rowKey={(s) => s.id}
        row={(s) => (
          <tr>
            <td>
              <Link to={`/data/sources/${s.id}`}>{s.name}</Link>
            </td>
            <td>
              {s.builtIn ? (
                // No table: a built-in source reads the organization's runs themselves.
                <span className="muted">This organization's runs</span>
              ) : s.sharedFromOrganizationId ? (
                // The owner's name of a shared table, which this organization's table pages do not know.
                <>{s.dataStoreTableName} (shared)</>
              ) : (
                <Link to={`/data/tables/${encodeURIComponent(s.dataStoreTableName)}`}>{s.dataStoreTableName}</Link>
              )}
            </td>
            <td className="num">{Object.keys(s.recordSchema.fields).length + s.recordSchema.calculatedFields.length}</td>
            <td>{s.syncConfig ? `${s.type} via ${s.connectionName ?? 'no connection'}` : <span className="muted">—</span>}</td>
            <td>
              {s.builtIn ? (
                <span className="badge" title="Built in: the service keeps it; it cannot be changed or deleted">
                  Built-in · read-only
                </span>
              ) : !s.enabled ? (
                <span className="badge">Disabled</span>
              ) : s.syncConfig ? (
                <SyncBadge status={s.syncConfig.lastSyncStatus} />
              ) : (
                'Enabled'
              )}
            </td>
            <td>{formatTime(s.updatedAt)}</td>
          </tr>
        )}
      />
    </Page>
  );
}

/** What a source is and how to make one: shown while the organization has none of its own (only the built-in ones over its runs). */
function NoSourcesOfItsOwn() {
  const { can } = useSession();
  return (
    <div className="empty-state">
      <p>
        No data sources of your own yet. A data source is what dashboards chart: it reads the records of one data store table (or of a data feed, synced from
        Twilio, GitHub or HubSpot) and says what each field is: a measure to sum, a dimension to group by, and the date that places each record in time. The
        built-in sources listed here chart this organization&apos;s own runs.
      </p>
      {can('dashboards:admin') ? (
        <p>
          <Link to="/data/sources/new">Make a data source</Link> from a table or a data feed.
        </p>
      ) : (
        <p>Someone whose role has dashboards:admin can make one.</p>
      )}
    </div>
  );
}
