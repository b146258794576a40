import { Link, useParams } from 'react-router';
import { get } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { CalculatedFields } from './calculated-fields';
import { DataTabs } from './data-tabs';
import type { DataSource, FieldDefinition } from './data-types';
import { SyncSection } from './sync-section';

const TYPE_LABELS: Record<FieldDefinition['type'], string> = { date: 'Date', string: 'Text', number: 'Number' };

/** One data source: its fields, calculated fields, window dimensions and, for feed sources, its syncs. */
export function SourcePage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const path = `/dashboards/data-sources/${encodeURIComponent(id)}`;
  const source = useApi(path, (signal) => get<DataSource>(path, { signal }));
  const s = source.data;

  return (
    <Page
      title={s?.name ?? 'Data source'}
      subtitle={
        s ? (
          <>
            <Link to="/data/sources">Data sources</Link> / over table{' '}
            <Link to={`/data/tables/${encodeURIComponent(s.dataStoreTableName)}`}>{s.dataStoreTableName}</Link> · {s.enabled ? 'enabled' : 'disabled'} · updated{' '}
            {formatTime(s.updatedAt)}
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
          <section aria-labelledby="fields-heading">
            <h2 id="fields-heading">Fields</h2>
            <table className="list fields">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Label</th>
                  <th scope="col">Type</th>
                  <th scope="col">Role</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(s.recordSchema.fields).map(([name, f]) => (
                  <tr key={name}>
                    <th scope="row">
                      <code>{name}</code>
                    </th>
                    <td>{f.label}</td>
                    <td>{TYPE_LABELS[f.type] ?? f.type}</td>
                    <td>
                      {f.timeDimension && <span className="badge">Time dimension</span>} {f.measure && <span className="badge">Measure</span>}
                      {!f.timeDimension && !f.measure && <span className="muted">Dimension</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <CalculatedFields source={s} canEdit={can('dashboards:admin')} onChanged={source.reload} />
          {s.windowDimensions.length > 0 && (
            <section aria-labelledby="window-heading">
              <h2 id="window-heading">Window dimensions</h2>
              <table className="list">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Label</th>
                    <th scope="col">Definition</th>
                  </tr>
                </thead>
                <tbody>
                  {s.windowDimensions.map((w) => (
                    <tr key={w.id}>
                      <th scope="row">
                        <code>{w.name}</code>
                      </th>
                      <td>{w.label}</td>
                      <td>
                        <code>
                          {w.function}() over ({w.partitionBy.length > 0 ? `partition by ${w.partitionBy.join(', ')} ` : ''}order by {w.orderBy} {w.direction})
                        </code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {(s.syncConfig || s.connectionId) && <SyncSection source={s} canSync={can('dashboards:admin')} onChanged={source.reload} />}
        </>
      )}
    </Page>
  );
}
