import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { del, get, put } from '../../api/client';
import { useSession } from '../../session/session';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { SettingsTabs } from './settings-tabs';
import type { Environment, EnvironmentValues } from './settings-types';

const SECRET_MASK = '••••• (secret)';

interface Loaded {
  environment: Environment;
  /** Values of the variables that are not secrets; null when the role may not read values. */
  plainValues: Record<string, string> | null;
}

/**
 * Reads the environment and, with secrets:view, the values of its non-secret
 * variables: `secrets=omit` keeps the secret ones on the server (they are not
 * even decrypted); the filter here only guards against a key that became secret since.
 */
async function load(id: string, mayReadValues: boolean, signal: AbortSignal): Promise<Loaded> {
  const environment = await get<Environment>(`/environments/${id}`, { signal });
  if (!mayReadValues) return { environment, plainValues: null };
  const { variables } = await get<EnvironmentValues>(`/environments/${id}/variables`, { signal, query: { secrets: 'omit' } });
  const plain = new Set(environment.variables.filter((v) => !v.secret).map((v) => v.key));
  return { environment, plainValues: Object.fromEntries(Object.entries(variables).filter(([key]) => plain.has(key))) };
}

/** One environment's variables: non-secret values shown, secret ones masked; secrets:admin adds, changes and removes them. */
export function EnvironmentPage() {
  const { id = '' } = useParams();
  const { can } = useSession();
  const mayReadValues = can('secrets:view');
  const canEdit = can('secrets:admin');
  const loaded = useApi(`/environments/${id}:${mayReadValues}`, (signal) => load(id, mayReadValues, signal));
  const env = loaded.data?.environment;
  const [adding, setAdding] = useState(false);

  return (
    <Page
      title={env?.name ?? 'Environment'}
      subtitle={
        <>
          <Link to="/settings/environments">Environments</Link>
          {env?.description ? ` / ${env.description}` : ''}
        </>
      }
      actions={
        canEdit && env && !adding ? (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add variable
          </button>
        ) : undefined
      }
    >
      <SettingsTabs />
      <ErrorBox error={loaded.error} />
      {!loaded.data && !loaded.error && <p className="page-status">Loading environment…</p>}
      {env && (
        <>
          {!mayReadValues && <p className="notice">Values are hidden: reading them needs the secrets:view permission.</p>}
          {adding && (
            <VariableForm
              environmentId={env.id}
              onCancel={() => setAdding(false)}
              onSaved={() => {
                setAdding(false);
                loaded.reload();
              }}
            />
          )}
          <h2>Variables</h2>
          {env.variables.length === 0 ? (
            <p className="empty-state">No variables yet.</p>
          ) : (
            <table className="list variables">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Value</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Updated</th>
                  {canEdit && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {env.variables.map((v) => (
                  <VariableRow
                    key={v.key}
                    environmentId={env.id}
                    variable={v}
                    value={v.secret ? SECRET_MASK : (loaded.data?.plainValues?.[v.key] ?? null)}
                    canEdit={canEdit}
                    onChanged={loaded.reload}
                  />
                ))}
              </tbody>
            </table>
          )}
          {canEdit && <DeleteEnvironment environment={env} />}
        </>
      )}
    </Page>
  );
}

interface RowProps {
  environmentId: string;
  variable: Environment['variables'][number];
  /** The value to show: the plain value, the secret mask, or null when hidden. */
  value: string | null;
  canEdit: boolean;
  onChanged(): void;
}

function VariableRow({ environmentId, variable: v, value, canEdit, onChanged }: RowProps) {
  const [mode, setMode] = useState<'view' | 'edit' | 'delete'>('view');
  const [error, setError] = useState<unknown>();

  async function remove() {
    setError(undefined);
    try {
      await del(`/environments/${environmentId}/variables/${encodeURIComponent(v.key)}`);
      onChanged();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <>
      <tr>
        <th scope="row" className="plain-row-header">
          <code>{v.key}</code>
        </th>
        <td className="variable-value">
          {value === null ? <span className="muted">hidden</span> : v.secret ? <span className="muted">{value}</span> : <code>{value}</code>}
        </td>
        <td>{v.secret ? <span className="badge secret">Secret</span> : 'Plain'}</td>
        <td>{formatTime(v.updatedAt)}</td>
        {canEdit && (
          <td className="row-actions">
            <button type="button" className="link-button" onClick={() => setMode('edit')} aria-label={`Change ${v.key}`}>
              Change
            </button>
            <button type="button" className="link-button danger-link" onClick={() => setMode('delete')} aria-label={`Delete ${v.key}`}>
              Delete
            </button>
          </td>
        )}
      </tr>
      {mode !== 'view' && (
        <tr className="detail-row">
          <td colSpan={5}>
            {mode === 'edit' && (
              <VariableForm
                environmentId={environmentId}
                existing={v}
                initialValue={v.secret ? '' : (value ?? '')}
                onCancel={() => setMode('view')}
                onSaved={() => {
                  setMode('view');
                  onChanged();
                }}
              />
            )}
            {mode === 'delete' && (
              <p>
                Remove <code>{v.key}</code>? Templates reading $env.{v.key} get nothing.{' '}
                <button type="button" className="danger" onClick={() => void remove()}>
                  Remove variable
                </button>{' '}
                <button type="button" onClick={() => setMode('view')}>
                  Cancel
                </button>
              </p>
            )}
            <ErrorBox error={error} />
          </td>
        </tr>
      )}
    </>
  );
}

interface FormProps {
  environmentId: string;
  existing?: Environment['variables'][number];
  initialValue?: string;
  onCancel(): void;
  onSaved(): void;
}

/** Sets one variable (PUT .../variables/KEY): a new key or a new value for an existing one; a secret's old value is never shown. */
function VariableForm({ environmentId, existing, initialValue = '', onCancel, onSaved }: FormProps) {
  const [key, setKey] = useState(existing?.key ?? '');
  const [value, setValue] = useState(initialValue);
  const [secret, setSecret] = useState(existing?.secret ?? true);
  const [error, setError] = useState<unknown>();
  const idPrefix = existing ? `variable-${existing.key}` : 'new-variable';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await put(`/environments/${environmentId}/variables/${encodeURIComponent(key)}`, { value, secret });
      onSaved();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <form className="panel stacked-form" aria-label={existing ? `Change ${existing.key}` : 'New variable'} onSubmit={(e) => void submit(e)}>
      <div className="form-row">
        {!existing && (
          <div className="field">
            <label htmlFor={`${idPrefix}-key`}>Key</label>
            <input id={`${idPrefix}-key`} value={key} onChange={(e) => setKey(e.target.value)} required autoComplete="off" />
          </div>
        )}
        <div className="field grow">
          <label htmlFor={`${idPrefix}-value`}>{existing ? `New value of ${existing.key}` : 'Value'}</label>
          <input
            id={`${idPrefix}-value`}
            type={secret ? 'password' : 'text'}
            autoComplete="new-password"
            value={value}
            placeholder={existing?.secret ? 'The current value is not shown: enter it again' : undefined}
            onChange={(e) => setValue(e.target.value)}
            // A save sends the value whole: an empty field would replace a secret nobody can see with nothing.
            required={existing?.secret === true}
          />
        </div>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={secret} onChange={(e) => setSecret(e.target.checked)} /> Secret (masked in run records and logs, never shown here)
      </label>
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary">
          {existing ? 'Save variable' : 'Add variable'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function DeleteEnvironment({ environment }: { environment: Environment }) {
  const navigate = useNavigate();
  return (
    <DangerZone
      heading="Delete environment"
      question={
        <>
          Delete <code>{environment.name}</code> and its {environment.variables.length} variables? Workflows that use it run without it.
        </>
      }
      confirmLabel="Delete environment"
      action={() => del(`/environments/${environment.id}`)}
      then={() => void navigate('/settings/environments', { replace: true })}
    />
  );
}
