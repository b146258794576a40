import { Link, useNavigate, useParams } from 'react-router';
import { del, get } from '../../api/client';
import { useSession } from '../../session/session';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { BuiltInMeasures } from './built-in-measures';
import { CalculatedFields } from './calculated-fields';
import { DataTabs } from './data-tabs';
import type { DataSource } from './data-types';
import { SourceFieldsSection } from './source-fields-section';
import { SyncSection } from './sync-section';
import { WindowDimensions } from './window-dimensions';
import './sources.css';

/** One data source: its fields, calculated fields, window dimensions and, for feed sources, its syncs. */
export function SourcePage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const navigate = useNavigate();
  const path = `/dashboards/data-sources/${encodeURIComponent(id)}`;
  const source = useApi(path, (signal) => get<DataSource>(path, { signal }));
  const s = source.data;
  // Built-in sources answer 400 source_read_only to every change: no edit or delete controls for them.
  const editable = can('dashboards:admin') && !s?.builtIn;

  return (
    <Page
      title={s?.name ?? 'Data source'}
      subtitle={
        s ? (
          <>
            <Link to="/data/sources">Data sources</Link> /{' '}
            {s.builtIn ? (
              <>built in, over this organization's runs</>
            ) : s.sharedFromOrganizationId ? (
              // The owner's name of a shared table: this organization's table pages know it by its alias.
              <>over table {s.dataStoreTableName} (shared with this organization)</>
            ) : (
              <>
                over table <Link to={`/data/tables/${encodeURIComponent(s.dataStoreTableName)}`}>{s.dataStoreTableName}</Link>
              </>
            )}{' '}
            · {s.enabled ? 'enabled' : 'disabled'} · updated {formatTime(s.updatedAt)}
          </>
        ) : (
          <Link to="/data/sources">Data sources</Link>
        )
      }
    >
      <DataTabs />
      <ErrorBox error={source.error} />
      {!s && !source.error && <p className="page-status">Loading data source…</p>}
      {s && (
        <>
          {s.builtIn && (
            <p className="notice" role="note">
              Built in and read-only: this source reads the organization's runs ({s.type === 'flowbase:runs' ? 'one row per run' : 'one row per step'}), kept by
              the service and pruned with them by retention, so its fields cannot be edited and it cannot be deleted. Chart it in a dashboard, or start from the
              Operations template on the dashboards page.
            </p>
          )}
          <SourceFieldsSection source={s} canEdit={editable} onChanged={source.reload} />
          {s.builtIn ? (
            // Its model is the service's: the measures it computes instead of calculated fields and window dimensions it cannot have.
            <BuiltInMeasures source={s} />
          ) : (
            <>
              <CalculatedFields source={s} canEdit={editable} onChanged={source.reload} />
              <WindowDimensions source={s} canEdit={editable} onChanged={source.reload} />
            </>
          )}
          {(s.syncConfig || s.connectionId) && <SyncSection source={s} canSync={can('dashboards:admin')} onChanged={source.reload} />}
          {editable && (
            <DangerZone
              heading="Delete this data source"
              question={
                <>
                  Deleting {s.name} drops its analytics table; the records of table {s.dataStoreTableName} stay. Widgets charting it will show nothing
                  {s.syncConfig ? ', and its feed stops syncing' : ''}.
                </>
              }
              confirmLabel={`Delete ${s.name}`}
              action={() => del(path)}
              then={() => navigate('/data/sources')}
            />
          )}
        </>
      )}
    </Page>
  );
}
