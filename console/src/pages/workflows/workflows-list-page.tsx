import { Link, useSearchParams } from 'react-router';
import { get, withQuery } from '../../api/client';
import { useSession } from '../../session/session';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { StarterPicker } from './starter-picker';
import type { WorkflowList } from './workflow-model';

const PAGE_SIZE = 50;

/** The organization's workflows by name. */
export function WorkflowsListPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const path = withQuery('/workflows', { limit: PAGE_SIZE, offset });
  const workflows = useApi(path, (signal) => get<WorkflowList>(path, { signal }));
  const admin = can('workflows:admin');
  // Only a truly empty organization is offered the starters, not a page past the end of the list.
  const firstVisit = admin && workflows.data?.total === 0;
  return (
    <Page
      title="Workflows"
      subtitle="Definitions, their triggers, test runs and versions"
      actions={
        admin && (
          <Link className="button primary" to="/workflows/new">
            New workflow
          </Link>
        )
      }
    >
      <ListView
        state={workflows}
        items={workflows.data?.data}
        loadingText="Loading workflows…"
        empty={admin ? 'No workflows yet: start from a template below, or from scratch.' : 'No workflows yet.'}
        columns={[{ label: 'Name' }, { label: 'Description' }, { label: 'Steps', numeric: true }, { label: 'Version', numeric: true }, { label: 'Updated' }]}
        rowKey={(w) => w.id}
        row={(w) => (
          <tr>
            <td>
              <Link to={`/workflows/${w.id}`}>{w.name}</Link>
            </td>
            <td className="muted">{w.definition.description ?? ''}</td>
            <td className="num">{w.definition.steps.length}</td>
            <td className="num">{w.version}</td>
            <td>{formatTime(w.updatedAt)}</td>
          </tr>
        )}
        paging={workflows.data && { offset, limit: PAGE_SIZE, total: workflows.data.total, onChange: (o) => setParams(o ? { offset: String(o) } : {}) }}
      />
      {firstVisit && <StarterPicker />}
    </Page>
  );
}
