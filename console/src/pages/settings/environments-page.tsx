import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { SettingsTabs } from './settings-tabs';
import type { Environment, EnvironmentList } from './settings-types';

const LIST = '/environments?limit=1000';

/** Environments with their variable counts; secrets:admin creates them. */
export function EnvironmentsPage() {
  const { can } = useSession();
  const environments = useApi(LIST, (signal) => get<EnvironmentList>(LIST, { signal }));
  const [creating, setCreating] = useState(false);

  return (
    <Page
      title="Environments"
      subtitle="Named sets of variables that templates read as $env.KEY"
      actions={
        can('secrets:admin') && !creating ? (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New environment
          </button>
        ) : undefined
      }
    >
      <SettingsTabs />
      {creating && <CreateEnvironment onCancel={() => setCreating(false)} />}
      <ListView
        state={environments}
        items={environments.data?.data}
        loadingText="Loading environments…"
        empty="No environments yet. A workflow without one runs with no $env variables."
        columns={[
          { label: 'Name' },
          { label: 'Description' },
          { label: 'Variables', numeric: true },
          { label: 'Secrets', numeric: true },
          { label: 'Updated' },
        ]}
        rowKey={(e) => e.id}
        row={(e) => (
          <tr>
            <td>
              <Link to={`/settings/environments/${e.id}`}>{e.name}</Link>
            </td>
            <td>{e.description ?? <span className="muted">—</span>}</td>
            <td className="num">{e.variables.length}</td>
            <td className="num">{e.variables.filter((v) => v.secret).length}</td>
            <td>{formatTime(e.updatedAt)}</td>
          </tr>
        )}
      />
    </Page>
  );
}

function CreateEnvironment({ onCancel }: { onCancel(): void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const navigate = useNavigate();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const created = await post<Environment>('/environments', { name, ...(description.trim() ? { description: description.trim() } : {}) });
      void navigate(`/settings/environments/${created.id}`);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <form className="panel stacked-form" aria-labelledby="new-environment-heading" onSubmit={(e) => void submit(e)}>
      <h2 id="new-environment-heading">New environment</h2>
      <div className="form-row">
        <div className="field">
          <label htmlFor="environment-name">Name</label>
          <input id="environment-name" value={name} onChange={(e) => setName(e.target.value)} required aria-describedby="environment-name-help" />
          <span id="environment-name-help" className="help">
            Letters, digits, _ and -; not starting with a digit or -
          </span>
        </div>
        <div className="field grow">
          <label htmlFor="environment-description">Description</label>
          <input id="environment-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
      </div>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary">
          Create environment
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
