import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { Pager } from '../../ui/pager';
import { useApi } from '../../ui/use-api';
import type { WorkflowList } from './workflow-model';

const PAGE_SIZE = 50;

/** The organization's workflows by name. */
export function WorkflowsListPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const path = withQuery('/workflows', { limit: PAGE_SIZE, offset });
  const workflows = useApi(path, (signal) => get<WorkflowList>(path, { signal }));
  return (
    <Page
      title="Workflows"
      subtitle="Definitions, their triggers, test runs and versions"
      actions={
        can('workflows:admin') && (
          <Link className="button primary" to="/workflows/new">
            New workflow
          </Link>
        )
      }
    >
      <ErrorBox error={workflows.error} />
      {!workflows.data ? (
        !workflows.error && <p className="page-status">Loading workflows…</p>
      ) : workflows.data.data.length === 0 ? (
        <p className="empty-state">No workflows yet.{can('workflows:admin') ? ' Create one with “New workflow”, or paste a definition there.' : ''}</p>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col" className="num">
                Steps
              </th>
              <th scope="col" className="num">
                Version
              </th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {workflows.data.data.map((w) => (
              <tr key={w.id}>
                <td>
                  <Link to={`/workflows/${w.id}`}>{w.name}</Link>
                </td>
                <td className="muted">{w.definition.description ?? ''}</td>
                <td className="num">{w.definition.steps.length}</td>
                <td className="num">{w.version}</td>
                <td>{formatTime(w.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {workflows.data && workflows.data.total > PAGE_SIZE && (
        <Pager offset={offset} limit={PAGE_SIZE} total={workflows.data.total} onChange={(o) => setParams(o ? { offset: String(o) } : {})} />
      )}
    </Page>
  );
}
