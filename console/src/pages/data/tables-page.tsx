import { Link, useSearchParams } from 'react-router';
import { get } from '../../api/client';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { useSession } from '../../session/session';
import { DataTabs } from './data-tabs';
import type { DataTable, TableList } from './data-types';
import './tables.css';

const LIMIT = 50;

const ORIGINS: Record<DataTable['createdVia'], string> = { api: 'API', import: 'Import', workflow: 'Workflow step' };

/** Every data store table of the organization with its record count. */
export function TablesPage() {
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const key = `/data-stores/tables?limit=${LIMIT}&offset=${offset}`;
  const tables = useApi(key, (signal) => get<TableList>(key, { signal }));
  const { can } = useSession();

  return (
    <Page
      title="Data"
      subtitle="Key-value tables that workflows, imports and the API write"
      actions={
        can('workflows:admin') ? (
          <Link className="button primary" to="/data/new-table">
            New table
          </Link>
        ) : undefined
      }
    >
      <DataTabs />
      <h2>Tables</h2>
      {/* The list scrolls sideways inside its box on a narrow screen; its links make it reachable by keyboard. */}
      <div className="scroll-x">
        <ListView
          state={tables}
          items={tables.data?.data}
          loadingText="Loading tables…"
          empty="No tables yet. Create one (empty or from a CSV or JSON file), or a workflow step, an import or the API creates it with its first record."
          columns={[
            { label: 'Table' },
            { label: 'Records', numeric: true },
            { label: 'Created by' },
            { label: 'Created' },
            ...(can('dashboards:admin') ? [{ label: 'Analytics' }] : []),
          ]}
          rowKey={(t) => t.tableName}
          row={(t) => (
            <tr>
              <td>
                <Link to={`/data/tables/${encodeURIComponent(t.tableName)}`}>{t.tableName}</Link>
              </td>
              <td className="num">{t.recordCount.toLocaleString()}</td>
              <td>{ORIGINS[t.createdVia] ?? t.createdVia}</td>
              <td>{formatTime(t.createdAt)}</td>
              {can('dashboards:admin') && (
                <td>
                  <Link to={`/data/sources/new?table=${encodeURIComponent(t.tableName)}`} aria-label={`Make a data source from ${t.tableName}`}>
                    Make a data source
                  </Link>
                </td>
              )}
            </tr>
          )}
          paging={tables.data && { offset, limit: LIMIT, total: tables.data.total, onChange: (next) => setParams(next ? { offset: String(next) } : {}) }}
        />
      </div>
    </Page>
  );
}
