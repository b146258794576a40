import { Link, useSearchParams } from 'react-router';
import { get } from '../../api/client';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
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
      <ListView
        state={tables}
        items={tables.data?.data}
        loadingText="Loading tables…"
        empty="No tables yet. A table appears when a workflow step, an import or the API first writes a record into it."
        columns={[{ label: 'Table' }, { label: 'Records', numeric: true }, { label: 'Created by' }, { label: 'Created' }]}
        rowKey={(t) => t.tableName}
        row={(t) => (
          <tr>
            <td>
              <Link to={`/data/tables/${encodeURIComponent(t.tableName)}`}>{t.tableName}</Link>
            </td>
            <td className="num">{t.recordCount.toLocaleString()}</td>
            <td>{ORIGINS[t.createdVia] ?? t.createdVia}</td>
            <td>{formatTime(t.createdAt)}</td>
          </tr>
        )}
        paging={tables.data && { offset, limit: LIMIT, total: tables.data.total, onChange: (next) => setParams(next ? { offset: String(next) } : {}) }}
      />
    </Page>
  );
}
