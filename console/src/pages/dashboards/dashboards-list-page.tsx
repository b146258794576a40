import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { del, post, send } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import type { Dashboard, DashboardList } from './dashboard-api';
import { OperationsTemplateAction } from './template-action';
import { ZoneSelect } from './zone-select';

const LIMIT = 50;

/** GET /dashboards, paged by `offset` in the URL; dashboards:admin also creates and deletes them here. */
export function DashboardsListPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const [creating, setCreating] = useState(false);
  const list = useApi(`dashboards|${offset}`, async (signal) => {
    const response = await send('GET', '/dashboards', undefined, { signal, query: { limit: LIMIT, offset } });
    return { total: Number(response.headers.get('X-Total-Count') ?? 0), dashboards: (await response.json()) as DashboardList };
  });

  return (
    <Page
      title="Dashboards"
      actions={
        can('dashboards:admin') &&
        !creating && (
          <>
            <OperationsTemplateAction />
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              New dashboard
            </button>
          </>
        )
      }
    >
      {creating && <CreateDashboardForm onCancel={() => setCreating(false)} />}
      <ListView
        state={list}
        items={list.data?.dashboards}
        loadingText="Loading…"
        empty={
          <>
            <p>No dashboards yet.</p>
            {can('dashboards:admin') ? (
              <p className="muted">Create one to chart your data sources.</p>
            ) : (
              <p className="muted">An admin of the organization can create one.</p>
            )}
          </>
        }
        columns={[
          { label: 'Name' },
          { label: 'Description' },
          { label: 'Time zone' },
          { label: 'Updated' },
          ...(can('dashboards:admin') ? [{ label: 'Actions', hidden: true }] : []),
        ]}
        rowKey={(d) => d.id}
        row={(d) => (
          <tr>
            <td>
              <Link to={`/dashboards/${d.id}`}>{d.name}</Link> {d.isDefault && <span className="badge ok">Default</span>}
            </td>
            <td>{d.description || <span className="muted">—</span>}</td>
            <td>{d.timezone ?? <span className="muted">Viewer's own</span>}</td>
            <td>{formatTime(d.updatedAt)}</td>
            {can('dashboards:admin') && (
              <td>
                <DeleteDashboard dashboard={d} onDeleted={list.reload} />
              </td>
            )}
          </tr>
        )}
        paging={list.data && { offset, limit: LIMIT, total: list.data.total, onChange: (o) => setParams(o === 0 ? {} : { offset: String(o) }) }}
      />
    </Page>
  );
}

/** A row's deletion (DELETE /dashboards/{id}): a button, then the consequence and the action named again. */
function DeleteDashboard({ dashboard, onDeleted }: { dashboard: Dashboard; onDeleted(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await del(`/dashboards/${dashboard.id}`);
      onDeleted();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return confirming ? (
    <>
      <ConfirmPrompt
        question={<>Delete “{dashboard.name}” and its widgets for everyone? Its data sources stay.</>}
        confirmLabel="Delete dashboard"
        busy={busy}
        onConfirm={() => void confirm()}
        onCancel={() => setConfirming(false)}
      />
      <ErrorBox error={error} />
    </>
  ) : (
    <button type="button" className="danger small" onClick={() => setConfirming(true)} aria-label={`Delete ${dashboard.name}…`}>
      Delete…
    </button>
  );
}

/** POST /dashboards; opens the new dashboard in edit mode, ready for its first widget. */
function CreateDashboardForm({ onCancel }: { onCancel(): void }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [timezone, setTimezone] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const created = await post<Dashboard>('/dashboards', { name, description, isDefault, timezone: timezone || null });
      navigate(`/dashboards/${created.id}?edit=1`);
    } catch (err) {
      setError(err);
      setSaving(false);
    }
  };

  return (
    <form className="panel-form" onSubmit={(e) => void submit(e)} aria-labelledby="new-dashboard-heading">
      <h2 id="new-dashboard-heading">New dashboard</h2>
      <ErrorBox error={error} />
      <div className="form-row">
        <div className="field">
          <label htmlFor="dashboard-name">Name</label>
          <input id="dashboard-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field grow">
          <label htmlFor="dashboard-description">Description</label>
          <input id="dashboard-description" maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="dashboard-timezone">Time zone</label>
          <ZoneSelect id="dashboard-timezone" value={timezone} onChange={setTimezone} />
        </div>
        <label className="check">
          <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} /> Default dashboard
        </label>
      </div>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Creating…' : 'Create dashboard'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
