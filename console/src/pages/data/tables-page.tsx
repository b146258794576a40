import { Link, useSearchParams } from 'react-router';
import { get } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { useApi } from '../../ui/use-api';
import { DataTabs } from './data-tabs';
import type { DataTable, TableList } from './data-types';

const LIMIT = 50;

const ORIGINS: Record<DataTable['createdVia'], string> = { api: 'API', import: 'Import', workflow: 'Workflow step' };

/** Every data store table of the organization with its record count. */
export function TablesPage() {
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const key = `/data-stores/tables?limit=${LIMIT}&offset=${offset}`;
  const tables = useApi(key, (signal) => get<TableList>(key, { signal }));

  return (
    <Page title="Data" subtitle="Key-value tables that workflows, imports and the API write">
      <DataTabs />
      <h2>Tables</h2>
      <ErrorBox error={tables.error} />
      {!tables.data && !tables.error && <p className="page-status">Loading tables…</p>}
      {tables.data && tables.data.total === 0 && (
        <p className="empty-state">No tables yet. A table appears when a workflow step, an import or the API first writes a record into it.</p>
      )}
      {tables.data && tables.data.data.length > 0 && (
        <>
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col" className="num">
                  Records
                </th>
                <th scope="col">Created by</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {tables.data.data.map((t) => (
                <tr key={t.tableName}>
                  <td>
                    <Link to={`/data/tables/${encodeURIComponent(t.tableName)}`}>{t.tableName}</Link>
                  </td>
                  <td className="num">{t.recordCount.toLocaleString()}</td>
                  <td>{ORIGINS[t.createdVia] ?? t.createdVia}</td>
                  <td>{formatTime(t.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager offset={offset} limit={LIMIT} total={tables.data.total} onChange={(next) => setParams(next ? { offset: String(next) } : {})} />
        </>
      )}
    </Page>
  );
}
